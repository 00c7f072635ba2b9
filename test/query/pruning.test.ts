import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { executeQuery, type ExecuteOptions } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { MemoryGeneration, type MemoryDocument } from '../support/memory-generation.js';

/**
 * 20,000 documents that all contain `common` once (same length), except ten "strong" ones
 * that contain it three times; `rare` is in every 400th document.
 */
const N = 20_000;
const STRONG = [137, 2_500, 4_999, 7_777, 9_001, 11_111, 13_000, 15_432, 18_000, 19_998];
const docs: MemoryDocument[] = [];
for (let i = 0; i < N; i++) {
  const strong = STRONG.includes(i);
  const words = strong ? ['common', 'common', 'common', 'w'] : ['common', 'w', 'w', 'w'];
  if (i % 400 === 0) words[3] = 'rare';
  docs.push({ fields: { body: words } });
}
const gen = new MemoryGeneration(docs, { blockSize: 128 });

function compare(query: Query, options: Partial<ExecuteOptions> = {}) {
  const pruned = executeQuery([gen], query, { k: 10, ...options });
  const exhaustive = executeQuery([gen], query, { k: 10, exhaustive: true });
  assert.deepEqual(pruned.hits, exhaustive.hits);
  return { pruned, exhaustive };
}

describe('counting without scoring', () => {
  // "Any of the words, documents with more of them first", as a search plans it: a nested
  // disjunction whose coordination boost puts every document with both words above those
  // with one.
  const anyOf: Query = {
    kind: 'bool',
    must: [
      {
        kind: 'bool',
        should: [
          { kind: 'term', term: 'common' },
          { kind: 'term', term: 'rare' },
        ],
        coordBoost: 1000,
      },
    ],
  };

  it('counts every match exactly but scores only those that can enter the results', () => {
    const { pruned, exhaustive } = compare(anyOf, { totalHitsThreshold: Infinity });
    assert.equal(pruned.totalHits, N);
    assert.equal(pruned.totalHitsExact, true);
    assert.equal(exhaustive.counters.docsScored, N);
    // Once the heap holds ten documents with both words (the tenth `rare` is document 3,600),
    // a document with `common` alone is bounded below the heap's worst and only counted.
    assert.ok(pruned.counters.docsScored < 3_700, `scored ${pruned.counters.docsScored}`);
  });

  it('does the same for a top-level disjunction (MaxScore)', () => {
    const topLevel: Query = {
      kind: 'bool',
      should: [
        { kind: 'term', term: 'common' },
        { kind: 'term', term: 'rare' },
      ],
      coordBoost: 1000,
    };
    const { pruned } = compare(topLevel, { totalHitsThreshold: Infinity });
    assert.equal(pruned.totalHits, N);
    assert.equal(pruned.totalHitsExact, true);
    assert.ok(pruned.counters.docsScored < 3_700, `scored ${pruned.counters.docsScored}`);
  });

  it('does the same for a required word with an optional one (+common rare)', () => {
    // As a search plans `+common rare`: the optional word's bound (with its coordination
    // boost) counts only where it matches, so `common` alone is bounded below the heap's worst.
    const requiredAndOptional: Query = {
      kind: 'bool',
      must: [
        {
          kind: 'bool',
          must: [{ kind: 'term', term: 'common' }],
          should: [{ kind: 'term', term: 'rare' }],
          coordBoost: 1000,
        },
      ],
    };
    const { pruned, exhaustive } = compare(requiredAndOptional, { totalHitsThreshold: Infinity });
    assert.equal(pruned.totalHits, N);
    assert.equal(pruned.totalHitsExact, true);
    assert.equal(exhaustive.counters.docsScored, N);
    assert.ok(pruned.counters.docsScored < 3_700, `scored ${pruned.counters.docsScored}`);
  });

  it('scores nothing when only the count is asked for (k = 0)', () => {
    const r = executeQuery([gen], anyOf, { k: 0, totalHitsThreshold: Infinity });
    assert.equal(r.totalHits, N);
    assert.equal(r.totalHitsExact, true);
    assert.equal(r.counters.docsScored, 0);
  });
});

