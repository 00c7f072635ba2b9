import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { NO_MORE_DOCS } from '../../src/index/generation-view.js';
import { statisticsFromGenerations } from '../../src/query/collection-statistics.js';
import { createWeight } from '../../src/query/create-weight.js';
import { executeQuery, type Hit } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { resolveScoringOptions } from '../../src/query/scoring-options.js';
import { MemoryGeneration, type MemoryDocument } from '../support/memory-generation.js';
import { naiveSearch, type NaiveGeneration } from './naive-search.js';

// A small vocabulary with shared prefixes, skewed so that some terms are common.
const VOCAB = ['apple', 'apple', 'apple', 'apply', 'ape', 'banana', 'band', 'band', 'cat', 'car', 'dog', ''];
const TERMS = ['apple', 'apply', 'ape', 'banana', 'band', 'cat', 'car', 'dog', 'emu'];
const FIELDS = ['body', 'body', 'body', 't', 'k', 'author'];

const termsArb = (max: number) => fc.array(fc.constantFrom(...VOCAB), { maxLength: max });

const docArb: fc.Arbitrary<MemoryDocument> = fc.record(
  {
    fields: fc.record(
      { body: termsArb(14), t: termsArb(4), k: termsArb(6), author: termsArb(2) },
      { requiredKeys: [] },
    ),
    numbers: fc.record({ year: fc.integer({ min: 0, max: 9 }) }, { requiredKeys: [] }),
  },
  { requiredKeys: ['fields'] },
);

const generationArb = fc.array(docArb, { maxLength: 40 }).chain((docs) =>
  fc.record({
    docs: fc.constant(docs),
    killed: fc.uniqueArray(fc.nat({ max: Math.max(0, docs.length - 1) }), {
      maxLength: docs.length === 0 ? 0 : Math.ceil(docs.length / 3),
    }),
    blockSize: fc.integer({ min: 1, max: 9 }),
    freqRatios: fc.boolean(),
  }),
);

const fieldArb = fc.option(fc.constantFrom(...FIELDS), { nil: undefined });

const { query: queryArb } = fc.letrec<{ query: Query; leaf: Query; bool: Query }>((tie) => ({
  leaf: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('term' as const),
        field: fieldArb,
        term: fc.constantFrom(...TERMS),
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.constantFrom(...TERMS.slice(0, 6)), { minLength: 1, maxLength: 3 })
        .chain((terms) =>
          fc.record({
            kind: fc.constant('phrase' as const),
            field: fieldArb,
            terms: fc.constant(terms),
            positions: fc.option(
              fc
                .array(fc.integer({ min: 1, max: 2 }), { minLength: terms.length, maxLength: terms.length })
                .map((steps) => steps.map((_, i) => steps.slice(0, i).reduce((a, b) => a + b, 0))),
              { nil: undefined },
            ),
          }),
        ),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('prefix' as const),
        field: fieldArb,
        prefix: fc.constantFrom('a', 'ap', 'appl', 'ba', 'c', 'z'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          kind: fc.constant('range' as const),
          field: fc.constant('year'),
          min: fc.integer({ min: 0, max: 9 }),
          max: fc.integer({ min: 0, max: 9 }),
        },
        { requiredKeys: ['kind', 'field'] },
      ),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'all' as const }) },
  ),
  bool: fc.record(
    {
      kind: fc.constant('bool' as const),
      must: fc.array(tie('query'), { maxLength: 2 }),
      should: fc.array(tie('query'), { maxLength: 4 }),
      mustNot: fc.array(tie('query'), { maxLength: 1 }),
      filter: fc.array(tie('query'), { maxLength: 1 }),
      minShouldMatch: fc.integer({ min: 0, max: 3 }),
      coordBoost: fc.constantFrom(0, 0.5, 3),
    },
    { requiredKeys: ['kind'] },
  ),
  query: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: tie('leaf') },
    { weight: 2, arbitrary: tie('bool') },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('boost' as const),
        boost: fc.constantFrom(0, 0.5, 2),
        query: tie('leaf'),
      }),
    },
  ),
}));

/** A top-level disjunction of several terms: the MaxScore path, with coordBoost and exclusions. */
const disjunctionArb: fc.Arbitrary<Query> = fc.record(
  {
    kind: fc.constant('bool' as const),
    should: fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant('term' as const), field: fieldArb, term: fc.constantFrom(...TERMS) }),
        fc.record({ kind: fc.constant('prefix' as const), prefix: fc.constantFrom('ap', 'ba', 'c') }),
        fc.record({ kind: fc.constant('phrase' as const), terms: fc.constant(['apple', 'band']) }),
      ) as fc.Arbitrary<Query>,
      { minLength: 2, maxLength: 6 },
    ),
    mustNot: fc.array(fc.record({ kind: fc.constant('term' as const), term: fc.constantFrom(...TERMS) }), {
      maxLength: 1,
    }),
    coordBoost: fc.constantFrom(0, 0.25, 4),
  },
  { requiredKeys: ['kind', 'should'] },
);

