import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { SearchIndex } from '../../src/index/search-index.js';
import { FaultyFsDirectory } from '../support/faulty-fs-directory.js';
import { seededRandom } from '../support/seeded-random.js';
import {
  applied,
  check,
  deleteArbitrary,
  putArbitrary,
  queryArbitrary,
  type Stored,
} from './oracle-model.js';

/**
 * The oracle property test as production runs the engine: indexing and merges in worker
 * threads, on a real folder, with faults injected inside those threads (FaultyFsDirectory).
 * Random sequences of put, delete, commit, merge, reopen and a planned fault (a write or read
 * error, or a crash, at a worker's n-th operation). After each step the engine must answer
 * like the oracle over what was committed; a failed step must fail with an error that says
 * what failed and change nothing; after a crash the folder a restarted process finds (unsynced
 * bytes of every thread dropped or garbled) must hold every acknowledged commit. Every index
 * closed must leave no handle open, and no file may have been deleted while open.
 */

const LONG = process.env.PUSHSEARCH_LONG_TESTS === '1';
const root = mkdtempSync(join(tmpdir(), 'pushsearch-oracle-threads-'));
after(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const newFolder = () => join(root, `f${++folders}`);
/** Faults that fired and crashes recovered from, over all runs (printed: a run with none proves little). */
const tally = { fired: 0, recovered: 0 };
after(() =>
  console.log(`oracle-threads: ${tally.fired} injected faults fired, ${tally.recovered} crashes recovered`),
);

type Op =
  | { op: 'put'; key: string; words: string[]; title: string[] }
  | { op: 'delete'; key: string }
  | { op: 'commit' }
  | { op: 'merge' }
  | { op: 'reopen' }
  | { op: 'fault'; kind: 'write' | 'read'; at: number; mode: 'error' | 'crash'; seed: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: putArbitrary },
  { weight: 2, arbitrary: deleteArbitrary },
  { weight: 3, arbitrary: fc.constant({ op: 'commit' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'merge' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'reopen' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('fault' as const),
      kind: fc.constantFrom('write' as const, 'read' as const),
      at: fc.integer({ min: 1, max: 12 }),
      mode: fc.constantFrom('error' as const, 'crash' as const),
      seed: fc.integer({ min: 1, max: 1 << 30 }),
    }),
  },
);

const openIndex = (dir: FaultyFsDirectory) =>
  SearchIndex.open({
    directory: dir,
    indexThreads: 2,
    mergeThreads: 2,
    mergePolicy: { mergeFactor: 2, floorDocs: 1 },
  });

function assertInjected(error: unknown, step: string): void {
  assert.ok(error instanceof Error, `${step}: threw ${String(error)}`);
  assert.match(error.message, /injected (write|read) fault|injected crash/, `${step}: ${error.message}`);
}

/** The documents a folder's last published manifest holds, as `key → words|title`. */
function liveDocuments(index: SearchIndex): Map<string, string> {
  const searcher = index.acquireSearcher();
  try {
    const found = new Map<string, string>();
    for (const { key, record } of searcher.liveDocuments())
      found.set(key, `${record.w as string}|${record.t as string}`);
    return found;
  } finally {
    searcher.release();
  }
}

function asDocuments(model: Map<string, Stored>): Map<string, string> {
  return new Map([...model].map(([key, s]) => [key, `${s.words.join(' ')}|${s.title.join(' ')}`]));
}

const same = (a: Map<string, string>, b: Map<string, string>) =>
  a.size === b.size && [...a].every(([key, value]) => b.get(key) === value);

describe('index engine against a naive oracle, worker threads on, faults inside them', () => {
  it('random sequences with write and read faults and crashes in the workers search like the oracle', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArbitrary, { minLength: 1, maxLength: 30 }),
        fc.array(queryArbitrary, { minLength: 3, maxLength: 5 }),
        async (ops, queries) => {
          let dir = FaultyFsDirectory.create(newFolder());
          let index = await openIndex(dir);
          let committed = new Map<string, Stored>();
          let staged = new Map<string, Stored | null>();
          let crashSeed = 1;

          /** After a crash: the folder a restarted process finds, reopened with its threads. */
          const recover = async () => {
            tally.recovered++;
            await index.close().catch(() => undefined);
            dir.assertClean();
            const restarted = newFolder();
            dir.crashed(restarted, crashSeed % 2 === 0 ? undefined : seededRandom(crashSeed));
            tally.fired += dir.fired;
            dir = FaultyFsDirectory.create(restarted);
            index = await openIndex(dir);
            const found = liveDocuments(index);
            const inFlight = applied(committed, staged);
            if (same(found, asDocuments(inFlight))) committed = inFlight;
            else
              assert.ok(same(found, asDocuments(committed)), 'after a crash: the last acknowledged commit');
            staged = new Map();
            await check(index, committed, queries);
          };
          /** Runs a step that a planned fault may fail; a crash is recovered from. */
          const step = async (name: string, work: () => Promise<void>): Promise<boolean> => {
            try {
              await work();
              return true;
            } catch (error) {
              assertInjected(error, name);
              if (dir.isDead) await recover();
              return false;
            }
          };

          try {
            for (const op of ops) {
              if (dir.isDead) await recover(); // a background merge crashed
              switch (op.op) {
                case 'put':
                  index.put({
                    key: op.key,
                    fields: { body: op.words.join(' '), t: op.title.join(' ') },
                    stored: { w: op.words.join(' '), t: op.title.join(' ') },
                  });
                  staged.set(op.key, { words: op.words, title: op.title });
                  break;
                case 'delete':
                  index.delete(op.key);
                  staged.set(op.key, null);
                  break;
                case 'commit':
                  // A failed commit keeps its changes staged: the next commit publishes them.
                  if (await step('commit', () => index.commit().then(() => undefined))) {
                    committed = applied(committed, staged);
                    staged = new Map();
                  }
                  await index.waitForMerges();
                  if (!dir.isDead) await check(index, committed, queries);
                  break;
                case 'merge':
                  await step('merge', () => index.forceMerge());
                  if (!dir.isDead) await check(index, committed, queries);
                  break;
                case 'reopen':
                  await index.close();
                  dir.assertClean();
                  staged = new Map(); // uncommitted changes are the journal's business, not the engine's
                  index = await openIndex(dir);
                  await check(index, committed, queries);
                  break;
                case 'fault':
                  crashSeed = op.seed;
                  dir.inject({ kind: op.kind, threads: 'workers', at: op.at, mode: op.mode });
                  break;
              }
            }
            if (dir.isDead) await recover();
            dir.heal();
            await index.commit();
            committed = applied(committed, staged);
            staged = new Map();
            await index.forceMerge();
            await check(index, committed, queries);
          } finally {
            await index.close();
          }
          tally.fired += dir.fired;
          dir.assertClean();
        },
      ),
      { numRuns: LONG ? 150 : 12 },
    );
  });
});
