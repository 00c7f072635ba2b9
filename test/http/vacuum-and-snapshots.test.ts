/**
 * A RE_INDEX vacuum reports its progress in GET state while it runs, and a snapshot is made
 * of hard links to the live files (the spec: "Created with hard links, so creation is fast").
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { VacuumProgress } from '../../src/collection/push-collection.js';
import {
  VERSIONS,
  commit,
  contentOf,
  getDocument,
  putDocument,
  route,
  state,
  type TestApp,
  appPerTest,
} from './helpers.js';
import type { Snapshot } from '../../src/client/types.js';
import type { SnapshotList } from '../support/response-body.js';

/** PUTs `count` small documents, 64 requests at a time (the journal groups their fsyncs). */
async function putMany(t: TestApp, v: string, count: number): Promise<void> {
  for (let from = 0; from < count; from += 64) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(64, count - from) }, (_, j) =>
        putDocument(
          t.app,
          v,
          'c',
          `local:doc-${from + j}`,
          `document number ${from + j} about vacuum progress`,
        ),
      ),
    );
    for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
  }
}

/** The files of a folder (no sub-folders) by name. */
function filesOf(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => statSync(join(folder, name)).isFile())
    .sort();
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

describe('vacuum progress and snapshots', () => {
  const openApp = appPerTest();

  for (const v of VERSIONS) {
    it(`${v}: RE_INDEX with wait=false: GET state shows vacuum progress, done never goes back, and ends DONE with done == total`, async (context) => {
      const N = 1000;
      const t = await openApp(['c'], { collectionCfg: ['push.auto-commit.timeout-seconds=0'] });
      await putMany(t, v, N);
      assert.equal((await commit(t.app, v, 'c')).statusCode, 200);
      assert.equal((await state(t.app, v, 'c')).json().vacuum, undefined, 'no vacuum yet');

      const started = await t.app.inject({
        method: 'POST',
        url: route(v, 'c', '/vacuum?vacuum-type=RE_INDEX&wait=false'),
      });
      assert.equal(started.statusCode, 202, started.body);
      const first = started.json<VacuumProgress>();
      assert.equal(first.type, 'RE_INDEX');
      const seen: VacuumProgress[] = [first];
      // Polls until DONE (each poll lets the event loop turn once, so the vacuum advances).
      const deadline = Date.now() + 30_000;
      for (;;) {
        const view = (await state(t.app, v, 'c')).json<{ state: string; vacuum?: VacuumProgress }>();
        assert.equal(view.state, 'RUNNING');
        assert.ok(view.vacuum !== undefined, 'the state shows the vacuum from its start');
        seen.push(view.vacuum);
        if (view.vacuum.state !== 'RUNNING') break;
        assert.ok(Date.now() < deadline, 'RE_INDEX did not finish in 30 s');
        await new Promise((resolve) => setImmediate(resolve));
      }

      for (const [i, p] of seen.entries()) {
        assert.equal(p.type, 'RE_INDEX');
        assert.equal(p.startedAt, first.startedAt, 'one vacuum throughout');
        assert.ok(p.state === 'RUNNING' || p.state === 'DONE', `${i}: ${p.state} ${p.error ?? ''}`);
        assert.ok(p.done >= 0 && p.done <= p.total, `${i}: done ${p.done} of ${p.total}`);
        if (i > 0) {
          assert.ok(
            p.done >= seen[i - 1]!.done,
            `${i}: done went back from ${seen[i - 1]!.done} to ${p.done}`,
          );
          assert.ok(
            !(seen[i - 1]!.state === 'DONE' && p.state === 'RUNNING'),
            `${i}: DONE, then RUNNING again`,
          );
        }
        if (p.state === 'RUNNING' && i > 0) assert.equal(p.total, N, `${i}: total of a running RE_INDEX`);
      }
      const last = seen.at(-1)!;
      assert.equal(last.state, 'DONE');
      assert.equal(last.done, N);
      assert.equal(last.total, N);
      assert.equal(typeof last.finishedAt, 'string');
      assert.ok(last.finishedAt! >= last.startedAt);

      // Progress was visible while running: the 202 answer or a GET state showed RUNNING with some
      // but not all documents done. (The vacuum yields to other requests every few hundred
      // documents, so polls do see it; the 202 answer is counted too so a fast machine cannot fail this.)
      const midway = seen.filter((p) => p.state === 'RUNNING' && p.done > 0 && p.done < p.total);
      const midwayPolls = seen
        .slice(1)
        .filter((p) => p.state === 'RUNNING' && p.done > 0 && p.done < p.total);
      context.diagnostic(
        `${seen.length - 1} polls; RUNNING partly done in the 202 answer: ${midway.includes(first)}, in ${midwayPolls.length} polls; done values ${[...new Set(seen.map((p) => p.done))].join(',')}`,
      );
      assert.ok(midway.length > 0, 'progress short of total was never visible');

      // The re-indexed collection is whole.
      const after = (await state(t.app, v, 'c')).json();
      assert.equal(after.documents, N);
      assert.equal(after.vacuum?.state, 'DONE', 'the last vacuum stays in the state');
      assert.equal(
        contentOf(await getDocument(t.app, v, 'c', `local:doc-${N - 1}`)),
        `document number ${N - 1} about vacuum progress`,
      );
    });

    it(`${v}: a snapshot is hard links to the live files, and later commits and merges leave it unchanged`, async () => {
      const t = await openApp(['c'], { collectionCfg: ['push.auto-commit.timeout-seconds=0'] });
      for (let i = 0; i < 3; i++) {
        assert.equal(
          (await putDocument(t.app, v, 'c', `local:${i}`, `snapshot document ${i}`)).statusCode,
          200,
        );
        assert.equal((await commit(t.app, v, 'c')).statusCode, 200);
      }
      const created = await t.app.inject({ method: 'PUT', url: route(v, 'c', '/snapshot/s1') });
      assert.equal(created.statusCode, 200, created.body);
      assert.equal(created.json<Snapshot>().documents, 3);

      const live = join(t.home, 'data', 'c', 'live');
      const snapshot = join(t.home, 'data', 'c', 'snapshot', 's1');
      const files = filesOf(snapshot);
      assert.ok(files.length >= 4, `a manifest and the files of 3 generations: ${files.join(', ')}`);
      assert.ok(files.includes('manifest'), files.join(', '));
      const hashes = new Map<string, string>();
      let bytes = 0;
      for (const name of files) {
        const inSnapshot = statSync(join(snapshot, name));
        const inLive = statSync(join(live, name));
        assert.equal(inSnapshot.ino, inLive.ino, `${name}: the same inode in live/ and in the snapshot`);
        assert.equal(inSnapshot.dev, inLive.dev, name);
        assert.ok(inSnapshot.nlink >= 2, `${name}: nlink ${inSnapshot.nlink}`);
        hashes.set(name, sha256(join(snapshot, name)));
        bytes += inSnapshot.size;
      }
      const listed = (
        await t.app.inject({ method: 'GET', url: route(v, 'c', '/snapshot') })
      ).json<SnapshotList>().snapshots;
      assert.equal(listed.length, 1);
      assert.equal(listed[0]?.bytes, bytes, 'the listing counts the files of the snapshot');

      // Live moves on: a change, a commit, and a MERGE that deletes the old generations' files from live/.
      assert.equal(
        (await putDocument(t.app, v, 'c', 'local:0', 'replaced after the snapshot')).statusCode,
        200,
      );
      assert.equal((await commit(t.app, v, 'c')).statusCode, 200);
      const merge = await t.app.inject({ method: 'POST', url: route(v, 'c', '/vacuum?vacuum-type=MERGE') });
      assert.equal(merge.statusCode, 200, merge.body);
      assert.equal((await state(t.app, v, 'c')).json().generations, 1);

      assert.deepEqual(filesOf(snapshot), files, 'the snapshot keeps exactly its files');
      for (const name of files)
        assert.equal(sha256(join(snapshot, name)), hashes.get(name), `${name} changed in the snapshot`);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: route(v, 'c', '/snapshot') })).json<SnapshotList>()
          .snapshots[0]?.documents,
        3,
      );

      // And it still restores to what it held.
      assert.equal(
        (await t.app.inject({ method: 'POST', url: route(v, 'c', '/state/stop') })).statusCode,
        200,
      );
      const restored = await t.app.inject({
        method: 'POST',
        url: route(v, 'c', '/restore/from-snapshot/s1'),
      });
      assert.equal(restored.statusCode, 200, restored.body);
      assert.equal(contentOf(await getDocument(t.app, v, 'c', 'local:0')), 'snapshot document 0');
      for (const name of files)
        assert.equal(sha256(join(snapshot, name)), hashes.get(name), `${name} changed by the restore`);
    });
  }
});
