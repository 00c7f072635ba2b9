import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_MERGE_POLICY, findMerges, type MergeCandidate } from '../../src/index/merge/merge-policy.js';

const policy = {
  ...DEFAULT_MERGE_POLICY,
  mergeFactor: 4,
  maxMergeAtOnce: 4,
  floorDocs: 100,
  maxGenerations: 64,
};
const gen = (generation: number, docCount: number, killedCount = 0): MergeCandidate => ({
  generation,
  docCount,
  killedCount,
});

describe('merge policy', () => {
  it('merges generations of similar size once a tier is full', () => {
    const small = [1, 2, 3, 4].map((g) => gen(g, 50));
    const big = gen(5, 100_000);
    assert.deepEqual(findMerges([...small, big], new Set(), policy), [[1, 2, 3, 4]]);
    assert.deepEqual(findMerges([...small.slice(0, 3), big], new Set(), policy), [], 'a tier of 3 waits');
  });

  it('does not merge a huge generation with small ones', () => {
    const merges = findMerges([gen(1, 1_000_000), gen(2, 10), gen(3, 10), gen(4, 10)], new Set(), policy);
    assert.deepEqual(merges, []);
  });

  it('rewrites a generation with many killed documents first (killed-percentage-for-reindex)', () => {
    assert.deepEqual(findMerges([gen(1, 1000, 600), gen(2, 1000, 100)], new Set(), policy), [[1]]);
    assert.deepEqual(
      findMerges([gen(1, 1000, 600)], new Set(), { ...policy, killedPercentageForReindex: 70 }),
      [],
      'the threshold is honoured',
    );
  });

  it('never proposes a generation already being merged', () => {
    const merges = findMerges(
      [1, 2, 3, 4, 5].map((g) => gen(g, 50)),
      new Set([1]),
      policy,
    );
    assert.deepEqual(merges, [[2, 3, 4, 5]]);
  });

  it('merges the smallest generations under pressure near the limit', () => {
    const many = Array.from({ length: 40 }, (_, i) => gen(i + 1, 10 ** (1 + (i % 7))));
    const merges = findMerges(many, new Set(), policy);
    assert.ok(merges.length > 0);
  });

  it('property: merges are disjoint, non-empty and only name known, idle generations', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            docCount: fc.integer({ min: 0, max: 1_000_000 }),
            killedPct: fc.integer({ min: 0, max: 100 }),
          }),
          {
            maxLength: 80,
          },
        ),
        fc.array(fc.integer({ min: 1, max: 80 })),
        (specs, busy) => {
          const generations = specs.map((s, i) =>
            gen(i + 1, s.docCount, Math.floor((s.docCount * s.killedPct) / 100)),
          );
          const merging = new Set(busy);
          const merges = findMerges(generations, merging, policy);
          const seen = new Set<number>();
          const known = new Set(generations.map((g) => g.generation));
          for (const merge of merges) {
            assert.ok(merge.length >= 1);
            for (const g of merge) {
              assert.ok(known.has(g) && !merging.has(g) && !seen.has(g));
              seen.add(g);
            }
          }
        },
      ),
    );
  });
});
