import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/http/build-app.js';
import { hashPassword, parseHash, verifyPassword } from '../../src/security/password-hash.js';
import { UserStore } from '../../src/security/user-store.js';
import { basicAuth, tempHome } from '../http/helpers.js';
import { filesContaining, modeOf, securityApp } from './helpers.js';

describe('password hashes', () => {
  it('scrypt with a random salt and the parameters stored beside it; timing-safe verification', async () => {
    const a = await hashPassword('correct horse', { N: 1024, r: 8, p: 1 });
    const b = await hashPassword('correct horse', { N: 1024, r: 8, p: 1 });
    assert.notEqual(a, b, 'a fresh salt each time');
    assert.match(a, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]{43}$/);
    assert.equal(await verifyPassword('correct horse', a), true);
    assert.equal(await verifyPassword('correct horsf', a), false);
    assert.equal(await verifyPassword('correct horse', 'plain text'), false);
    const strong = await hashPassword('x'.repeat(12));
    assert.deepEqual(
      (({ N, r, p }) => ({ N, r, p }))(parseHash(strong)!),
      { N: 32768, r: 8, p: 1 },
      'the default cost',
    );
    assert.equal(await verifyPassword('x'.repeat(12), strong), true);
  });
});

describe('users on disk', () => {
  it('no password or token is stored anywhere in SEARCH_HOME; users.json holds scrypt hashes, mode 0600', async () => {
    const t = await securityApp(['docs']);
    try {
      await t.putUser('pusher', {
        password: 'pusher-secret-1',
        permissions: ['sec.continuous.rest'],
        collections: ['docs'],
      });
      await t.putUser('pusher', {
        password: 'pusher-secret-2',
        permissions: ['sec.continuous.rest'],
        collections: ['docs'],
      });
      const token = await t.login('pusher', 'pusher-secret-2');
      await t.login('admin', 'test-admin-password');
      const push = await t.app.inject({
        method: 'PUT',
        url: '/push-api/v1/collections/docs/documents?key=http%3A%2F%2Fx.example%2F',
        headers: { authorization: basicAuth('pusher', 'pusher-secret-2'), 'content-type': 'text/plain' },
        payload: 'hello',
      });
      assert.equal(push.statusCode, 200);
      const bad = await t.app.inject({
        method: 'GET',
        url: '/push-api/v1/collections/docs/state',
        headers: { authorization: basicAuth('pusher', 'a-guessed-secret') },
      });
      assert.equal(bad.statusCode, 401);
      for (const secret of [
        'pusher-secret-1',
        'pusher-secret-2',
        'test-admin-password',
        'a-guessed-secret',
        token,
        token.split('.')[1]!,
      ]) {
        assert.deepEqual(filesContaining(t.home, secret), [], `${secret} is nowhere on disk`);
      }
      const file = join(t.home, 'conf', 'users.json');
      assert.equal(modeOf(file), 0o600);
      const stored = JSON.parse(readFileSync(file, 'utf8')) as {
        users: { name: string; passwordHash: string }[];
      };
      for (const user of stored.users) assert.ok(parseHash(user.passwordHash) !== undefined, user.name);
      const listed = await t.app.inject({
        method: 'GET',
        url: '/admin-api/v1/users',
        headers: { authorization: basicAuth('admin', 'test-admin-password') },
      });
      assert.equal(listed.statusCode, 200);
      assert.ok(!listed.body.includes('scrypt'), 'the list shows no hashes');
      assert.deepEqual(
        listed
          .json<{ users: { name: string; activeTokens: number }[] }>()
          .users.map((u) => [u.name, u.activeTokens]),
        [
          ['admin', 1],
          ['pusher', 1],
        ],
      );
    } finally {
      await t.close();
    }
  });

  it('first start without SEARCH_ADMIN_PASSWORD: a random admin password in conf/initial-admin-password (0600), and the log says where', async () => {
    const { home, cleanup } = tempHome();
    const saved = process.env.SEARCH_ADMIN_PASSWORD;
    delete process.env.SEARCH_ADMIN_PASSWORD;
    try {
      const built = await buildApp({ home });
      const file = join(home, 'conf', 'initial-admin-password');
      try {
        assert.equal(modeOf(file), 0o600);
        const password = readFileSync(file, 'utf8').trim();
        assert.ok(password.length >= 20);
        const ok = await built.app.inject({
          method: 'GET',
          url: '/admin-api/v1/users',
          headers: { authorization: basicAuth('admin', password) },
        });
        assert.equal(ok.statusCode, 200, ok.body);
        assert.deepEqual(
          ok
            .json<{ users: { name: string; permissions: string[]; collections: string[] }[] }>()
            .users.map((u) => [u.name, u.permissions, u.collections]),
          [['admin', ['sec.administer', 'sec.continuous.rest'], ['*']]],
        );
        assert.equal(modeOf(join(home, 'conf', 'users.json')), 0o600);
        const log = readFileSync(join(home, 'web', 'log', 'security.log'), 'utf8');
        assert.ok(log.includes(file), log);
      } finally {
        await built.app.close();
      }
      // A second start creates nothing: the users exist.
      writeFileSync(file, 'stale\n');
      const again = await buildApp({ home });
      await again.app.close();
      assert.equal(readFileSync(file, 'utf8'), 'stale\n');
    } finally {
      if (saved !== undefined) process.env.SEARCH_ADMIN_PASSWORD = saved;
      cleanup();
    }
  });

  it('first start with SEARCH_ADMIN_PASSWORD: that password, no file', async () => {
    const { home, cleanup } = tempHome();
    const saved = process.env.SEARCH_ADMIN_PASSWORD;
    process.env.SEARCH_ADMIN_PASSWORD = 'from-the-environment';
    try {
      const built = await buildApp({ home, security: { scrypt: { N: 1024, r: 8, p: 1 } } });
      try {
        assert.equal(existsSync(join(home, 'conf', 'initial-admin-password')), false);
        const ok = await built.app.inject({
          method: 'GET',
          url: '/admin-api/v1/users',
          headers: { authorization: basicAuth('admin', 'from-the-environment') },
        });
        assert.equal(ok.statusCode, 200);
      } finally {
        await built.app.close();
      }
    } finally {
      if (saved === undefined) delete process.env.SEARCH_ADMIN_PASSWORD;
      else process.env.SEARCH_ADMIN_PASSWORD = saved;
      cleanup();
    }
  });

  it('a damaged users.json stops the start with USERS_FILE_CORRUPT naming the file', async () => {
    const { home, cleanup } = tempHome();
    try {
      const store = new UserStore(join(home, 'users.json'), { scrypt: { N: 1024, r: 8, p: 1 } });
      await store.put('admin', {
        password: 'admin-password',
        permissions: ['sec.administer'],
        collections: ['*'],
      });
      const text = readFileSync(join(home, 'users.json'), 'utf8');
      writeFileSync(join(home, 'users.json'), text.replace('"sec.administer"', '"sec.continuous.rest"'));
      assert.throws(
        () => new UserStore(join(home, 'users.json')),
        (error: { code: string; message: string }) => {
          assert.equal(error.code, 'USERS_FILE_CORRUPT');
          assert.match(error.message, /conf\/users\.json.*checksum/);
          return true;
        },
      );
    } finally {
      cleanup();
    }
  });

  it('the last administrator can be neither deleted nor demoted', async () => {
    const t = await securityApp(['docs']);
    try {
      const auth = { authorization: basicAuth('admin', 'test-admin-password') };
      const del = await t.app.inject({ method: 'DELETE', url: '/admin-api/v1/users/admin', headers: auth });
      assert.equal(del.statusCode, 409);
      assert.equal(del.json<{ error: string }>().error, 'LAST_ADMINISTRATOR');
      const demote = await t.app.inject({
        method: 'PUT',
        url: '/admin-api/v1/users/admin',
        headers: auth,
        payload: { permissions: ['sec.continuous.rest'], collections: ['*'] },
      });
      assert.equal(demote.statusCode, 409);
      await t.putUser('second', {
        password: 'second-admin',
        permissions: ['sec.administer'],
        collections: [],
      });
      const now = await t.app.inject({ method: 'DELETE', url: '/admin-api/v1/users/admin', headers: auth });
      assert.equal(now.statusCode, 200);
    } finally {
      await t.close();
    }
  });
});
