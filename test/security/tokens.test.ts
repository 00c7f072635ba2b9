import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ADMIN_AUTH, assertUnauthenticated, basicAuth, securityApp, type SecurityApp } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;
const PUSH_STATE = '/push-api/v1/collections/docs/state';
const ADMIN_LIST = '/admin-api/v1/collections';
const PUSHER = { password: 'pusher-password', permissions: ['sec.continuous.rest'], collections: ['docs'] };

describe('login tokens', () => {
  let t: SecurityApp;
  const withToken = (url: string, token: string) =>
    t.app.inject({ method: 'GET', url, headers: { 'x-security-token': token } });

  beforeEach(async () => {
    t = await securityApp(['docs']);
    await t.putUser('pusher', PUSHER);
  });
  afterEach(async () => t.close());

  it('login with form fields or JSON returns a token that works on push and admin routes', async () => {
    const token = await t.login('pusher', PUSHER.password);
    assert.equal((await withToken(PUSH_STATE, token)).statusCode, 200);
    const json = await t.app.inject({
      method: 'POST',
      url: '/admin-api/account/v1/login',
      payload: { username: 'admin', password: 'test-admin-password' },
    });
    assert.equal(json.statusCode, 200, json.body);
    const body = json.json<{ token: string; user: string; expires: string }>();
    assert.equal(body.user, 'admin');
    assert.equal(Date.parse(body.expires) - Date.now() > 13 * DAY, true, 'default lifetime: 14 days');
    assert.equal((await withToken(ADMIN_LIST, body.token)).statusCode, 200);
    // A token is the user's: the pusher's token does not open the admin API.
    assert.equal((await withToken(ADMIN_LIST, token)).statusCode, 403);
  });

  it('a wrong password or an unknown user gets 401 and no token', async () => {
    for (const [username, password] of [
      ['pusher', 'not-the-password'],
      ['ghost', 'pusher-password'],
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/admin-api/account/v1/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ username: username!, password: password! }).toString(),
      });
      assertUnauthenticated(response, `${username}`);
      assert.equal(response.headers['x-security-token'], undefined);
    }
  });

  it('an expired token answers 401', async () => {
    const token = await t.login('pusher', PUSHER.password);
    t.advance(14 * DAY - 1000);
    assert.equal((await withToken(PUSH_STATE, token)).statusCode, 200);
    t.advance(2000);
    assertUnauthenticated(await withToken(PUSH_STATE, token), 'expired');
  });

  it('the token lifetime is configurable', async () => {
    const short = await securityApp(['docs'], { tokenTtlMs: 60_000 });
    try {
      const token = await short.login('admin', 'test-admin-password');
      short.advance(61_000);
      assertUnauthenticated(
        await short.app.inject({ method: 'GET', url: ADMIN_LIST, headers: { 'x-security-token': token } }),
        'expired after 60 s',
      );
    } finally {
      await short.close();
    }
  });

  it('logout revokes the token it carries, and only that one', async () => {
    const first = await t.login('pusher', PUSHER.password);
    const second = await t.login('pusher', PUSHER.password);
    const logout = await t.app.inject({
      method: 'DELETE',
      url: '/admin-api/account/v1/session',
      headers: { 'x-security-token': first },
    });
    assert.equal(logout.statusCode, 200, logout.body);
    assertUnauthenticated(await withToken(PUSH_STATE, first), 'after logout');
    assert.equal((await withToken(PUSH_STATE, second)).statusCode, 200);
  });

  it('an administrator revokes every token of a user; Basic still works', async () => {
    const token = await t.login('pusher', PUSHER.password);
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: '/admin-api/v1/users/pusher/tokens',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(revoke.statusCode, 200, revoke.body);
    assert.equal(revoke.json<{ revoked: number }>().revoked, 1);
    assertUnauthenticated(await withToken(PUSH_STATE, token), 'revoked');
    const basic = await t.app.inject({
      method: 'GET',
      url: PUSH_STATE,
      headers: { authorization: basicAuth('pusher', PUSHER.password) },
    });
    assert.equal(basic.statusCode, 200);
  });

  it('a password change kills the old tokens and the old password, also for Basic clients already verified', async () => {
    const token = await t.login('pusher', PUSHER.password);
    const oldBasic = basicAuth('pusher', PUSHER.password);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: PUSH_STATE, headers: { authorization: oldBasic } }))
        .statusCode,
      200,
    );
    await t.putUser('pusher', { ...PUSHER, password: 'a-new-password' });
    assertUnauthenticated(await withToken(PUSH_STATE, token), 'token after password change');
    assertUnauthenticated(
      await t.app.inject({ method: 'GET', url: PUSH_STATE, headers: { authorization: oldBasic } }),
      'old Basic',
    );
    const fresh = await t.login('pusher', 'a-new-password');
    assert.equal((await withToken(PUSH_STATE, fresh)).statusCode, 200);
    // Changing permissions without a password keeps the tokens.
    await t.putUser('pusher', { permissions: ['sec.continuous.rest'], collections: ['*'] });
    assert.equal((await withToken(PUSH_STATE, fresh)).statusCode, 200);
  });

  it('a token that already worked follows every change of the store at once (revoke, permissions, deletion)', async () => {
    const revoked = await t.login('pusher', PUSHER.password);
    assert.equal((await withToken(PUSH_STATE, revoked)).statusCode, 200);
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: '/admin-api/v1/users/pusher/tokens',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(revoke.statusCode, 200, revoke.body);
    assertUnauthenticated(await withToken(PUSH_STATE, revoked), 'revoked after use');

    const token = await t.login('pusher', PUSHER.password);
    assert.equal((await withToken(PUSH_STATE, token)).statusCode, 200);
    // The same id with another secret is no token.
    const forged = token.slice(0, token.indexOf('.') + 1) + 'x'.repeat(token.length - token.indexOf('.') - 1);
    assertUnauthenticated(await withToken(PUSH_STATE, forged), 'forged secret');
    await t.putUser('pusher', { permissions: ['sec.continuous.rest'], collections: ['other'] });
    assert.equal((await withToken(PUSH_STATE, token)).statusCode, 403, 'access to docs taken away');
    await t.putUser('pusher', { permissions: ['sec.continuous.rest'], collections: ['docs'] });
    assert.equal((await withToken(PUSH_STATE, token)).statusCode, 200, 'access given back');
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/admin-api/v1/users/pusher',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(deleted.statusCode, 200);
    assertUnauthenticated(await withToken(PUSH_STATE, token), 'user deleted after use');
  });

  it('a deleted user can use neither its tokens nor its password', async () => {
    const token = await t.login('pusher', PUSHER.password);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/admin-api/v1/users/pusher',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(deleted.statusCode, 200);
    assertUnauthenticated(await withToken(PUSH_STATE, token), 'token of a deleted user');
    assertUnauthenticated(
      await t.app.inject({
        method: 'GET',
        url: PUSH_STATE,
        headers: { authorization: basicAuth('pusher', PUSHER.password) },
      }),
      'password of a deleted user',
    );
  });

  it('tokens survive a restart and are stored only as hashes', async () => {
    const token = await t.login('pusher', PUSHER.password);
    const file = readFileSync(join(t.home, 'conf', 'users.json'), 'utf8');
    assert.ok(!file.includes(token.split('.')[1]!), 'the token secret is not on disk');
    const { buildApp } = await import('../../src/http/build-app.js');
    await t.app.close();
    const again = await buildApp({ home: t.home, security: { scrypt: { N: 1024, r: 8, p: 1 } } });
    try {
      const response = await again.app.inject({
        method: 'GET',
        url: PUSH_STATE,
        headers: { 'x-security-token': token },
      });
      assert.equal(response.statusCode, 200, response.body);
    } finally {
      await again.app.close();
    }
  });
});
