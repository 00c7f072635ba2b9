/**
 * Commits that are not awaited, forced merges, automatic merges in worker threads and
 * close/reopen, interleaved at random on a real folder: after every awaited commit and every
 * reopen, the index holds exactly the committed documents, each once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SearchIndex } from '../../src/index/search-index.js';
import { generationOfFile } from '../../src/index/generation/generation-files.js';
import { manifestFiles, readManifest } from '../../src/index/manifest.js';
import { FsDirectory } from '../../src/index/store/fs-directory.js';
import { seededRandom } from '../support/seeded-random.js';

const LONG = process.env.PUSHSEARCH_LONG_TESTS === '1';
const SEEDS = LONG ? Array.from({ length: 40 }, (_, i) => i + 1) : [1, 2, 3, 4];
const STEPS = LONG ? 400 : 150;

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Live key → how many live documents carry it. */
function liveKeys(index: SearchIndex): Map<string, number> {
  const searcher = index.acquireSearcher();
  try {
    const counts = new Map<string, number>();
    for (const { key } of searcher.liveDocuments()) counts.set(key, (counts.get(key) ?? 0) + 1);
    return counts;
  } finally {
    searcher.release();
  }
}

function assertHolds(index: SearchIndex, expected: Map<string, string>, when: string): void {
  const counts = liveKeys(index);
  const duplicated = [...counts].filter(([, n]) => n > 1).map(([key]) => key);
  assert.deepEqual(duplicated, [], `${when}: keys with more than one live document`);
  assert.deepEqual([...counts.keys()].sort(), [...expected.keys()].sort(), `${when}: live keys`);
  const searcher = index.acquireSearcher();
  try {
    for (const [key, version] of expected)
      assert.equal(searcher.getDocument(key)?.record.body, version, `${when}: version of ${key}`);
  } finally {
    searcher.release();
  }
}

describe('commits, merges and reopening interleaved', () => {
  for (const seed of SEEDS) {
    it(`keeps exactly the committed documents (seed ${seed})`, async () => {
      const folder = mkdtempSync(join(tmpdir(), 'pushsearch-lifecycle-'));
      folders.push(folder);
      const random = seededRandom(seed);
      const open = () =>
        SearchIndex.open({
          directory: new FsDirectory(folder),
          // Worker threads for indexing and merges in odd seeds, inline work in even ones.
          indexThreads: seed % 2,
          mergeThreads: seed % 2 === 1 ? 2 : 0,
          mergePolicy: { mergeFactor: 2, maxMergeAtOnce: 4, floorDocs: 4 },
        });
      let index = await open();
      /** Committed state: key → body. */
      let committed = new Map<string, string>();
      /** What the next commit will make live (committed plus staged). */
      let staged = new Map<string, string | null>();
      let inFlight: { run: Promise<unknown>; changes: Map<string, string | null> }[] = [];
      const background: Promise<unknown>[] = [];
      let version = 0;
      const settleCommits = async () => {
        // Commits publish in the order they were asked for; each one's changes count once it resolved.
        for (const commit of inFlight) {
          await commit.run;
          for (const [key, body] of commit.changes) {
            if (body === null) committed.delete(key);
            else committed.set(key, body);
          }
        }
        inFlight = [];
      };
      for (let step = 0; step < STEPS; step++) {
        const r = random();
        const key = `k:${Math.floor(random() * 30)}`;
        if (r < 0.45) {
          const body = `v${++version}`;
          index.put({ key, fields: { body }, stored: { body } });
          staged.set(key, body);
        } else if (r < 0.55) {
          index.delete(key);
          staged.set(key, null);
        } else if (r < 0.7) {
          inFlight.push({ run: index.commit(), changes: staged });
          staged = new Map();
        } else if (r < 0.78) {
          background.push(index.forceMerge().catch(() => undefined));
        } else if (r < 0.9) {
          inFlight.push({ run: index.commit(), changes: staged });
          staged = new Map();
          await settleCommits();
          assertHolds(index, committed, `step ${step} after commit`);
        } else {
          await settleCommits();
          assertHolds(index, committed, `step ${step} before close`);
          await index.close();
          await Promise.all(background.splice(0));
          staged = new Map();
          index = await open();
          assertHolds(index, committed, `step ${step} after reopen`);
          const manifest = readManifest(new FsDirectory(folder));
          const needed = new Set(manifest === null ? [] : manifestFiles(manifest));
          const orphans = readdirSync(folder).filter(
            (name) => generationOfFile(name) !== undefined && !needed.has(name),
          );
          assert.deepEqual(orphans, [], `step ${step}: files no manifest names, after reopen`);
        }
      }
      await settleCommits();
      await index.close();
      await Promise.all(background);
      index = await open();
      assertHolds(index, committed, 'at the end');
      await index.close();
      committed = new Map();
    });
  }
});
