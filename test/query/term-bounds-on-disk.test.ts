import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchIndex } from '../../src/index/search-index.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';
import { executeQuery } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { seededRandom } from '../support/seeded-random.js';

/**
 * A plain term on real generations: the runner counts a document unscored when the bound of
 * its fields' current blocks, or its sum before saturation, cannot beat the heap's worst
 * (see Bm25fScorer.boundSumHere and Saturation.sumLimit). Every pruned run must return the
 * exhaustive top k, with exact counts while they are exact, across blocks of different
 * densities, several generations, killed documents and two fields.
 */
describe('plain terms on disk', () => {
  it('count unscored what cannot enter and return the exhaustive top k', async () => {
    const random = seededRandom(29);
    const index = await SearchIndex.open({
      directory: new MemoryDirectory(),
      mergeThreads: 0,
      autoMerge: false,
    });
    try {
      const n = 4000;
      for (let i = 0; i < n; i++) {
        // Blocks of 128 documents differ: some hold only long documents with one occurrence
        // (their bound cannot compete once the heap is full), others short dense ones.
        const dense = Math.floor(i / 128) % 3 === 0;
        const length = dense ? 3 + Math.floor(random() * 20) : 150 + Math.floor(random() * 300);
        const tf = dense ? 1 + Math.floor(random() * 4) : 1;
        const words = Array.from({ length }, () => 'w');
        for (let j = 0; j < tf; j++) words[Math.floor(random() * length)] = 'term';
        if (i % 7 === 3) words[0] = 'other';
        const t = i % 97 === 0 ? 'term title' : 'title';
        index.put({ key: `http://bound.test/${i}`, fields: { body: words.join(' '), t } });
        if (i === 2499) await index.commit();
      }
      await index.commit();
      // Killed documents, some in each generation (replaced ones are killed too).
      for (let i = 0; i < n; i += 13) index.delete(`http://bound.test/${i}`);
      for (let i = 5; i < n; i += 101) {
        index.put({ key: `http://bound.test/${i}`, fields: { body: 'term term short', t: 'title' } });
      }
      await index.commit();
      const searcher = index.acquireSearcher();
      try {
        assert.ok(searcher.generations.length >= 2);
        const queries: Query[] = [
          { kind: 'term', term: 'term' },
          { kind: 'term', term: 'term', field: 'body' },
        ];
        for (const query of queries) {
          const exhaustive = executeQuery(searcher.generations, query, { k: n, exhaustive: true });
          for (const k of [1, 10, 60]) {
            for (const totalHitsThreshold of [0, 500, Infinity]) {
              const pruned = executeQuery(searcher.generations, query, { k, totalHitsThreshold });
              const label = `${JSON.stringify(query)} k ${k} threshold ${totalHitsThreshold}`;
              assert.deepEqual(pruned.hits, exhaustive.hits.slice(0, k), label);
              if (totalHitsThreshold === Infinity) {
                assert.deepEqual(
                  [pruned.totalHits, pruned.totalHitsExact],
                  [exhaustive.totalHits, true],
                  label,
                );
                // Counted exactly, and many of them without a score: the long documents'
                // blocks cannot beat the heap's worst on their bounds (scoring every match
                // once the heap is full scores nearly all 3,690).
                assert.ok(
                  pruned.counters.docsScored < exhaustive.totalHits * (k === 1 ? 0.35 : 0.6),
                  `${label}: ${pruned.counters.docsScored} scored`,
                );
              }
            }
          }
        }
      } finally {
        searcher.release();
      }
    } finally {
      await index.close();
    }
  });
});
