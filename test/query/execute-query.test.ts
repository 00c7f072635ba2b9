import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchError } from '../../src/errors.js';
import { statisticsFromGenerations } from '../../src/query/collection-statistics.js';
import { executeQuery, type ExecuteOptions } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { MemoryGeneration, type MemoryDocument } from '../support/memory-generation.js';

const body = (text: string): MemoryDocument => ({ fields: { body: text.split(' ') } });

function run(
  gens: MemoryGeneration[] | MemoryGeneration,
  query: Query,
  options: Partial<ExecuteOptions> = {},
) {
  return executeQuery(Array.isArray(gens) ? gens : [gens], query, { k: 100, ...options });
}

function docIds(
  gens: MemoryGeneration[] | MemoryGeneration,
  query: Query,
  options: Partial<ExecuteOptions> = {},
) {
  return run(gens, query, options)
    .hits.map((h) => h.docId)
    .sort((a, b) => a - b);
}

const term = (t: string, field?: string): Query => ({ kind: 'term', term: t, field });

describe('executeQuery: node types', () => {
  const gen = new MemoryGeneration(
    [
      { fields: { body: ['red', 'apple'], t: ['fruit'] } },
      { fields: { body: ['green', 'apple', 'pie'], t: ['apple', 'pie'] } },
      { fields: { body: ['red', 'car'], author: ['apple'] } },
      { fields: { body: ['blue', 'sky'] } },
    ],
    { blockSize: 2 },
  );

  it('term: an unscoped term searches the default fields, a scoped one only its field', () => {
    assert.deepEqual(docIds(gen, term('apple')), [0, 1]);
    assert.deepEqual(docIds(gen, term('apple', 'author')), [2]);
    assert.deepEqual(docIds(gen, term('apple', 't')), [1]);
    assert.deepEqual(docIds(gen, term('missing')), []);
    assert.deepEqual(docIds(gen, term('apple', 'nosuchfield')), []);
  });

  it('term: the title weight ranks a title match above a body-only match of the same shape', () => {
    const g = new MemoryGeneration([
      { fields: { body: ['x', 'word'] } },
      { fields: { body: ['x', 'y'], t: ['word', 'z'] } },
    ]);
    assert.deepEqual(
      run(g, term('word')).hits.map((h) => h.docId),
      [1, 0],
    );
  });

  it('prefix: matches every expansion in the fields searched', () => {
    assert.deepEqual(docIds(gen, { kind: 'prefix', prefix: 'app' }), [0, 1]);
    assert.deepEqual(docIds(gen, { kind: 'prefix', prefix: 'app', field: 'author' }), [2]);
    assert.deepEqual(docIds(gen, { kind: 'prefix', prefix: 'gr' }), [1]);
    assert.deepEqual(docIds(gen, { kind: 'prefix', prefix: 'zz' }), []);
  });

  it('bool: must, should, mustNot and filter', () => {
    assert.deepEqual(docIds(gen, { kind: 'bool', must: [term('red'), term('apple')] }), [0]);
    assert.deepEqual(docIds(gen, { kind: 'bool', should: [term('red'), term('apple')] }), [0, 1, 2]);
    assert.deepEqual(
      docIds(gen, { kind: 'bool', should: [term('red'), term('apple')], mustNot: [term('car')] }),
      [0, 1],
    );
    assert.deepEqual(
      docIds(gen, { kind: 'bool', should: [term('red'), term('apple')], minShouldMatch: 2 }),
      [0],
    );
    assert.deepEqual(docIds(gen, { kind: 'bool', must: [term('red')], should: [term('apple')] }), [0, 2]);
    assert.deepEqual(
      docIds(gen, { kind: 'bool', must: [term('red')], should: [term('apple')], minShouldMatch: 1 }),
      [0],
    );
    assert.deepEqual(docIds(gen, { kind: 'bool', filter: [term('red')] }), [0, 2]);
    assert.deepEqual(docIds(gen, { kind: 'bool' }), []);
  });

  it('bool: only mustNot clauses match every other document', () => {
    assert.deepEqual(docIds(gen, { kind: 'bool', mustNot: [term('red')] }), [1, 3]);
  });

  it('bool: a filter restricts without changing scores', () => {
    const plain = run(gen, term('apple')).hits;
    const filtered = run(gen, { kind: 'bool', must: [term('apple')], filter: [term('pie')] }).hits;
    assert.equal(filtered.length, 1);
    assert.equal(filtered[0]?.docId, 1);
    assert.equal(filtered[0]?.score, plain.find((h) => h.docId === 1)!.score);
    // A filter alone scores 0.
    assert.ok(run(gen, { kind: 'bool', filter: [term('apple')] }).hits.every((h) => h.score === 0));
  });

  it('boost multiplies the score; boost 0 keeps the match with score 0', () => {
    const plain = run(gen, term('apple')).hits;
    const boosted = run(gen, { kind: 'boost', boost: 3, query: term('apple') }).hits;
    assert.deepEqual(
      boosted.map((h) => h.docId),
      plain.map((h) => h.docId),
    );
    assert.equal(boosted.length, plain.length);
    boosted.forEach((h, i) => assert.ok(Math.abs(h.score - 3 * (plain[i]?.score ?? NaN)) < 1e-12));
    const zero = run(gen, { kind: 'boost', boost: 0, query: term('apple') }).hits;
    assert.equal(zero.length, 2);
    assert.ok(zero.every((h) => h.score === 0));
  });

  it('match-all returns every live document with score 0, by generation then docId', () => {
    const other = new MemoryGeneration([body('a'), body('b')], { killed: [0] });
    const r = run([gen, other], { kind: 'all' }, { k: 10 });
    assert.deepEqual(
      r.hits.map((h) => [h.generationIndex, h.docId, h.score]),
      [
        [0, 0, 0],
        [0, 1, 0],
        [0, 2, 0],
        [0, 3, 0],
        [1, 1, 0],
      ],
    );
    // The count is exact even when pruning stops the iteration early.
    const few = run([gen, other], { kind: 'all' }, { k: 2, totalHitsThreshold: 0 });
    assert.deepEqual(
      few.hits.map((h) => [h.generationIndex, h.docId]),
      [
        [0, 0],
        [0, 1],
      ],
    );
    assert.equal(few.totalHits, 5);
    assert.equal(few.totalHitsExact, true);
  });
});

