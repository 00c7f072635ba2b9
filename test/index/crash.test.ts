import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manifestFiles, readManifest } from '../../src/index/manifest.js';
import { SearchIndex } from '../../src/index/search-index.js';
import type { Directory } from '../../src/index/store/directory.js';
import { FaultyDirectory } from '../support/faulty-directory.js';
import { seededRandom } from '../support/seeded-random.js';

type Model = Map<string, string>;

/** Every operation in the long run (`npm run test:long`), every third one in the normal suite. */
const STRIDE = process.env.PUSHSEARCH_LONG_TESTS === '1' ? 1 : 3;

/**
 * The workload: rounds of puts, replacements and deletes, each followed by a commit, with a
 * forced merge in the middle. Returns the model of the last commit that completed and, when
 * a commit was under way at the failure, the model it would have published.
 */
async function workload(
  dir: Directory,
  tolerateErrors: boolean,
  beforeClose?: (index: SearchIndex) => Promise<void>,
): Promise<{ committed: Model; inFlight: Model | null; working: Model }> {
  const index = await SearchIndex.open({
    directory: dir,
    mergeThreads: 0,
    mergePolicy: { mergeFactor: 3, floorDocs: 2 },
  });
  const working: Model = new Map();
  let committed: Model = new Map();
  let inFlight: Model | null = null;
  try {
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 4; i++) {
        const key = `http://site/${(round * 3 + i) % 10}`;
        const body = `round ${round} doc ${i} words`;
        index.put({ key, fields: { body }, stored: { body } });
        working.set(key, body);
      }
      const victim = `http://site/${(round * 7) % 10}`;
      index.delete(victim);
      working.delete(victim);
      inFlight = new Map(working);
      try {
        await index.commit();
        committed = inFlight;
        inFlight = null;
      } catch (error) {
        if (!tolerateErrors) throw error;
      }
      if (round === 3) {
        await index.forceMerge().catch((error: unknown) => {
          if (!tolerateErrors) throw error;
        });
      }
    }
    await index.waitForMerges();
    await beforeClose?.(index);
  } finally {
    await index.close().catch(() => undefined);
  }
  return { committed, inFlight, working };
}

async function contentOf(dir: Directory): Promise<Model> {
  const index = await SearchIndex.open({ directory: dir, mergeThreads: 0, autoMerge: false });
  const searcher = index.acquireSearcher();
  const model: Model = new Map();
  for (const { key, record } of searcher.liveDocuments()) model.set(key, record.body as string);
  searcher.release();
  await index.close();
  return model;
}

function sameModel(a: Model, b: Model): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}

function assertNoOrphans(dir: Directory): void {
  const manifest = readManifest(dir);
  const needed = new Set(manifest === null ? [] : manifestFiles(manifest));
  const orphans = dir.listAll().filter((name) => !needed.has(name));
  assert.deepEqual(orphans, [], 'every file left is referenced by the manifest');
}

describe('crash safety (simulated: unsynced writes dropped)', () => {
  it('opens at the last published manifest after a crash at every I/O operation', async () => {
    const reference = new FaultyDirectory();
    await workload(reference, false);
    const total = reference.operations;
    assert.ok(total > 50, `the workload does real I/O (${total} operations)`);
    for (let failAt = 1; failAt <= total; failAt += STRIDE) {
      const dir = new FaultyDirectory();
      dir.failAt(failAt, 'crash');
      const { committed, inFlight } = await workload(dir, true).catch(() => ({
        committed: null,
        inFlight: null,
      }));
      for (const random of [undefined, seededRandom(failAt)]) {
        const after = dir.crashed(random);
        const found = await contentOf(after);
        if (committed !== null) {
          const ok = sameModel(found, committed) || (inFlight !== null && sameModel(found, inFlight));
          assert.ok(
            ok,
            `crash at operation ${failAt}: found ${JSON.stringify([...found])}, committed ${JSON.stringify([...committed])}`,
          );
        }
        // The index opened, cleaned up after itself, and takes new commits.
        assertNoOrphans(after);
        const index = await SearchIndex.open({ directory: after, mergeThreads: 0 });
        index.put({ key: 'http://site/new', fields: { body: 'after crash' } });
        await index.commit();
        await index.close();
      }
    }
  });

  it('survives an I/O error at every operation and loses nothing once the disk heals', async () => {
    const reference = new FaultyDirectory();
    const expected = (await workload(reference, false)).working;
    const total = reference.operations;
    for (let failAt = 1; failAt <= total; failAt += STRIDE) {
      const dir = new FaultyDirectory();
      dir.failAt(failAt, 'error');
      const found: Model = new Map();
      // The disk is healthy again after the one error: a last commit must publish everything.
      const { working } = await workload(dir, true, async (index) => {
        await index.commit();
        await index.waitForMerges();
        const searcher = index.acquireSearcher();
        for (const { key, record } of searcher.liveDocuments()) found.set(key, record.body as string);
        searcher.release();
      });
      assert.ok(sameModel(found, working), `I/O error at operation ${failAt}: ${JSON.stringify([...found])}`);
      assert.ok(sameModel(working, expected));
      assert.ok(sameModel(await contentOf(dir.inner.crash()), working), `durable after error at ${failAt}`);
    }
  });
});
