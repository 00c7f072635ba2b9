/**
 * A commit waits for its indexing threads to write the staged changes, but not for ever: a
 * thread that stays alive without answering (here: blocked creating a file on a disk that does
 * not answer) fails the commit with COMMIT_FAILED after `indexingTimeoutMs`, and is replaced.
 * What it held is gone, which the index says (`stagedChangesLost`) so that its owner stages
 * the changes again; until it has, no commit may publish (its journal position would claim
 * changes the index no longer holds).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { SearchIndex } from '../../src/index/search-index.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';
import { committedKeys, searchErrorOf } from '../support/commit-probes.js';
import { StuckFsDirectory } from '../support/stuck-fs-directory.js';
import { waitFor } from '../support/wait.js';

/** Short for the test, long enough for a thread to start and write a few documents on a loaded machine. */
const TIMEOUT_MS = 3_000;

function doc(key: string, text: string) {
  return { key, fields: { body: text }, stored: { body: text } };
}

describe('a commit whose indexing thread does not answer', () => {
  let folder: string | undefined;
  let dir: StuckFsDirectory | undefined;
  let opened: SearchIndex | undefined;
  afterEach(async () => {
    // Lets the abandoned thread go on (its late answer is ignored) and end.
    dir?.release();
    dir = undefined;
    await opened?.close();
    opened = undefined;
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    folder = undefined;
  });

  async function open(indexThreads = 2): Promise<SearchIndex> {
    folder = mkdtempSync(join(tmpdir(), 'pushsearch-indexing-timeout-'));
    dir = StuckFsDirectory.create(folder);
    opened = await SearchIndex.open({
      directory: dir,
      indexThreads,
      mergeThreads: 0,
      indexingTimeoutMs: TIMEOUT_MS,
    });
    return opened;
  }

  it('fails with COMMIT_FAILED within the bound; after the owner stages again, the next commit publishes', async () => {
    const index = await open();
    index.put(doc('k:0', 'before'));
    await index.commit();
    const keys = Array.from({ length: 20 }, (_, i) => `k:${i + 1}`);
    for (const key of keys) index.put(doc(key, `text of ${key}`));
    dir!.hang();
    const started = performance.now();
    const error = await searchErrorOf(index.commit({ journalSeq: 20 }));
    const waited = performance.now() - started;
    assert.equal(error.code, 'COMMIT_FAILED');
    assert.match(error.message, /did not answer .* within 3000 ms/);
    assert.match(error.message, /kept in the journal .* next commit retries them/);
    assert.ok(waited < TIMEOUT_MS + 5_000, `failed after ${Math.round(waited)} ms`);
    assert.equal(index.stagedChangesLost, true);
    assert.equal(index.lastCommit.journalSeq, 0, 'nothing was published');

    // Until the owner stages again, commits are refused, even with nothing new staged.
    assert.equal((await searchErrorOf(index.commit({ journalSeq: 20 }))).code, 'COMMIT_FAILED');
    assert.equal(index.lastCommit.journalSeq, 0);

    // The disk answers again for new threads; the owner drops what is left and stages everything again.
    dir!.release();
    await index.discardStaged();
    assert.equal(index.stagedChangesLost, false);
    assert.equal(index.stagedChanges, 0);
    for (const key of keys) index.put(doc(key, `text of ${key}`));
    const result = await index.commit({ journalSeq: 20 });
    assert.equal(result.changes, keys.length);
    assert.equal(index.lastCommit.journalSeq, 20);
    assert.deepEqual(committedKeys(index, ['k:0', ...keys]), ['k:0', ...keys]);
    await index.close();
  });

  it('a commit cut before the changes were discarded does not publish', async () => {
    const index = await open(1);
    index.put(doc('k:1', 'one'));
    dir!.hang();
    const stuck = index.commit({ journalSeq: 1 });
    // Queued behind the stuck one, its cut taken from the same (soon abandoned) stager.
    index.put(doc('k:2', 'two'));
    const queued = index.commit({ journalSeq: 2 });
    assert.equal((await searchErrorOf(stuck)).code, 'COMMIT_FAILED');
    dir!.release();
    const discarded = index.discardStaged();
    assert.equal((await searchErrorOf(queued)).code, 'COMMIT_FAILED');
    await discarded;
    assert.equal(index.lastCommit.journalSeq, 0, 'no commit claimed the dropped changes');
    await index.close();
  });

  it('a commit whose cut was discarded before it reached the updater does not claim its journal position', async () => {
    const index = (opened = await SearchIndex.open({ directory: new MemoryDirectory() }));
    index.put(doc('k:1', 'one'));
    const cutThenDiscarded = index.commit({ journalSeq: 1 });
    const discarded = index.discardStaged();
    const error = await searchErrorOf(cutThenDiscarded);
    assert.equal(error.code, 'COMMIT_FAILED');
    assert.match(error.message, /staged changes were dropped meanwhile/);
    await discarded;
    assert.equal(index.lastCommit.journalSeq, 0, 'no manifest claims the dropped change');
    await index.close();
  });

  it('close while a commit waits for a silent thread returns within the bound', async () => {
    const index = await open();
    index.put(doc('k:1', 'one'));
    dir!.hang();
    const commit = searchErrorOf(index.commit({ journalSeq: 1 }));
    await waitFor('the indexing thread to hang writing the commit', () => dir!.held > 0);
    const started = performance.now();
    const closed = index.close();
    assert.equal((await commit).code, 'COMMIT_FAILED');
    // The disk answers again: the abandoned thread finishes its write (unpublished, removed at
    // the next open) and ends; close waits for that, so it never writes into a reopened index.
    dir!.release();
    await closed;
    const waited = performance.now() - started;
    assert.ok(waited < TIMEOUT_MS + 5_000, `close took ${Math.round(waited)} ms`);
  });
});
