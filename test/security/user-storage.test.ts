import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildApp, type BuiltApp } from '../../src/http/build-app.js';
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
      // A second start creates nothing: the users exist, and the file still opens admin.
      const again = await buildApp({ home });
      await again.app.close();
      assert.equal(existsSync(file), true);
      // A file that no longer holds admin's password says nothing true: removed at start.
      writeFileSync(file, 'stale-password\n');
      const third = await buildApp({ home });
      await third.app.close();
      assert.equal(existsSync(file), false);
    } finally {
      if (saved !== undefined) process.env.SEARCH_ADMIN_PASSWORD = saved;
      cleanup();
    }
  });

  it('SEARCH_ADMIN_PASSWORD after a first start without it replaces the generated password (file removed); later a different one is ignored, said loudly; a password change through the API removes the file', async () => {
    const { home, cleanup } = tempHome();
    const saved = process.env.SEARCH_ADMIN_PASSWORD;
    delete process.env.SEARCH_ADMIN_PASSWORD;
    const scrypt = { N: 1024, r: 8, p: 1 };
    const usersAs = async (built: { app: BuiltApp['app'] }, password: string): Promise<number> =>
      (
        await built.app.inject({
          method: 'GET',
          url: '/admin-api/v1/users',
          headers: { authorization: basicAuth('admin', password) },
        })
      ).statusCode;
    try {
      const file = join(home, 'conf', 'initial-admin-password');
      const first = await buildApp({ home, security: { scrypt } });
      await first.app.close();
      const generated = readFileSync(file, 'utf8').trim();

      // The README's order: `npm start`, then `SEARCH_ADMIN_PASSWORD=change-me npm start`.
      const second = await buildApp({ home, security: { scrypt, adminPassword: 'change-me' } });
      try {
        assert.equal(await usersAs(second, 'change-me'), 200);
        assert.equal(await usersAs(second, generated), 401);
        assert.equal(existsSync(file), false, 'the generated password no longer opens anything');
      } finally {
        await second.app.close();
      }
      const log = join(home, 'web', 'log', 'security.log');
      assert.match(readFileSync(log, 'utf8'), /the password of user admin is now SEARCH_ADMIN_PASSWORD/);

      // Now the password is someone's choice: another value is ignored, and the log says so.
      const third = await buildApp({ home, security: { scrypt, adminPassword: 'something-else' } });
      try {
        assert.equal(await usersAs(third, 'change-me'), 200);
        assert.equal(await usersAs(third, 'something-else'), 401);
      } finally {
        await third.app.close();
      }
      assert.match(
        readFileSync(log, 'utf8'),
        /"level":"warn".*SEARCH_ADMIN_PASSWORD is IGNORED: it does not match admin's password/,
      );

      // Changing admin's password while the generated one is still on disk removes the file.
      const { home: home2, cleanup: cleanup2 } = tempHome();
      try {
        const built = await buildApp({ home: home2, security: { scrypt } });
        try {
          const file2 = join(home2, 'conf', 'initial-admin-password');
          const put = await built.app.inject({
            method: 'PUT',
            url: '/admin-api/v1/users/admin',
            headers: { authorization: basicAuth('admin', readFileSync(file2, 'utf8').trim()) },
            payload: { password: 'chosen-by-admin', permissions: ['sec.administer'], collections: ['*'] },
          });
          assert.equal(put.statusCode, 200, put.body);
          assert.equal(existsSync(file2), false);
        } finally {
          await built.app.close();
        }
      } finally {
        cleanup2();
      }
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

  it("no token starts with '-', which a command line would read as an option (--token VALUE)", async () => {
    const { home, cleanup } = tempHome();
    try {
      const store = new UserStore(join(home, 'users.json'), { scrypt: { N: 1024, r: 8, p: 1 } });
      await store.put('pusher', {
        password: 'pusher-password',
        permissions: ['sec.continuous.rest'],
        collections: ['docs'],
      });
      // base64url starts with '-' once in 64 draws: 500 tokens all without it would come by
      // chance once in about 3,000 runs.
      for (let i = 0; i < 500; i++) {
        const { token } = store.issueToken('pusher', 60_000);
        assert.ok(!token.startsWith('-'), token);
        assert.ok(store.findToken(token) !== undefined, token);
      }
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
