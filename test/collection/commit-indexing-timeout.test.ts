/**
 * A collection whose indexing thread stays alive without answering (blocked creating a file
 * on a disk that does not answer): the commit fails with COMMIT_FAILED within
 * `push.commit.indexing-timeout-ms` instead of holding the commit, the stop and every request
 * behind them; the thread is replaced, the staged changes are staged again from the journal,
 * and the next commit publishes every acknowledged change. A stop while such a commit waits
 * returns within the same bound, and a start afterwards finds every acknowledged change.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  closeRuntime,
  startRuntime,
  type CollectionRuntime,
} from '../../src/collection/collection-runtime.js';
import { ManifestMarker } from '../../src/collection/manifest-marker.js';
import { committedKeys, searchErrorOf } from '../support/commit-probes.js';
import { StuckFsDirectory } from '../support/stuck-fs-directory.js';
import { waitFor } from '../support/wait.js';
import { openRuntime, stagePut, type RuntimeFixture } from './runtime-fixture.js';

/** Short for the test, long enough for a thread to start and write a few documents on a loaded machine. */
const TIMEOUT_MS = 3_000;
/** The bound, with room for a loaded machine. */
const BOUND_MS = TIMEOUT_MS + 5_000;

/** Stops the runtime as PushCollection.stop does; resolves with how long it took. */
async function stop(fixture: RuntimeFixture): Promise<number> {
  const started = performance.now();
  fixture.retire();
  await closeRuntime(fixture.runtime);
  return performance.now() - started;
}

/** Starts the collection again over the same folders and journal (what the next request does). */
function startAgain(fixture: RuntimeFixture): Promise<CollectionRuntime> {
  const { home, manager, collection, store, log } = fixture;
  return startRuntime({
    collection,
    home,
    log,
    settings: manager.settings.reload(collection),
    marker: new ManifestMarker(home, collection, log),
    openJournal: store.open,
    guardWrite: () => {},
    onIndexEvent: () => {},
    applyChange: (runtime, change, origin) => fixture.stager.apply(runtime, change, origin),
    commit: async () => {},
  });
}

describe('a commit whose indexing thread does not answer', () => {
  let fixture: RuntimeFixture | undefined;
  let dir: StuckFsDirectory | undefined;
  afterEach(async () => {
    // The abandoned thread goes on (its answer ignored) and ends.
    dir?.release();
    await fixture?.close();
    fixture = undefined;
    dir = undefined;
  });

  async function open(): Promise<RuntimeFixture> {
    return openRuntime([`push.commit.indexing-timeout-ms=${TIMEOUT_MS}`, 'push.worker-thread-count=2'], {
      indexDirectory: (folder) => (dir = StuckFsDirectory.create(folder)),
    });
  }

  it('fails within the bound; the changes are staged again and the next commit publishes every acknowledged one', async () => {
    fixture = await open();
    const { runtime, commits, store, lines } = fixture;
    await stagePut(fixture, 'local:0', 'committed before');
    await commits.commit(runtime);
    const keys = Array.from({ length: 12 }, (_, i) => `local:${i + 1}`);
    for (const key of keys.slice(0, 10)) await stagePut(fixture, key, `text ${key}`);

    dir!.hang();
    const started = performance.now();
    const failed = await searchErrorOf(commits.commit(runtime, 'req-stuck'));
    const waited = performance.now() - started;
    assert.equal(failed.code, 'COMMIT_FAILED');
    assert.match(
      failed.message,
      /indexing thread did not answer .* within 3000 ms \(push\.commit\.indexing-timeout-ms\)/,
    );
    assert.match(failed.message, /kept in the journal/);
    assert.ok(waited < BOUND_MS, `failed after ${Math.round(waited)} ms`);
    assert.equal(runtime.index.lastCommit.journalSeq, 1, 'nothing of the failed commit was published');
    assert.equal(store.records.length, 10, 'the journal keeps every uncommitted change');

    // Changes acknowledged while the thread is replaced and the changes staged again.
    dir!.release();
    for (const key of keys.slice(10)) await stagePut(fixture, key, `text ${key}`);

    const answer = await commits.commit(runtime, 'req-next');
    assert.equal(answer.changes, 12);
    assert.deepEqual(committedKeys(runtime.index, ['local:0', ...keys]), ['local:0', ...keys]);
    assert.equal(runtime.index.lastCommit.journalSeq, 13);
    assert.equal(store.records.length, 0, 'released once committed');
    assert.ok(
      lines.some((line) => String(line.msg).includes('staged again from the journal') && line.changes === 10),
      JSON.stringify(lines),
    );
  });

  it('a stop while the commit waits returns within the bound; the next start finds every acknowledged change', async () => {
    fixture = await open();
    const { runtime, commits } = fixture;
    // A first commit starts the indexing threads.
    await stagePut(fixture, 'local:0', 'committed before');
    await commits.commit(runtime);
    const keys = ['local:1', 'local:2', 'local:3'];
    for (const key of keys) await stagePut(fixture, key, `text ${key}`);
    dir!.hang();
    const commit = searchErrorOf(commits.commit(runtime));
    await waitFor('the indexing thread to hang writing the commit', () => dir!.held > 0);
    const stopped = stop(fixture);
    assert.equal((await commit).code, 'COMMIT_FAILED');
    // The disk answers again: the abandoned thread ends after its write, which the stop waits
    // for (a thread still writing must not meet the index the next start opens on the folder).
    dir!.release();
    const took = await stopped;
    assert.ok(took < BOUND_MS, `the stop took ${Math.round(took)} ms`);

    const again = await startAgain(fixture);
    try {
      assert.equal(again.index.stagedChanges, keys.length, 'replayed from the journal');
      await again.index.commit({ journalSeq: again.appliedSeq });
      assert.deepEqual(committedKeys(again.index, ['local:0', ...keys]), ['local:0', ...keys]);
    } finally {
      await closeRuntime(again);
    }
  });
});