describe('executeQuery: phrases', () => {
  const gen = new MemoryGeneration(
    [
      body('state of the art design'),
      body('the art of state design'),
      // '' is a removed stop word: a gap at that position.
      { fields: { body: ['state', '', '', 'art'] } },
      body('state art'),
      body('new york new york new york'),
      body('new york'),
      { fields: { body: ['new'], t: ['york'] } },
    ],
    { blockSize: 2 },
  );
  const phrase = (terms: string[], positions?: number[], field?: string): Query => ({
    kind: 'phrase',
    terms,
    positions,
    field,
  });

  it('matches terms at consecutive positions only', () => {
    assert.deepEqual(docIds(gen, phrase(['state', 'art'])), [3]);
    assert.deepEqual(docIds(gen, phrase(['art', 'state'])), []);
    assert.deepEqual(docIds(gen, phrase(['of', 'the', 'art'])), [0]);
  });

  it('honours position gaps left by removed stop words', () => {
    // "state of the art" with "of" and "the" removed: state at 0, art at 3.
    assert.deepEqual(docIds(gen, phrase(['state', 'art'], [0, 3])), [0, 2]);
    assert.deepEqual(docIds(gen, phrase(['state', 'art'], [0, 2])), []);
  });

  it('does not match across fields', () => {
    assert.deepEqual(docIds(gen, phrase(['new', 'york'])), [4, 5]);
  });

  it('counts occurrences as the phrase frequency', () => {
    const hits = run(gen, phrase(['new', 'york'])).hits;
    assert.equal(hits[0]?.docId, 4, 'three occurrences rank above one');
    // Repeated terms: "new york new" occurs twice in doc 4 (at 0 and 2).
    assert.deepEqual(docIds(gen, phrase(['new', 'york', 'new'])), [4]);
  });

  it('rejects positions that do not match the terms', () => {
    assert.throws(
      () => run(gen, phrase(['a', 'b'], [0])),
      (e: unknown) => e instanceof SearchError && e.code === 'QUERY_INVALID',
    );
  });
});