const corpusArb = fc.array(generationArb, { minLength: 1, maxLength: 3 });

function build(
  corpus: { docs: MemoryDocument[]; killed: number[]; blockSize: number; freqRatios: boolean }[],
) {
  const views = corpus.map(
    (g, i) =>
      new MemoryGeneration(g.docs, {
        generation: i + 1,
        killed: g.killed,
        blockSize: g.blockSize,
        freqRatios: g.freqRatios,
      }),
  );
  const naive: NaiveGeneration[] = corpus.map((g) => ({ docs: g.docs, killed: new Set(g.killed) }));
  return { views, naive };
}

const TOL = 1e-9;
const near = (a: number, b: number) => Math.abs(a - b) <= TOL * Math.max(1, Math.abs(a), Math.abs(b));
const key = (h: { generationIndex: number; docId: number }) => `${h.generationIndex}:${h.docId}`;

/**
 * `actual` is a valid top-k of `all` (every live match with its true score, best first):
 * same number of hits, same scores in order, each hit a real match with its true score, and
 * every document scoring clearly above the k-th score present (ties at the k-th may differ).
 */
function assertValidTopK(
  actual: Hit[],
  all: { generationIndex: number; docId: number; score: number }[],
  k: number,
) {
  const expected = all.slice(0, k);
  assert.equal(actual.length, expected.length, 'number of hits');
  const truth = new Map(all.map((h) => [key(h), h.score]));
  for (const [i, hit] of actual.entries()) {
    const score = expected[i]?.score ?? NaN;
    assert.ok(near(hit.score, score), `score #${i}: ${hit.score} vs ${score}`);
    const t = truth.get(key(hit));
    assert.ok(t !== undefined, `hit ${key(hit)} is not a match`);
    assert.ok(near(hit.score, t), `hit ${key(hit)} scored ${hit.score}, truth ${t}`);
  }
  const last = expected.at(-1);
  if (last !== undefined) {
    const kth = last.score;
    const got = new Set(actual.map(key));
    for (const h of expected) {
      if (!near(h.score, kth))
        assert.ok(got.has(key(h)), `missing ${key(h)} (score ${h.score} > k-th ${kth})`);
    }
  }
}

