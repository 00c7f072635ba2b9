/**
 * API tokens (#20): an administrator creates a named token for a user (optional expiry, a
 * collection scope no wider than the user's), sees it once, lists and revokes it; it works as
 * X-Security-Token like a login token. And login-token hygiene: a cap per user.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { MAX_LOGIN_TOKENS_PER_USER } from '../../src/security/user-store.js';
import { adminRequest } from '../http/helpers.js';
import {
  assertForbidden,
  assertUnauthenticated,
  filesContaining,
  securityApp,
  type SecurityApp,
} from './helpers.js';

const HOUR = 60 * 60 * 1000;

describe('API tokens', () => {
  let t: SecurityApp;
  afterEach(async () => t?.close());

  const admin = (method: InjectOptions['method'], path: string, body?: object) =>
    adminRequest(t.app, method, path, body);
  const putAs = (token: string, collection: string) =>
    t.app.inject({
      method: 'PUT',
      url: `/push-api/v2/collections/${collection}/documents?key=local%3Ax`,
      headers: { 'x-security-token': token, 'content-type': 'text/plain' },
      payload: 'from a program',
    });

  it('created for a user with a narrower scope, shown once, works as X-Security-Token within its scope only, listed without the secret, revoked at once', async () => {
    t = await securityApp(['docs', 'other']);
    await t.putUser('pusher', {
      password: 'pusher-password',
      permissions: ['sec.continuous.rest'],
      collections: ['docs', 'other'],
    });
    const created = await admin('POST', '/users/pusher/api-tokens', { name: 'cms', collections: ['docs'] });
    assert.equal(created.statusCode, 200, created.body);
    const { token, apiToken } = created.json<{
      token: string;
      apiToken: { name: string; user: string; collections: string[]; expires: string | null };
    }>();
    assert.deepEqual(
      [apiToken.name, apiToken.user, apiToken.collections, apiToken.expires],
      ['cms', 'pusher', ['docs'], null],
    );
    assert.equal((await putAs(token, 'docs')).statusCode, 200);
    assertForbidden(await putAs(token, 'other'), 'outside the token scope, inside the user access');

    const list = await admin('GET', '/users/pusher/api-tokens');
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list.json<{ apiTokens: { name: string }[] }>().apiTokens.map((a) => a.name),
      ['cms'],
    );
    assert.ok(!list.body.includes(token.split('.')[1]!), 'the list never shows the secret');
    assert.deepEqual(filesContaining(t.home, token.split('.')[1]!), [], 'stored only as a hash');

    // A password change ends login sessions, not the program's token.
    const login = await t.login('pusher', 'pusher-password');
    await t.putUser('pusher', {
      password: 'new-pusher-password',
      permissions: ['sec.continuous.rest'],
      collections: ['docs', 'other'],
    });
    assertUnauthenticated(await putAs(login, 'docs'), 'login token after a password change');
    assert.equal((await putAs(token, 'docs')).statusCode, 200);

    // The user's access narrows: so does the token's.
    await t.putUser('pusher', { permissions: ['sec.continuous.rest'], collections: ['other'] });
    assertForbidden(await putAs(token, 'docs'), 'the user lost docs');
    await t.putUser('pusher', { permissions: ['sec.continuous.rest'], collections: ['docs', 'other'] });

    const revoked = await admin('DELETE', '/users/pusher/api-tokens/cms');
    assert.equal(revoked.statusCode, 200, revoked.body);
    assertUnauthenticated(await putAs(token, 'docs'), 'revoked');
    assert.equal(
      (await admin('DELETE', '/users/pusher/api-tokens/cms')).json<{ error: string }>().error,
      'API_TOKEN_NOT_FOUND',
    );
  });

  it('refuses a duplicate name, a scope wider than the user, a past expiry, a bad name, an unknown user; an expired token answers 401 and leaves the list', async () => {
    t = await securityApp(['docs', 'other']);
    await t.putUser('pusher', {
      password: 'pusher-password',
      permissions: ['sec.continuous.rest'],
      collections: ['docs'],
    });
    const expires = new Date(Date.now() + HOUR).toISOString();
    const created = await admin('POST', '/users/pusher/api-tokens', { name: 'hourly', expires });
    assert.equal(created.statusCode, 200, created.body);
    const { token, apiToken } = created.json<{
      token: string;
      apiToken: { collections: string[]; expires: string };
    }>();
    assert.deepEqual(apiToken.collections, ['docs'], "default scope: the user's collections");
    assert.equal(apiToken.expires, expires);

    const refusals: [string, object, number, string][] = [
      ['/users/pusher/api-tokens', { name: 'hourly' }, 409, 'API_TOKEN_EXISTS'],
      [
        '/users/pusher/api-tokens',
        { name: 'wide', collections: ['docs', 'other'] },
        400,
        'PARAMETER_INVALID',
      ],
      ['/users/pusher/api-tokens', { name: 'all', collections: ['*'] }, 400, 'PARAMETER_INVALID'],
      [
        '/users/pusher/api-tokens',
        { name: 'past', expires: '2001-01-01T00:00:00Z' },
        400,
        'PARAMETER_INVALID',
      ],
      ['/users/pusher/api-tokens', { name: 'bad name' }, 400, 'PARAMETER_INVALID'],
      [
        '/users/pusher/api-tokens',
        { name: 'typo', expire: '2100-01-01T00:00:00Z' },
        400,
        'PARAMETER_INVALID',
      ],
      ['/users/nobody/api-tokens', { name: 'x' }, 404, 'USER_NOT_FOUND'],
    ];
    for (const [url, body, status, code] of refusals) {
      const response = await admin('POST', url, body);
      assert.equal(response.statusCode, status, `${JSON.stringify(body)}: ${response.body}`);
      assert.equal(response.json<{ error: string }>().error, code, JSON.stringify(body));
    }
    assert.equal((await putAs(token, 'docs')).statusCode, 200);
    t.advance(2 * HOUR);
    assertUnauthenticated(await putAs(token, 'docs'), 'expired');
    assert.deepEqual(
      (await admin('GET', '/users/pusher/api-tokens')).json<{ apiTokens: unknown[] }>().apiTokens,
      [],
    );
  });

  it('revoking every token of a user (DELETE .../tokens) ends its API tokens too; deleting the user as well', async () => {
    t = await securityApp(['docs']);
    await t.putUser('pusher', {
      password: 'pusher-password',
      permissions: ['sec.continuous.rest'],
      collections: ['docs'],
    });
    const token = (await admin('POST', '/users/pusher/api-tokens', { name: 'a' })).json<{ token: string }>()
      .token;
    const revoked = await admin('DELETE', '/users/pusher/tokens');
    assert.equal(revoked.json<{ message: string; revoked: number }>().message, '1 token of pusher revoked');
    assertUnauthenticated(await putAs(token, 'docs'), 'after revoking every token');
    const second = (await admin('POST', '/users/pusher/api-tokens', { name: 'b' })).json<{ token: string }>()
      .token;
    assert.equal((await admin('DELETE', '/users/pusher')).statusCode, 200);
    assertUnauthenticated(await putAs(second, 'docs'), 'after deleting the user');
  });

  it(`a user keeps at most ${MAX_LOGIN_TOKENS_PER_USER} login tokens: logging in beyond ends the oldest; expired ones leave users.json`, async () => {
    t = await securityApp(['docs']);
    await t.putUser('pusher', {
      password: 'pusher-password',
      permissions: ['sec.continuous.rest'],
      collections: ['docs'],
    });
    const tokens: string[] = [];
    for (let i = 0; i <= MAX_LOGIN_TOKENS_PER_USER; i++) {
      tokens.push(await t.login('pusher', 'pusher-password'));
      t.advance(1);
    }
    const user = (await admin('GET', '/users/pusher')).json<{ user: { activeTokens: number } }>().user;
    assert.equal(user.activeTokens, MAX_LOGIN_TOKENS_PER_USER);
    assertUnauthenticated(await putAs(tokens[0]!, 'docs'), 'the oldest login');
    assert.equal((await putAs(tokens[1]!, 'docs')).statusCode, 200);
    assert.equal((await putAs(tokens.at(-1)!, 'docs')).statusCode, 200);

    t.advance(15 * 24 * HOUR);
    await t.putUser('someone', { password: 'someone-password', permissions: [], collections: [] });
    const stored = JSON.parse(readFileSync(join(t.home, 'conf', 'users.json'), 'utf8')) as {
      tokens: unknown[];
    };
    assert.equal(stored.tokens.length, 0, 'expired tokens are pruned when the file is written');
  });
});
