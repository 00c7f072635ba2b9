import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { SearchIndex } from '../../src/index/search-index.js';
import { executeQuery } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { naiveSearch } from '../query/naive-search.js';

/**
 * What the oracle property tests share (oracle.test.ts in memory, oracle-threads.test.ts with
 * worker threads under fault injection): the documents and queries they generate, and the
 * check of the engine's answers against the naive oracle.
 */

// Words the default (stemming) analyzer keeps as they are, so the oracle can use them raw.
export const WORDS = ['alpha', 'bravo', 'kilo', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
export const KEYS = Array.from({ length: 12 }, (_, i) => `http://oracle.test/${i}`);

/** A document as the oracle knows it. */
export interface Stored {
  words: string[];
  title: string[];
}

export const words = (max: number): fc.Arbitrary<string[]> =>
  fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: max });

export const putArbitrary = fc.record({
  op: fc.constant('put' as const),
  key: fc.constantFrom(...KEYS),
  words: words(12),
  title: words(3),
});
export const deleteArbitrary = fc.record({
  op: fc.constant('delete' as const),
  key: fc.constantFrom(...KEYS),
});

const term = fc.constantFrom(...WORDS);
export const queryArbitrary: fc.Arbitrary<Query> = fc.oneof(
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

/**
 * The engine's answers to `queries` against the oracle's over `model`: the same documents,
 * and, when no killed document distorts the statistics (after a full merge), the same BM25F
 * scores; the pruned top 3 agrees with the exhaustive ranking.
 */
export async function check(index: SearchIndex, model: Map<string, Stored>, queries: Query[]): Promise<void> {
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
      const top = executeQuery(searcher.generations, query, { k: 3 });
      const all = found.hits.map((h) => h.score);
      top.hits.forEach((hit, i) => assert.ok(Math.abs(hit.score - all[i]!) < 1e-9));
    }
  } finally {
    searcher.release();
  }
}

/** Applies staged changes (null: a delete) to a model. */
export function applied(model: Map<string, Stored>, staged: Map<string, Stored | null>): Map<string, Stored> {
  const next = new Map(model);
  for (const [key, value] of staged) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  return next;
}