describe('executor properties on random corpora', () => {
  it('exhaustive scores equal the naive BM25F scorer', () => {
    fc.assert(
      fc.property(corpusArb, queryArb, fc.nat({ max: 10 }), (corpus, query, k) => {
        const { views, naive } = build(corpus);
        const expected = naiveSearch(naive, query);
        const total = corpus.reduce((s, g) => s + g.docs.length, 0);
        const r = executeQuery(views, query, { k: total + 1, exhaustive: true });
        assert.equal(r.totalHits, expected.length);
        assert.equal(r.totalHitsExact, true);
        assert.equal(r.hits.length, expected.length);
        const truth = new Map(expected.map((h) => [key(h), h.score]));
        for (const h of r.hits) {
          const t = truth.get(key(h));
          assert.ok(t !== undefined, `unexpected hit ${key(h)}`);
          assert.ok(near(h.score, t), `${key(h)}: ${h.score} vs naive ${t}`);
        }
        // The heap keeps the k best in the documented order, ties by generation then docId.
        assert.deepEqual(executeQuery(views, query, { k, exhaustive: true }).hits, r.hits.slice(0, k));
      }),
      { numRuns: 400 },
    );
  });

  it('pruned top-k equals exhaustive top-k', () => {
    fc.assert(
      fc.property(
        corpusArb,
        fc.oneof(queryArb, disjunctionArb),
        fc.integer({ min: 0, max: 12 }),
        fc.constantFrom(0, 1, 3, 1000),
        (corpus, query, k, threshold) => {
          const { views } = build(corpus);
          const total = corpus.reduce((s, g) => s + g.docs.length, 0);
          const all = executeQuery(views, query, { k: total + 1, exhaustive: true });
          const pruned = executeQuery(views, query, { k, totalHitsThreshold: threshold });
          assertValidTopK(pruned.hits, all.hits, k);
          // Bounds and scores add in the same order, so pruning changes nothing at all.
          assert.deepEqual(pruned.hits, all.hits.slice(0, k));
          if (pruned.totalHitsExact) assert.equal(pruned.totalHits, all.totalHits);
          else {
            assert.ok(pruned.totalHits <= all.totalHits, 'totalHits is a lower bound');
            assert.ok(pruned.totalHits > threshold, 'exact up to the threshold');
          }
          assert.ok(
            pruned.totalHits >= Math.min(all.totalHits, threshold),
            'counted at least up to the threshold',
          );
        },
      ),
      { numRuns: 600 },
    );
  });

  // Larger generations, tiny blocks: many windows, partitions that change as k-th rises.
  const bigGen = fc.record({
    docs: fc.array(docArb, { minLength: 50, maxLength: 150 }),
    killed: fc.uniqueArray(fc.nat({ max: 49 }), { maxLength: 10 }),
    blockSize: fc.integer({ min: 1, max: 6 }),
    freqRatios: fc.boolean(),
  });

  it('block-max pruning stays exact on top-level disjunctions of skewed terms', () => {
    fc.assert(
      fc.property(
        fc.array(bigGen, { minLength: 1, maxLength: 2 }),
        disjunctionArb,
        fc.integer({ min: 1, max: 8 }),
        (corpus, query, k) => {
          const { views, naive } = build(corpus);
          const pruned = executeQuery(views, query, { k, totalHitsThreshold: 0 });
          assertValidTopK(pruned.hits, naiveSearch(naive, query), k);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('MaxScore stays exact with many clauses', () => {
    const many = fc.record({
      kind: fc.constant('bool' as const),
      should: fc.array(
        fc.record({ kind: fc.constant('term' as const), field: fieldArb, term: fc.constantFrom(...TERMS) }),
        { minLength: 14, maxLength: 24 },
      ),
      coordBoost: fc.constantFrom(0, 0.5),
    }) as fc.Arbitrary<Query>;
    fc.assert(
      fc.property(
        fc.array(bigGen, { minLength: 1, maxLength: 2 }),
        many,
        fc.integer({ min: 1, max: 8 }),
        (corpus, query, k) => {
          const { views, naive } = build(corpus);
          const pruned = executeQuery(views, query, { k, totalHitsThreshold: 0 });
          assertValidTopK(pruned.hits, naiveSearch(naive, query), k);
          const total = corpus.reduce((s, g) => s + g.docs.length, 0);
          assert.deepEqual(
            pruned.hits,
            executeQuery(views, query, { k: total, exhaustive: true }).hits.slice(0, k),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('block-max pruning stays exact on nested clauses of larger generations', () => {
    // Required + optional clauses, minShouldMatch > 1, phrases and filters under pruning.
    const clause = fc.oneof(
      fc.record({ kind: fc.constant('term' as const), field: fieldArb, term: fc.constantFrom(...TERMS) }),
      fc.record({
        kind: fc.constant('phrase' as const),
        terms: fc.constantFrom(['apple', 'band'], ['band', 'apple'], ['apple', 'apple']),
      }),
      fc.record({ kind: fc.constant('prefix' as const), prefix: fc.constantFrom('ap', 'ba', 'c') }),
      fc.record({
        kind: fc.constant('bool' as const),
        should: fc.array(fc.record({ kind: fc.constant('term' as const), term: fc.constantFrom(...TERMS) }), {
          minLength: 1,
          maxLength: 3,
        }),
        coordBoost: fc.constantFrom(0, 2),
      }),
    ) as fc.Arbitrary<Query>;
    const structured = fc.oneof(
      fc.record({
        kind: fc.constant('bool' as const),
        must: fc.array(clause, { minLength: 1, maxLength: 2 }),
        should: fc.array(clause, { maxLength: 3 }),
        filter: fc.array(fc.constant<Query>({ kind: 'range', field: 'year', min: 2 }), { maxLength: 1 }),
        coordBoost: fc.constantFrom(0, 1, 5),
      }),
      fc.record({
        kind: fc.constant('bool' as const),
        should: fc.array(clause, { minLength: 2, maxLength: 4 }),
        minShouldMatch: fc.constantFrom(1, 2),
        coordBoost: fc.constantFrom(0, 1, 5),
      }),
      queryArb,
    ) as fc.Arbitrary<Query>;
    fc.assert(
      fc.property(
        fc.array(bigGen, { minLength: 1, maxLength: 2 }),
        structured,
        fc.integer({ min: 1, max: 8 }),
        (corpus, query, k) => {
          const { views, naive } = build(corpus);
          const pruned = executeQuery(views, query, { k, totalHitsThreshold: 0 });
          assertValidTopK(pruned.hits, naiveSearch(naive, query), k);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('scoreTo writes exactly what score() returns, whatever the slot held', () => {
    // Runners and composite scorers take scores through scoreTo (composites use the slot as
    // scratch for their clauses): a different double there would change results.
    fc.assert(
      fc.property(corpusArb, fc.oneof(queryArb, disjunctionArb), fc.double(), (corpus, query, garbage) => {
        const { views } = build(corpus);
        const ctx = {
          options: resolveScoringOptions(undefined),
          stats: statisticsFromGenerations(views),
          generations: views,
        };
        const weight = createWeight(ctx, query);
        const out = new Float64Array(4);
        for (const view of views) {
          const scorer = weight.scorer(view);
          if (scorer === null) continue;
          for (let doc = scorer.nextDoc(); doc !== NO_MORE_DOCS; doc = scorer.nextDoc()) {
            out.fill(garbage);
            scorer.scoreTo(out, 2);
            const expected = scorer.score();
            assert.ok(Object.is(out[2], expected), `doc ${doc}: scoreTo ${out[2]}, score ${expected}`);
            assert.deepEqual([out[0], out[1], out[3]], [garbage, garbage, garbage], 'other slots untouched');
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
