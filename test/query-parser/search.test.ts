import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Analyzer } from '../../src/index/analysis/analyzer.js';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import { executeQuery } from '../../src/query/execute-query.js';
import { parseQuery, type ParseQueryOptions } from '../../src/query/parser/parse-query.js';
import { MemoryGeneration, type MemoryDocument } from '../support/memory-generation.js';

// The parser's trees run on the engine: what a user types finds what they expect.
const analyzer = createAnalyzer({ stem: true, stopWords: true });

/** Analysed like the indexer does: a removed stop word leaves an empty slot (a position gap). */
function field(text: string, a: Analyzer = analyzer): string[] {
  const out: string[] = [];
  const end = a.forEachTerm(text, 0, (term, position) => {
    out[position] = term;
  });
  return Array.from({ length: end }, (_, i) => out[i] ?? '');
}

const DOCS: { body: string; t?: string }[] = [
  { body: 'Julius Caesar crossed the Rubicon on his way to Rome' }, // 0
  { body: 'A Caesar salad recipe' }, // 1
  { body: 'Rome travel guide' }, // 2
  { body: 'Julius Caesar and Mark Antony in Rome', t: 'Antony' }, // 3
  { body: 'The state of the art in routing protocols', t: 'Protocol design' }, // 4
  { body: 'The art of state management' }, // 5
  { body: 'Sending e-mail with HTTP/1.1' }, // 6
  { body: 'salad salad salad' }, // 7
];
const generation = new MemoryGeneration(
  DOCS.map((d): MemoryDocument => ({
    fields: d.t === undefined ? { body: field(d.body) } : { body: field(d.body), t: field(d.t) },
  })),
);
const options: ParseQueryOptions = { analyzerFor: () => analyzer };

function search(text: string, extra: Partial<ParseQueryOptions> = {}): number[] {
  const { tree } = parseQuery(text, { ...options, ...extra });
  if (tree === null) return [];
  return executeQuery([generation], tree, { k: 100, exhaustive: true }).hits.map((h) => h.docId);
}

const sorted = (a: number[]) => [...a].sort((x, y) => x - y);

describe('parsed queries on the engine', () => {
  it('ranks documents with all the words first, then fewer (tiers)', () => {
    const hits = search('julius caesar rome');
    assert.deepEqual(sorted(hits.slice(0, 2)), [0, 3]);
    assert.deepEqual(sorted(hits.slice(2)), [1, 2]);
    // Two common words beat one rarer, repeated word in a short document: the coordination
    // bonus makes the tier, not the term weights (without it, document 7 comes first).
    const tiered = search('julius rome salad');
    assert.deepEqual(sorted(tiered.slice(0, 2)), [0, 3]);
    assert.deepEqual(sorted(tiered.slice(2)), [1, 2, 7]);
    assert.equal(search('julius rome salad', { coordBoost: 0 })[0], 7);
  });

  it('returns only fully matching documents with allRequired (fmo=on)', () => {
    assert.deepEqual(sorted(search('julius caesar rome', { allRequired: true })), [0, 3]);
  });

  it('excludes -word everywhere, and -word alone returns everything else', () => {
    assert.deepEqual(sorted(search('caesar -antony')), [0, 1]);
    assert.deepEqual(sorted(search('-caesar')), [2, 4, 5, 6, 7]);
  });

  it('requires +word while the other words only rank', () => {
    const hits = search('+rome salad guide');
    assert.deepEqual(sorted(hits), [0, 2, 3]);
    assert.equal(hits[0], 2);
  });

  it('matches a phrase exactly across removed stop words', () => {
    assert.deepEqual(search('"state of the art"'), [4]);
    assert.deepEqual(search('"art of state"'), [5]);
    assert.deepEqual(search('e-mail'), [6]);
    assert.deepEqual(search('"http/1.1"'), [6]);
  });

  it('scopes to a class, and truncates', () => {
    assert.deepEqual(search('t:antony'), [3]);
    assert.deepEqual(search('t:protoc*'), [4]);
    assert.deepEqual(sorted(search('rout* manag*')), [4, 5]);
  });

  it('matches any word of a bracket', () => {
    assert.deepEqual(sorted(search('[salad travel]')), [1, 2, 7]);
    assert.deepEqual(sorted(search('+[salad travel] -guide')), [1, 7]);
  });
});