describe('executeQuery: ranges', () => {
  const gen = new MemoryGeneration([
    { fields: { body: ['x'] }, numbers: { year: 2001 } },
    { fields: { body: ['x'] }, numbers: { year: 2005 } },
    { fields: { body: ['x'] } },
    { fields: { body: ['y'] }, numbers: { year: 2010 } },
  ]);
  const range = (min?: number, max?: number): Query => ({ kind: 'range', field: 'year', min, max });

  it('matches inclusive bounds, open bounds, never documents without a value, score 0', () => {
    assert.deepEqual(docIds(gen, range(2001, 2005)), [0, 1]);
    assert.deepEqual(docIds(gen, range(2002)), [1, 3]);
    assert.deepEqual(docIds(gen, range(undefined, 2001)), [0]);
    assert.deepEqual(docIds(gen, range()), [0, 1, 3]);
    assert.deepEqual(docIds(gen, range(2006, 2004)), []);
    assert.deepEqual(docIds(gen, { kind: 'range', field: 'missing' }), []);
    assert.ok(run(gen, range()).hits.every((h) => h.score === 0));
  });

  it('filters a scored query', () => {
    const r = run(gen, { kind: 'bool', must: [term('x')], filter: [range(2003)] });
    assert.deepEqual(
      r.hits.map((h) => h.docId),
      [1],
    );
    assert.ok((r.hits[0]?.score ?? 0) > 0);
  });
});

describe('executeQuery: coordBoost', () => {
  it('ranks documents matching more should clauses first', () => {
    // Doc 0 matches one rare term many times: alone it would outrank documents matching
    // two common terms; coordBoost puts the two-clause documents above it.
    const gen = new MemoryGeneration([
      body('rare rare rare rare'),
      body('common filler filler filler filler filler filler filler other'),
      body('common other'),
      body('common'),
      body('other'),
      body('filler'),
    ]);
    const should = [term('rare'), term('common'), term('other')];
    const without = run(gen, { kind: 'bool', should }).hits.map((h) => h.docId);
    assert.equal(without[0], 0);
    const r = run(gen, { kind: 'bool', should, coordBoost: 10 }).hits;
    assert.deepEqual(
      r
        .slice(0, 2)
        .map((h) => h.docId)
        .sort(),
      [1, 2],
    );
    // Within a tier the BM25F order is kept.
    assert.deepEqual(
      r.slice(0, 2).map((h) => h.docId),
      [2, 1],
    );
    const scoreOf = (d: number) => r.find((h) => h.docId === d)!.score;
    assert.ok(scoreOf(0) >= 10 && scoreOf(0) < 20);
  });
});