describe('block-max pruning', () => {
  it('does not score every posting of a term present in every document', () => {
    const { pruned, exhaustive } = compare({ kind: 'term', term: 'common' });
    assert.deepEqual(
      pruned.hits.map((h) => h.docId).sort((a, b) => a - b),
      STRONG,
    );
    assert.equal(exhaustive.counters.docsScored, N);
    // 1,001 documents counted exactly (the default totalHitsThreshold is 1000), then only the
    // blocks that hold a strong document (10 blocks of 128 postings at most).
    assert.ok(pruned.counters.docsScored <= 1_001 + 10 * 128, `scored ${pruned.counters.docsScored}`);
    assert.ok(pruned.counters.windowsSkipped > 100);
    assert.equal(pruned.totalHitsExact, false);
    assert.ok(pruned.totalHits > 1_000 && pruned.totalHits < N);
  });

  it('skips more with a lower totalHitsThreshold', () => {
    const { pruned } = compare({ kind: 'term', term: 'common' }, { totalHitsThreshold: 10 });
    assert.ok(pruned.counters.docsScored <= 11 + 10 * 128, `scored ${pruned.counters.docsScored}`);
  });

  it('carries the threshold across generations', () => {
    // The same documents split in two generations: the second is mostly skipped because the
    // first already filled the heap with strong documents.
    const first = new MemoryGeneration(docs.slice(0, N / 2), { blockSize: 128 });
    const second = new MemoryGeneration(
      docs.slice(N / 2).map(() => ({ fields: { body: ['common', 'w', 'w', 'w'] } })),
      { blockSize: 128 },
    );
    const r = executeQuery(
      [first, second],
      { kind: 'term', term: 'common' },
      { k: 5, totalHitsThreshold: 10 },
    );
    assert.ok(r.hits.every((h) => h.generationIndex === 0));
    assert.ok(r.counters.docsScored < 5 * 128 + 11, `scored ${r.counters.docsScored}`);
  });

  it('MaxScore: a common optional term does not drive the iteration of a disjunction', () => {
    const query: Query = {
      kind: 'bool',
      should: [
        { kind: 'term', term: 'common' },
        { kind: 'term', term: 'rare' },
      ],
    };
    const { pruned, exhaustive } = compare(query);
    assert.equal(exhaustive.counters.docsScored, N);
    // After the first 1,001 documents, mostly the 50 documents with `rare` are candidates.
    assert.ok(pruned.counters.docsScored < 1_001 + 50 + 10 * 128, `scored ${pruned.counters.docsScored}`);
  });

  it('prunes conjunctions and required + optional clauses', () => {
    const conj: Query = {
      kind: 'bool',
      must: [
        { kind: 'term', term: 'common' },
        { kind: 'term', term: 'w' },
      ],
    };
    const a = compare(conj, { totalHitsThreshold: 10 });
    assert.ok(a.pruned.counters.docsScored < N / 4, `scored ${a.pruned.counters.docsScored}`);
    const reqOpt: Query = {
      kind: 'bool',
      must: [{ kind: 'term', term: 'common' }],
      should: [{ kind: 'term', term: 'w' }],
    };
    const b = compare(reqOpt, { totalHitsThreshold: 10 });
    assert.ok(b.pruned.counters.docsScored < N / 4, `scored ${b.pruned.counters.docsScored}`);
  });

  it('never returns a killed document, even the best one', () => {
    const gone = [137, 11_111]; // STRONG[0] and STRONG[5]
    const killed = new MemoryGeneration(docs, { blockSize: 128, killed: gone });
    const r = executeQuery([killed], { kind: 'term', term: 'common' }, { k: 10 });
    const ids = r.hits.map((h) => h.docId);
    assert.ok(!gone.some((d) => ids.includes(d)));
    assert.equal(ids.filter((d) => STRONG.includes(d)).length, 8);
  });
});

describe('MaxScore regressions', () => {
  it('a window cut short by a rising threshold does not collect a document twice', () => {
    // Found by the property test: after the threshold rose on doc d, the partition changed
    // and a clause still positioned on d became essential, producing d again.
    const d = (body: string, t = '', k = '') => ({
      fields: {
        body: body.split(' ').filter(Boolean),
        t: t.split(' ').filter(Boolean),
        k: k.split(' ').filter(Boolean),
      },
    });
    const views = [
      new MemoryGeneration([d(''), d('', 'banana')], { blockSize: 1 }),
      new MemoryGeneration(
        [
          { fields: { body: ['apple', '', 'banana', '', 'band', 'banana'], t: ['band', 'band'] } },
          d('car car car band dog ape cat apply banana', '', 'car apply car ape'),
          d('band banana x banana band apple band ape banana', 'car'),
          d('apple apply x apple cat', 'apply apple', 'band car banana ape dog'),
          d('apple ape band band'),
          d('', 'apple', 'ape dog apple band band banana'),
          d('ape cat dog apply cat apple cat dog car banana', 'ape banana', 'apple'),
          d('banana apple band cat band band ape apply ape'),
          d('apple apple cat apple x band cat', '', 'banana dog'),
          d('', 'apple'),
        ],
        { blockSize: 1 },
      ),
    ];
    const query: Query = {
      kind: 'bool',
      should: [
        { kind: 'prefix', prefix: 'c' },
        { kind: 'phrase', terms: ['apple', 'band'] },
        { kind: 'term', term: 'banana' },
      ],
    };
    const all = executeQuery(views, query, { k: 100, exhaustive: true });
    const pruned = executeQuery(views, query, { k: 4, totalHitsThreshold: 0 });
    assert.deepEqual(pruned.hits, all.hits.slice(0, 4));
    assert.ok(pruned.totalHits <= all.totalHits, `${pruned.totalHits} > ${all.totalHits}`);
  });
});
