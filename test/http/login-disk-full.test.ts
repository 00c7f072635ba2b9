/**
 * Issue #22 item 12 through the real server: a login while the disk is full (SEARCH_HOME on a
 * small tmpfs that the test fills up, as test/ops/disk-full.test.ts does) answers 507
 * INSUFFICIENT_STORAGE like the push API, not 500; nothing of the refused login stays (no
 * token that works, no temporary file), and logins work again once there is space.
 *
 * Mounting needs root (CI runs as root); without it the test is skipped with the reason.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';
import { ADMIN_PASSWORD, TEST_SECURITY } from './helpers.js';

const mounted = mountSmallDisk('8m');

describe('login while the disk is full', { skip: typeof mounted === 'string' ? mounted : false }, () => {
  const disk = mounted as SmallDisk;
  const home = join(disk.folder, 'home');
  let server: RunningServer;

  const login = () =>
    fetch(`${server.url}/admin-api/account/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password: ADMIN_PASSWORD }).toString(),
    });

  before(async () => {
    server = await startServer({ home, port: 0, security: TEST_SECURITY });
  });

  after(async () => {
    await server?.close();
    disk.unmount();
  });

  it('answers 507 INSUFFICIENT_STORAGE, keeps no token, and logs in again once space is back', async () => {
    assert.equal((await login()).status, 200, 'a login works while there is space');
    const confBefore = readdirSync(join(home, 'conf')).sort();

    disk.fill();
    const refused = await login();
    const body = (await refused.json()) as { status: number; error: string; message: string };
    assert.equal(refused.status, 507, JSON.stringify(body));
    assert.equal(body.error, 'INSUFFICIENT_STORAGE');
    assert.match(body.message, /disk is full/);
    assert.equal(refused.headers.get('x-security-token'), null, 'no token was handed out');
    assert.deepEqual(readdirSync(join(home, 'conf')).sort(), confBefore, 'no temporary file is left behind');
    assert.equal((await fetch(`${server.url}/health`)).status, 200, 'the server keeps answering');

    disk.free();
    const again = await login();
    assert.equal(again.status, 200, 'logins work again without a restart');
    const token = again.headers.get('x-security-token')!;
    const session = await fetch(`${server.url}/admin-api/account/v1/session`, {
      headers: { 'x-security-token': token },
    });
    assert.equal(session.status, 200);
  });
});