describe('executeQuery: killed documents and counting', () => {
  const docs = Array.from({ length: 50 }, (_, i) => body(i % 2 === 0 ? 'even word' : 'odd word'));

  it('never returns or counts killed documents', () => {
    const killed = [0, 1, 2, 3, 10, 49];
    const gen = new MemoryGeneration(docs, { killed, blockSize: 4 });
    for (const exhaustive of [false, true]) {
      const r = run(gen, term('word'), { exhaustive, k: 100 });
      assert.equal(r.totalHits, 44);
      assert.ok(r.hits.every((h) => !killed.includes(h.docId)));
      const top = run(gen, term('word'), { exhaustive, k: 3, totalHitsThreshold: 0 });
      assert.deepEqual(
        top.hits.map((h) => h.docId),
        [4, 5, 6],
      );
    }
    // Killed documents still count in the statistics (idf does not change when killing).
    const live = new MemoryGeneration(docs, { blockSize: 4 });
    assert.equal(run(gen, term('even')).hits[0]?.score, run(live, term('even')).hits[0]?.score);
  });

  it('counts exactly up to totalHitsThreshold, then reports a lower bound', () => {
    const gen = new MemoryGeneration(docs, { blockSize: 4 });
    const exact = run(gen, term('word'), { k: 5, totalHitsThreshold: 50 });
    assert.equal(exact.totalHits, 50);
    assert.equal(exact.totalHitsExact, true);
    const estimate = run(gen, term('word'), { k: 5, totalHitsThreshold: 10 });
    assert.equal(estimate.totalHitsExact, false);
    assert.ok(estimate.totalHits > 10 && estimate.totalHits <= 50);
    const exhaustive = run(gen, term('word'), { k: 5, totalHitsThreshold: 10, exhaustive: true });
    assert.equal(exhaustive.totalHits, 50);
    assert.equal(exhaustive.totalHitsExact, true);
    // k larger than the matches: never pruned, always exact.
    const all = run(gen, term('odd'), { k: 100, totalHitsThreshold: 0 });
    assert.deepEqual([all.totalHits, all.totalHitsExact], [25, true]);
  });

  it('accepts a k far above the number of matches', () => {
    const gen = new MemoryGeneration(docs);
    const r = run(gen, term('odd'), { k: 1_000_000_000 });
    assert.deepEqual([r.hits.length, r.totalHits, r.totalHitsExact], [25, 25, true]);
  });

  it('k = 0 counts without returning hits', () => {
    const gen = new MemoryGeneration(docs);
    const r = run(gen, term('odd'), { k: 0 });
    assert.deepEqual([r.hits.length, r.totalHits, r.totalHitsExact], [0, 25, true]);
  });

  it('k = 0 past its threshold opens no further generation; below it, every generation counts', () => {
    // Three generations of 50 documents: 25 match 'odd' in each.
    const opened: number[] = [];
    const gens = [1, 2, 3].map((g) => {
      const gen = new MemoryGeneration(docs, { generation: g });
      const postings = gen.postings.bind(gen);
      gen.postings = (field, t, withPositions) => {
        opened.push(g);
        return postings(field, t, withPositions);
      };
      return gen;
    });
    // The threshold (30) is passed in the second generation: the third is never read.
    const capped = run(gens, term('odd', 'body'), { k: 0, totalHitsThreshold: 30 });
    assert.deepEqual([capped.totalHits, capped.totalHitsExact], [31, false]);
    assert.deepEqual([...new Set(opened)], [1, 2]);
    opened.length = 0;
    const exact = run(gens, term('odd', 'body'), { k: 0, totalHitsThreshold: 75 });
    assert.deepEqual([exact.totalHits, exact.totalHitsExact], [75, true]);
    assert.deepEqual([...new Set(opened)], [1, 2, 3]);
    // A count known without iterating (match-all) stays exact over every generation.
    const all = run(gens, { kind: 'all' }, { k: 0, totalHitsThreshold: 10 });
    assert.deepEqual([all.totalHits, all.totalHitsExact], [150, true]);
  });
});

describe('executeQuery: several generations and statistics', () => {
  const a = [body('alpha beta'), body('alpha'), body('gamma')];
  const b = [body('beta beta'), body('alpha gamma delta'), body('delta')];

  it('merges generations into one ranking, ties by generation then docId', () => {
    const ga = new MemoryGeneration(a, { generation: 1 });
    const gb = new MemoryGeneration(b, { generation: 2 });
    const r = run([ga, gb], { kind: 'bool', should: [term('alpha'), term('beta')] }, { k: 10 });
    assert.equal(r.totalHits, 4);
    const same = new MemoryGeneration([...a, ...b]);
    const one = run(same, { kind: 'bool', should: [term('alpha'), term('beta')] }, { k: 10 });
    // Same statistics, so same scores as a single generation holding every document.
    assert.deepEqual(
      r.hits.map((h) => h.generationIndex * 3 + h.docId),
      one.hits.map((h) => h.docId),
    );
    assert.equal(r.hits.length, one.hits.length);
    r.hits.forEach((h, i) => assert.ok(Math.abs(h.score - (one.hits[i]?.score ?? NaN)) < 1e-12));
  });

  it('uses injected statistics, so collections searched apart score on one scale', () => {
    const ga = new MemoryGeneration(a);
    const gb = new MemoryGeneration(b);
    const stats = statisticsFromGenerations([ga, gb]);
    const alone = run(ga, term('alpha'), { stats }).hits;
    const together = run([ga, gb], term('alpha')).hits.filter((h) => h.generationIndex === 0);
    assert.deepEqual(alone, together);
    const ownStats = run(ga, term('alpha')).hits;
    assert.notEqual(ownStats[0]?.score, alone[0]?.score);
  });
});

