/**
 * A commit at the generation limit waits for running merges to bring the count down, but not
 * for ever: a merge that does not end (a disk that stops answering its fsync) must not keep
 * the commit, and the collection's stop and every request queued behind it, waiting. After
 * the wait the commit is refused with GENERATION_LIMIT (503, retry), its changes kept staged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchError } from '../../src/errors.js';
import { SearchIndex } from '../../src/index/search-index.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';

/** A directory whose fsync of one generation's files does not answer until released. */
class StuckSyncDirectory extends MemoryDirectory {
  stuckGeneration: number | undefined;
  private readonly held: (() => void)[] = [];

  override async sync(names: string[]): Promise<void> {
    const stuck = this.stuckGeneration;
    if (stuck !== undefined && names.some((name) => name.startsWith(`g${stuck}.`)))
      await new Promise<void>((resolve) => this.held.push(resolve));
    return super.sync(names);
  }

  release(): void {
    this.stuckGeneration = undefined;
    for (const resolve of this.held.splice(0)) resolve();
  }
}

describe('commit at the generation limit while a merge does not end', () => {
  it('is refused with GENERATION_LIMIT after the catch-up wait, not left waiting', async () => {
    const dir = new StuckSyncDirectory();
    let armed = false;
    const index = await SearchIndex.open({
      directory: dir,
      mergeThreads: 0,
      maxGenerations: 3,
      mergePolicy: { mergeFactor: 2, floorDocs: 1 },
      mergeCatchUpMs: 300,
      onEvent: (event) => {
        // The first merge writes its generation and then never gets its fsync answered.
        if (event.type === 'merge-start' && !armed) {
          armed = true;
          dir.stuckGeneration = event.into;
        }
      },
    });
    let refused: unknown;
    const started = performance.now();
    for (let i = 0; i < 10 && refused === undefined; i++) {
      index.put({ key: `k:${i}`, fields: { body: `document ${i}` }, stored: { body: `document ${i}` } });
      try {
        await index.commit();
      } catch (error) {
        refused = error;
      }
    }
    const waited = performance.now() - started;
    assert.ok(refused instanceof SearchError, 'a commit was refused');
    assert.equal(refused.code, 'GENERATION_LIMIT');
    assert.match(refused.message, /merges have not caught up yet, retry shortly/);
    assert.ok(waited < 10_000, `refused after ${waited} ms`);
    assert.equal(index.stagedChanges, 1, 'the refused change stays staged');

    dir.release();
    await index.commit();
    assert.equal(index.stagedChanges, 0, 'once the merge ends, the next commit goes through');
    await index.close();
  });
});
