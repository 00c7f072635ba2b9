/**
 * One server per $SEARCH_HOME: a second one, in another process or the same, is refused with
 * HOME_IN_USE and changes nothing; the lock goes with the server, also when it is killed.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, lstatSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { HomeLock } from '../../src/collection/home-lock.js';
import { buildApp } from '../../src/http/build-app.js';
import { ADMIN_PASSWORD, keyQuery, tempHome, TEST_SECURITY, testApp } from './helpers.js';
import { MAIN, requestAsAdmin, spawnServer } from '../support/server-process.js';

/** scripts/start.js of the repository (this file runs from dist/test/http/). */
const START_SCRIPT = fileURLToPath(new URL('../../../scripts/start.js', import.meta.url));

describe('one server per SEARCH_HOME', () => {
  it('a second app on the same home is refused (HOME_IN_USE) until the first is closed', async () => {
    const first = await testApp(['docs']);
    try {
      await assert.rejects(
        buildApp({ home: first.home, security: TEST_SECURITY }),
        (error: { code?: string; message?: string }) => {
          assert.equal(error.code, 'HOME_IN_USE');
          assert.match(error.message ?? '', /in use by another pushsearch server: stop that one first/);
          assert.ok(error.message?.includes(first.home), 'the message names the home');
          return true;
        },
      );
      // The refused one changed nothing: the first still serves.
      const put = await first.app.inject({
        method: 'PUT',
        url: `/push-api/v2/collections/docs/documents${keyQuery('local:a')}`,
        payload: 'still here',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(put.statusCode, 200);
      await first.app.close();
      const second = await buildApp({ home: first.home, security: TEST_SECURITY });
      const got = await second.app.inject({
        method: 'GET',
        url: `/push-api/v2/collections/docs/documents${keyQuery('local:a')}`,
        headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` },
      });
      assert.equal(got.statusCode, 200);
      await second.app.close();
    } finally {
      await first.close();
    }
  });

  it('a second CLI server exits 1 naming the home, offline collection changes are refused; after kill -9 of the first, the next one starts at once', async () => {
    const { home, cleanup } = tempHome();
    const agent = new http.Agent({ keepAlive: false });
    try {
      const first = await spawnServer(home);
      const second = spawnSync(process.execPath, [MAIN, 'serve', '--home', home, '--port', '0'], {
        env: { ...process.env, SEARCH_ADMIN_PASSWORD: ADMIN_PASSWORD },
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(second.status, 1);
      assert.match(second.stderr, /HOME_IN_USE/);
      assert.match(second.stderr, /in use by another pushsearch server/);
      assert.ok(second.stderr.includes(home), 'the message names the home');
      assert.equal(
        (await requestAsAdmin(first.port, agent, 'GET', '/health')).status,
        200,
        'the first one still serves',
      );

      // Offline collection changes need the server stopped: refused, nothing changed; listing is fine.
      const cli = (args: string[]) =>
        spawnSync(process.execPath, [MAIN, 'collection', ...args, '--home', home], {
          encoding: 'utf8',
          timeout: 30_000,
        });
      const create = cli(['create', 'offline']);
      assert.equal(create.status, 1);
      assert.match(
        create.stderr,
        /HOME_IN_USE: a server is running on .*: create the collection through it \(--url/,
      );
      assert.equal(existsSync(join(home, 'conf', 'offline')), false, 'nothing created');
      assert.equal(cli(['list']).status, 0);

      first.child.kill('SIGKILL');
      assert.equal(await first.exited, null);
      // The kernel dropped the lock with the process: no stale lock to clear by hand.
      const third = await spawnServer(home);
      assert.equal((await requestAsAdmin(third.port, agent, 'GET', '/health')).status, 200);
      third.child.kill('SIGTERM');
      assert.equal(await third.exited, 0);
      // With no server running, the offline change goes through (and gives the lock back).
      assert.equal(cli(['create', 'offline']).status, 0);
      assert.equal(existsSync(join(home, 'conf', 'offline', 'collection.cfg')), true);
      assert.equal(cli(['delete', 'offline']).status, 0);
    } finally {
      agent.destroy();
      cleanup();
    }
  });

  it('an older SQLite lock file is replaced by the socket, and the same home through a symbolic link is the same lock', async () => {
    const { home, cleanup } = tempHome();
    const link = `${home}-link`;
    try {
      const file = join(home, 'server.lock');
      writeFileSync(file, 'SQLite format 3\0');
      const first = await HomeLock.acquire(file, home);
      assert.ok(lstatSync(file).isSocket(), 'server.lock is a listening socket');
      symlinkSync(home, link);
      if (process.platform === 'linux')
        await assert.rejects(HomeLock.acquire(join(link, 'server.lock'), link), { code: 'HOME_IN_USE' });
      await first.release();
      await (await HomeLock.acquire(join(link, 'server.lock'), link)).release();
    } finally {
      rmSync(link, { force: true });
      cleanup();
    }
  });

  it("a socket file left by a process killed with SIGKILL is stale and replaced; one with a live listener (another namespace's server) keeps the home", async () => {
    const { home, cleanup } = tempHome();
    try {
      const file = join(home, 'server.lock');
      const child = spawn(
        process.execPath,
        ['-e', `require('net').createServer().listen(${JSON.stringify(file)}, () => console.log('up'))`],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      await once(child.stdout, 'data');
      child.kill('SIGKILL');
      await once(child, 'exit');
      assert.ok(lstatSync(file).isSocket(), 'the killed process left its socket file');
      const lock = await HomeLock.acquire(file, home);
      await lock.release();

      const live = net.createServer();
      await new Promise<void>((resolve) => live.listen(file, resolve));
      try {
        await assert.rejects(HomeLock.acquire(file, home), { code: 'HOME_IN_USE' });
      } finally {
        await new Promise<void>((resolve) => live.close(() => resolve()));
      }
    } finally {
      cleanup();
    }
  });

  it('npm start (scripts/start.js) reports HOME_IN_USE before building anything', async () => {
    const { home, cleanup } = tempHome();
    try {
      const first = await spawnServer(home);
      try {
        const start = spawnSync(process.execPath, [START_SCRIPT, '--home', home, '--port', '0'], {
          encoding: 'utf8',
          timeout: 30_000,
        });
        assert.equal(start.status, 1);
        assert.match(start.stderr, /HOME_IN_USE: .* is in use by another pushsearch server/);
        assert.ok(start.stderr.includes(home), 'the message names the home');
        assert.doesNotMatch(start.stderr, /building/, 'no build was started');
      } finally {
        first.child.kill('SIGTERM');
        assert.equal(await first.exited, 0);
      }
    } finally {
      cleanup();
    }
  });
});
