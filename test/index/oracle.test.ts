import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SearchIndex } from '../../src/index/search-index.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';
import { executeQuery } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { naiveSearch } from '../query/naive-search.js';

/**
 * The engine against a naive in-memory oracle: random sequences of put, delete, commit,
 * merge and reopen; after each step that changes what is searchable, random queries must
 * find exactly the documents the oracle finds, and, when no killed document distorts the
 * statistics (after a full merge), with the same BM25F scores.
 */
// Words the default (stemming) analyzer keeps as they are, so the oracle can use them raw.
const WORDS = ['alpha', 'bravo', 'kilo', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
const KEYS = Array.from({ length: 12 }, (_, i) => `http://oracle.test/${i}`);

type Op =
  | { op: 'put'; key: string; words: string[]; title: string[] }
  | { op: 'delete'; key: string }
  | { op: 'commit' }
  | { op: 'merge' }
  | { op: 'reopen' };

const words = (max: number) => fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: max });
const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('put' as const),
      key: fc.constantFrom(...KEYS),
      words: words(12),
      title: words(3),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), key: fc.constantFrom(...KEYS) }) },
  { weight: 3, arbitrary: fc.constant({ op: 'commit' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'merge' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'reopen' as const }) },
);
const term = fc.constantFrom(...WORDS);
const queryArbitrary: fc.Arbitrary<Query> = fc.oneof(
  term.map((t): Query => ({ kind: 'term', term: t })),
  fc.tuple(term, term).map(([a, b]): Query => ({
    kind: 'bool',
    must: [
      { kind: 'term', term: a },
      { kind: 'term', term: b },
    ],
  })),
  fc.tuple(term, term, term).map(([a, b, c]): Query => ({
    kind: 'bool',
    should: [
      { kind: 'term', term: a },
      { kind: 'term', term: b },
    ],
    mustNot: [{ kind: 'term', term: c }],
  })),
  fc.tuple(term, term).map(([a, b]): Query => ({ kind: 'phrase', terms: [a, b] })),
  term.map((t): Query => ({ kind: 'prefix', prefix: t.slice(0, 2) })),
  term.map((t): Query => ({ kind: 'term', field: 't', term: t })),
);

interface Stored {
  words: string[];
  title: string[];
}

async function check(index: SearchIndex, model: Map<string, Stored>, queries: Query[]): Promise<void> {
  const searcher = index.acquireSearcher();
  try {
    const keys = [...model.keys()];
    const oracle = [
      {
        docs: keys.map((k) => ({ fields: { body: model.get(k)!.words, t: model.get(k)!.title } })),
        killed: new Set<number>(),
      },
    ];
    const exactStats = index.stats().CurKilled === 0;
    for (const query of queries) {
      const expected = naiveSearch(oracle, query);
      const found = executeQuery(searcher.generations, query, { k: 1000, totalHitsThreshold: Infinity });
      const foundKeys = found.hits.map((h) => searcher.stored(h.generationIndex, h.docId).$key as string);
      assert.deepEqual(
        new Set(foundKeys),
        new Set(expected.map((h) => keys[h.docId]!)),
        JSON.stringify(query),
      );
      assert.equal(found.totalHits, expected.length);
      if (exactStats) {
        const scoreOf = new Map(expected.map((h) => [keys[h.docId]!, h.score]));
        found.hits.forEach((hit, i) => {
          assert.ok(
            Math.abs(hit.score - scoreOf.get(foundKeys[i]!)!) < 1e-9,
            `score of ${foundKeys[i]} for ${JSON.stringify(query)}`,
          );
        });
      }
      // Pruned top-3 agrees with the exhaustive ranking.
      const top = executeQuery(searcher.generations, query, { k: 3 });
      const all = found.hits.map((h) => h.score);
      top.hits.forEach((hit, i) => assert.ok(Math.abs(hit.score - all[i]!) < 1e-9));
    }
  } finally {
    searcher.release();
  }
}

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
