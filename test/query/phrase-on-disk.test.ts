import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SearchIndex } from '../../src/index/search-index.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';
import { executeQuery } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { seededRandom } from '../support/seeded-random.js';
import { naiveSearch } from './naive-search.js';

/**
 * Phrases on real generations (the on-disk postings read positions in place, and once the
 * top k is full the rarest term's documents are dismissed before the conjunction): the
 * same matches and scores as the naive oracle, and pruned runs return the exhaustive top k.
 *
 * A small vocabulary over long documents gives every term tens of positions per document
 * (a phrase check then reads a few of them), many candidates that are not matches, and
 * enough matches for pruning to start at low thresholds.
 */
const WORDS = ['alpha', 'bravo', 'kilo', 'delta', 'echo'];
const word = fc.constantFrom(...WORDS);
const doc = fc.record({
  body: fc.array(word, { minLength: 0, maxLength: 120 }),
  t: fc.array(word, { minLength: 0, maxLength: 4 }),
});
const phrase: fc.Arbitrary<Query> = fc.oneof(
  fc.array(word, { minLength: 2, maxLength: 4 }).map((terms): Query => ({ kind: 'phrase', terms })),
  // Gaps (a removed stop word) and repeated terms.
  fc.tuple(word, word).map(([a, b]): Query => ({ kind: 'phrase', terms: [a, b, a], positions: [0, 2, 3] })),
);