describe('executeQuery: prefix expansion limit', () => {
  it('keeps the 256 expansions with the highest document frequency', () => {
    // 300 terms p000..p299; p000..p255 occur in two documents each, p256..p299 in one.
    const docs: MemoryDocument[] = [];
    for (let i = 0; i < 300; i++) {
      const t = `p${String(i).padStart(3, '0')}`;
      docs.push(body(t));
      if (i < 256) docs.push(body(`${t} x`));
    }
    const gen = new MemoryGeneration(docs);
    const r = run(gen, { kind: 'prefix', prefix: 'p' }, { k: 1000 });
    assert.equal(r.totalHits, 512);
    assert.ok(r.hits.every((h) => Number(docs[h.docId]?.fields.body?.[0]?.slice(1)) < 256));
  });
});

describe('executeQuery: fields without lengths', () => {
  // Keyword fields (facets, scopes) may be indexed without lengths: fieldLengths is null.
  const gen = new MemoryGeneration(
    [
      { fields: { body: ['apple', 'pie'], scope: ['news'] } },
      { fields: { body: ['apple'], scope: ['blog', 'news', 'news', 'x', 'y', 'z'] } },
      { fields: { body: ['pear'], scope: ['news'] } },
    ],
    { withoutLengths: ['scope'] },
  );

  it('still match, as filters and as scored clauses', () => {
    assert.equal(gen.fieldLengths('scope'), null);
    const filtered: Query = { kind: 'bool', must: [term('apple')], filter: [term('news', 'scope')] };
    assert.deepEqual(docIds(gen, filtered), [0, 1]);
    assert.deepEqual(docIds(gen, { kind: 'prefix', prefix: 'ne', field: 'scope' }), [0, 1, 2]);
  });

  it('score without length normalisation (b = 0)', () => {
    // df 3 of N 3 → idf ln(1 + 0.5/3.5); doc 1: tf 2, not normalised: S = 2, despite length 6.
    const byDoc = new Map(run(gen, term('news', 'scope')).hits.map((h) => [h.docId, h.score]));
    const idf = Math.log(1 + 0.5 / 3.5);
    assert.ok(Math.abs(byDoc.get(1)! - (idf * 2 * 2.2) / (1.2 + 2)) < 1e-12);
    assert.ok(Math.abs(byDoc.get(0)! - (idf * 1 * 2.2) / (1.2 + 1)) < 1e-12);
  });
});

describe('executeQuery: validation', () => {
  const gen = new MemoryGeneration([body('a')]);
  const code = (c: string) => (e: unknown) => e instanceof SearchError && e.code === c;

  it('rejects bad k, boosts, coordBoost, minShouldMatch and scoring options', () => {
    assert.throws(() => run(gen, term('a'), { k: -1 }), code('QUERY_INVALID'));
    assert.throws(() => run(gen, term('a'), { k: 1.5 }), code('QUERY_INVALID'));
    assert.throws(() => run(gen, { kind: 'boost', boost: -1, query: term('a') }), code('QUERY_INVALID'));
    assert.throws(
      () => run(gen, { kind: 'bool', should: [term('a')], coordBoost: -1 }),
      code('QUERY_INVALID'),
    );
    assert.throws(
      () => run(gen, { kind: 'bool', should: [term('a')], minShouldMatch: 0.5 }),
      code('QUERY_INVALID'),
    );
    assert.throws(() => run(gen, term('a'), { scoring: { k1: -1 } }), code('SCORING_OPTIONS_INVALID'));
    assert.throws(
      () => run(gen, term('a'), { scoring: { fields: { body: { b: 2 } } } }),
      code('SCORING_OPTIONS_INVALID'),
    );
  });
});
