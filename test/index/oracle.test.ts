import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SearchIndex } from '../../src/index/search-index.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';
import { check, deleteArbitrary, putArbitrary, queryArbitrary, type Stored } from './oracle-model.js';

/**
 * The engine against a naive in-memory oracle: random sequences of put, delete, commit,
 * merge and reopen; after each step that changes what is searchable, random queries must
 * find exactly the documents the oracle finds, and, when no killed document distorts the
 * statistics (after a full merge), with the same BM25F scores.
 */
type Op =
  | { op: 'put'; key: string; words: string[]; title: string[] }
  | { op: 'delete'; key: string }
  | { op: 'commit' }
  | { op: 'merge' }
  | { op: 'reopen' };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: putArbitrary },
  { weight: 2, arbitrary: deleteArbitrary },
  { weight: 3, arbitrary: fc.constant({ op: 'commit' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'merge' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'reopen' as const }) },
);
describe('index engine against a naive oracle', () => {
  it('random put/delete/commit/merge/reopen sequences search like the oracle', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArbitrary, { minLength: 1, maxLength: 40 }),
        fc.array(queryArbitrary, { minLength: 3, maxLength: 6 }),
        async (ops, queries) => {
          const dir = new MemoryDirectory();
          const open = () =>
            SearchIndex.open({
              directory: dir,
              mergeThreads: 0,
              mergePolicy: { mergeFactor: 2, floorDocs: 1 },
            });
          let index = await open();
          const committed = new Map<string, Stored>();
          let staged = new Map<string, Stored | null>();
          try {
            for (const op of ops) {
              switch (op.op) {
                case 'put':
                  index.put({ key: op.key, fields: { body: op.words.join(' '), t: op.title.join(' ') } });
                  staged.set(op.key, { words: op.words, title: op.title });
                  break;
                case 'delete':
                  index.delete(op.key);
                  staged.set(op.key, null);
                  break;
                case 'commit':
                  await index.commit();
                  for (const [key, value] of staged) {
                    if (value === null) committed.delete(key);
                    else committed.set(key, value);
                  }
                  staged = new Map();
                  await index.waitForMerges();
                  await check(index, committed, queries);
                  break;
                case 'merge':
                  await index.forceMerge();
                  await check(index, committed, queries);
                  break;
                case 'reopen':
                  await index.close();
                  staged = new Map(); // uncommitted changes are the journal's business, not the engine's
                  index = await open();
                  await check(index, committed, queries);
                  break;
              }
            }
            await index.commit();
            for (const [key, value] of staged) {
              if (value === null) committed.delete(key);
              else committed.set(key, value);
            }
            await index.forceMerge();
            await check(index, committed, queries);
          } finally {
            await index.close();
          }
        },
      ),
      { numRuns: process.env.PUSHSEARCH_LONG_TESTS === '1' ? 1000 : 100 },
    );
  });
});