describe('phrases on disk', () => {
  it('match like the oracle; pruned top k equals the exhaustive one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(doc, { minLength: 1, maxLength: 150 }),
        fc.array(phrase, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 3 }),
        async (docs, queries, generations) => {
          const index = await SearchIndex.open({
            directory: new MemoryDirectory(),
            mergeThreads: 0,
            autoMerge: false,
          });
          try {
            // Keys in document order, one commit per slice: generations keep that order.
            const per = Math.ceil(docs.length / generations);
            for (let i = 0; i < docs.length; i++) {
              index.put({
                key: `http://phrase.test/${String(i).padStart(4, '0')}`,
                fields: { body: docs[i]!.body.join(' '), t: docs[i]!.t.join(' ') },
              });
              if ((i + 1) % per === 0) await index.commit();
            }
            await index.commit();
            const searcher = index.acquireSearcher();
            try {
              const oracle = [
                { docs: docs.map((d) => ({ fields: { body: d.body, t: d.t } })), killed: new Set<number>() },
              ];
              const keyOf = (g: number, d: number) => searcher.stored(g, d).$key as string;
              for (const query of queries) {
                const expected = naiveSearch(oracle, query);
                const exhaustive = executeQuery(searcher.generations, query, {
                  k: docs.length,
                  exhaustive: true,
                });
                assert.equal(exhaustive.totalHits, expected.length, JSON.stringify(query));
                const scoreOf = new Map(
                  expected.map((h) => [`http://phrase.test/${String(h.docId).padStart(4, '0')}`, h.score]),
                );
                for (const hit of exhaustive.hits) {
                  const want = scoreOf.get(keyOf(hit.generationIndex, hit.docId));
                  assert.ok(
                    want !== undefined && Math.abs(hit.score - want) < 1e-9,
                    `score for ${JSON.stringify(query)}`,
                  );
                }
                for (const k of [1, 5]) {
                  for (const totalHitsThreshold of [0, 3]) {
                    const pruned = executeQuery(searcher.generations, query, { k, totalHitsThreshold });
                    assert.deepEqual(
                      pruned.hits,
                      exhaustive.hits.slice(0, k),
                      `${JSON.stringify(query)} k ${k} threshold ${totalHitsThreshold}`,
                    );
                  }
                }
              }
            } finally {
              searcher.release();
            }
          } finally {
            await index.close();
          }
        },
      ),
      { numRuns: process.env.PUSHSEARCH_LONG_TESTS === '1' ? 300 : 40 },
    );
  });

  it("skips the rarest term's documents by frequency per block and still returns the exhaustive top k", async () => {
    // "york" is the rarest term. Most documents hold the phrase once; one per block of 128
    // holds it three times; every 50th holds it twice in 4 words (competitive on length),
    // every 37th twice in 44 words (not). Which of the twice-documents may enter depends on
    // each block's shortest document, the bound the scan uses.
    const index = await SearchIndex.open({
      directory: new MemoryDirectory(),
      mergeThreads: 0,
      autoMerge: false,
    });
    try {
      const filler = (n: number) => Array.from({ length: n }, () => 'w').join(' ');
      for (let i = 0; i < 3000; i++) {
        let body = `new york ${filler(6)}`;
        if (i % 128 === 64) body = `new york new york new york ${filler(2)}`;
        else if (i % 50 === 7) body = 'new york new york';
        else if (i % 37 === 5) body = `new york new york ${filler(40)}`;
        else if (i % 3 === 0) body = `new ${filler(7)}`;
        index.put({ key: `http://york.test/${i}`, fields: { body, t: i % 500 === 0 ? 'new york' : 'w' } });
        if (i === 1999) await index.commit();
      }
      await index.commit();
      const searcher = index.acquireSearcher();
      try {
        const query: Query = { kind: 'phrase', terms: ['new', 'york'] };
        const exhaustive = executeQuery(searcher.generations, query, { k: 3000, exhaustive: true });
        for (const k of [1, 10, 30, 60, 100]) {
          for (const totalHitsThreshold of [0, 10, 1000]) {
            const pruned = executeQuery(searcher.generations, query, { k, totalHitsThreshold });
            assert.deepEqual(
              pruned.hits,
              exhaustive.hits.slice(0, k),
              `k ${k} threshold ${totalHitsThreshold}`,
            );
          }
        }
      } finally {
        searcher.release();
      }
    } finally {
      await index.close();
    }
  });

  it('checks positions packed wide (documents of up to 90,000 words) like the oracle', async () => {
    // Positions are packed at the width of a block's largest one: long documents give runs of
    // 10 to 17 bits whose values straddle 32-bit words. "bravo" is in every document, tens to
    // thousands of times (the phrase check reads its positions as a stream, not one by one),
    // "alpha" in fewer (it leads); near misses ("alpha w bravo", "bravo alpha") surround the
    // real occurrences.
    const random = seededRandom(17);
    const bodies: string[][] = [];
    for (let i = 0; i < 160; i++) {
      const length = [12, 700, 5_000, 90_000][i % 4]!;
      const words: string[] = Array.from({ length }, () => (random() < 0.02 ? 'bravo' : 'w'));
      words[length - 1] = 'bravo';
      if (i % 5 !== 4) {
        const n = 1 + Math.floor(random() * 6);
        for (let j = 0; j < n; j++) {
          const at = Math.floor(random() * (length - 3));
          const shape = Math.floor(random() * 3);
          words[at] = shape === 1 ? 'bravo' : 'alpha';
          words[at + 1] = shape === 0 ? 'bravo' : shape === 1 ? 'alpha' : 'w';
          if (shape === 2) words[at + 2] = 'bravo';
        }
      }
      bodies.push(words);
    }
    const index = await SearchIndex.open({
      directory: new MemoryDirectory(),
      mergeThreads: 0,
      autoMerge: false,
    });
    try {
      // Two generations.
      for (let i = 0; i < bodies.length; i++) {
        index.put({
          key: `http://wide.test/${String(i).padStart(4, '0')}`,
          fields: { body: bodies[i]!.join(' ') },
        });
        if (i === 79) await index.commit();
      }
      await index.commit();
      const searcher = index.acquireSearcher();
      try {
        const oracle = [{ docs: bodies.map((body) => ({ fields: { body } })), killed: new Set<number>() }];
        const queries: Query[] = [
          { kind: 'phrase', terms: ['alpha', 'bravo'] },
          { kind: 'phrase', terms: ['bravo', 'alpha'] },
          { kind: 'phrase', terms: ['alpha', 'bravo'], positions: [0, 2] },
          { kind: 'phrase', terms: ['bravo', 'alpha', 'bravo'] },
        ];
        for (const query of queries) {
          const expected = naiveSearch(oracle, query);
          assert.ok(expected.length > 10, `${JSON.stringify(query)} matches ${expected.length}`);
          const got = executeQuery(searcher.generations, query, { k: bodies.length, exhaustive: true });
          assert.equal(got.totalHits, expected.length, JSON.stringify(query));
          const scoreOf = new Map(
            expected.map((h) => [`http://wide.test/${String(h.docId).padStart(4, '0')}`, h.score]),
          );
          for (const hit of got.hits) {
            const want = scoreOf.get(searcher.stored(hit.generationIndex, hit.docId).$key as string);
            assert.ok(want !== undefined && Math.abs(hit.score - want) < 1e-9, JSON.stringify(query));
          }
          const pruned = executeQuery(searcher.generations, query, { k: 5, totalHitsThreshold: 0 });
          assert.deepEqual(pruned.hits, got.hits.slice(0, 5), JSON.stringify(query));
        }
      } finally {
        searcher.release();
      }
    } finally {
      await index.close();
    }
  });

  it('checks positions packed at width 0 (a term only ever at the start of its documents)', async () => {
    // "alpha" is at position 0 only, so its positions take no bits at all.
    const index = await SearchIndex.open({
      directory: new MemoryDirectory(),
      mergeThreads: 0,
      autoMerge: false,
    });
    try {
      const bodies = Array.from({ length: 300 }, (_, i) =>
        i % 3 === 0 ? 'alpha kilo' : i % 3 === 1 ? 'alpha bravo kilo' : 'alpha',
      );
      bodies.forEach((body, i) => index.put({ key: `http://width.test/${i}`, fields: { body } }));
      await index.commit();
      const searcher = index.acquireSearcher();
      try {
        const count = (terms: string[]) =>
          executeQuery(searcher.generations, { kind: 'phrase', terms }, { k: 10, exhaustive: true })
            .totalHits;
        assert.equal(count(['alpha', 'kilo']), 100);
        assert.equal(count(['alpha', 'bravo']), 100);
        assert.equal(count(['bravo', 'kilo']), 100);
        assert.equal(count(['alpha', 'bravo', 'kilo']), 100);
        assert.equal(count(['kilo', 'alpha']), 0);
      } finally {
        searcher.release();
      }
    } finally {
      await index.close();
    }
  });
});
