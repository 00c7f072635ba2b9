/**
 * Issue #22 items 7 and 10 through the real server.
 * - A snapshot is checked file by file (`GET .../snapshot/{name}/verify`), each damaged file
 *   named; the snapshot answer says it is a backup only once copied away, because a live file
 *   damaged in place damages the snapshot that shares it (a hard link).
 * - Public answers (search errors, the search page, `/ready`) and the push API never show the
 *   absolute path of the home: paths relative to it instead.
 */
import assert from 'node:assert/strict';
import {
  openSync,
  readdirSync,
  readSync,
  rmSync,
  writeFileSync,
  writeSync,
  closeSync,
  fstatSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { testServer, type TestServer } from '../support/test-server.js';
import { ADMIN_AUTH } from './helpers.js';

/** Flips one byte in the middle of a file, in place (every hard link to it sees the change). */
function damageInPlace(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    const at = Math.floor(fstatSync(fd).size / 2);
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, at);
    byte[0] ^= 0xff;
    writeSync(fd, byte, 0, 1, at);
  } finally {
    closeSync(fd);
  }
}

describe('snapshot verify, and no home paths in answers', () => {
  let server: TestServer;
  const auth = { authorization: ADMIN_AUTH };
  const base = () => `${server.url}/push-api/v2/collections/docs`;

  before(async () => {
    server = await testServer({ collections: ['docs'] });
    for (let i = 0; i < 5; i++) {
      const put = await fetch(`${base()}/documents?key=${encodeURIComponent(`https://snap.example/${i}`)}`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'text/plain' },
        body: `page ${i} about lanterns`,
      });
      assert.equal(put.status, 200);
    }
    assert.equal((await fetch(`${base()}/commit`, { method: 'POST', headers: auth })).status, 200);
  });

  after(async () => {
    await server.dispose();
  });

  it('verifies a snapshot, names each file damaged in place through the live index, and restore refuses it without a home path', async () => {
    const created = await fetch(`${base()}/snapshot/nightly`, { method: 'PUT', headers: auth });
    const snapshot = (await created.json()) as { folder: string; note: string; manifest: number };
    assert.equal(created.status, 200, JSON.stringify(snapshot));
    assert.equal(snapshot.folder, 'data/docs/snapshot/nightly');
    assert.match(snapshot.note, /backup only once copied away/);
    assert.match(snapshot.note, /hard links/);

    const intact = await fetch(`${base()}/snapshot/nightly/verify`, { headers: auth });
    const intactBody = (await intact.json()) as {
      ok: boolean;
      damaged: unknown[];
      files: number;
      manifest: number;
    };
    assert.equal(intact.status, 200, JSON.stringify(intactBody));
    assert.deepEqual(
      { ok: intactBody.ok, damaged: intactBody.damaged, manifest: intactBody.manifest },
      { ok: true, damaged: [], manifest: snapshot.manifest },
    );
    assert.ok(intactBody.files >= 2);

    // Two live files damaged in place: the snapshot shares them.
    const live = join(server.home, 'data', 'docs', 'live');
    const victims = readdirSync(join(server.home, 'data', 'docs', 'snapshot', 'nightly'))
      .filter((name) => !name.startsWith('manifest'))
      .slice(0, 2);
    assert.equal(victims.length, 2);
    for (const victim of victims) damageInPlace(join(live, victim));

    const damaged = await fetch(`${base()}/snapshot/nightly/verify`, { headers: auth });
    const damagedBody = (await damaged.json()) as {
      ok: boolean;
      damaged: { file: string; problem: string }[];
    };
    assert.equal(damaged.status, 200);
    assert.equal(damagedBody.ok, false);
    assert.deepEqual(damagedBody.damaged.map((d) => d.file).sort(), [...victims].sort());
    for (const entry of damagedBody.damaged) assert.match(entry.problem, /checksum|corrupt/i);
    assert.ok(!JSON.stringify(damagedBody).includes(server.home), 'no home path in the report');

    assert.equal((await fetch(`${base()}/state/stop`, { method: 'POST', headers: auth })).status, 200);
    const restore = await fetch(`${base()}/restore/from-snapshot/nightly`, { method: 'POST', headers: auth });
    const refused = (await restore.json()) as { error: string; message: string };
    assert.equal(restore.status, 409, JSON.stringify(refused));
    assert.equal(refused.error, 'SNAPSHOT_CORRUPT');
    for (const victim of victims) assert.ok(refused.message.includes(victim), refused.message);
    assert.ok(!refused.message.includes(server.home), `no absolute path: ${refused.message}`);
    assert.match(refused.message, /data\/docs\/snapshot\/nightly/);

    const missing = await fetch(`${base()}/snapshot/nosuch/verify`, { headers: auth });
    assert.equal(missing.status, 404);
  });

  it('search errors, the search page and /ready name files relative to the home, never by absolute path', async () => {
    // A collection that cannot start: its journal folder replaced by a file.
    server.manager.create('paths', 'push');
    const other = `${server.url}/push-api/v2/collections/paths`;
    const put = await fetch(`${other}/documents?key=https%3A%2F%2Fpaths.example%2F`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'lanterns',
    });
    assert.equal(put.status, 200);
    assert.equal((await fetch(`${other}/state/stop`, { method: 'POST', headers: auth })).status, 200);
    const journal = join(server.home, 'data', 'paths', 'live', 'journal');
    rmSync(journal, { recursive: true, force: true });
    writeFileSync(journal, 'not a folder');

    const search = await fetch(`${server.url}/s/search.json?collection=paths&query=lanterns`);
    const searchBody = await search.text();
    assert.equal(search.status, 503, searchBody);
    assert.match(searchBody, /data\/paths\/live\/journal/);
    assert.ok(!searchBody.includes(server.home), searchBody);

    const page = await fetch(`${server.url}/s/search.html?collection=paths&query=lanterns`);
    const pageBody = await page.text();
    assert.equal(page.status, 503);
    assert.ok(!pageBody.includes(server.home), 'the error page shows no home path');

    const ready = await fetch(`${server.url}/ready`);
    const readyBody = await ready.text();
    assert.equal(ready.status, 503, readyBody);
    assert.match(readyBody, /data\/paths\/live\/journal/);
    assert.ok(!readyBody.includes(server.home), readyBody);

    const state = await fetch(`${other}/commit`, { method: 'POST', headers: auth });
    const stateBody = await state.text();
    assert.equal(state.status, 503, stateBody);
    assert.ok(!stateBody.includes(server.home), `the push API shows no home path: ${stateBody}`);
  });
});
