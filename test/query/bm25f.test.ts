import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { executeQuery } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { MemoryGeneration } from '../support/memory-generation.js';

// Three documents, default scoring (k1 1.2; body w1 b.75, t w2.5 b.4, k w1.5 b.3).
// N = 3; avgLen body = 9/3 = 3; t = max(1, 1/3) = 1; k = max(1, 1/3) = 1.
const gen = new MemoryGeneration([
  { fields: { body: ['x', 'y', 'x'], t: ['x'] } },
  { fields: { body: ['y', 'z'] } },
  { fields: { body: ['z', 'z', 'z', 'z'], k: ['x'] } },
]);

function scores(query: Query): Map<number, number> {
  const { hits } = executeQuery([gen], query, { k: 10 });
  return new Map(hits.map((h) => [h.docId, h.score]));
}

function close(actual: number | undefined, expected: number): void {
  assert.ok(actual !== undefined, 'document missing from hits');
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} != ${expected}`);
}

describe('BM25F against a hand computation', () => {
  it('combines field frequencies of an unscoped term before saturation', () => {
    // x: df = max(1, 1, 1) = 1 → idf = ln(1 + 2.5/1.5) = ln(8/3).
    // doc0: body 2/(.25+.75*3/3) = 2; t 2.5 * 1/(.6+.4*1/1) = 2.5 → S = 4.5.
    // doc2: k 1.5 * 1/(.7+.3*1/1) = 1.5 → S = 1.5.
    const idf = Math.log(8 / 3);
    const s = scores({ kind: 'term', term: 'x' });
    assert.equal(s.size, 2);
    close(s.get(0), (idf * 4.5 * 2.2) / (1.2 + 4.5));
    close(s.get(2), (idf * 1.5 * 2.2) / (1.2 + 1.5));
  });

  it('scores a scoped term on its field only, with the field weight', () => {
    // body:z: df 2 → idf ln(1 + 1.5/2.5) = ln 1.6.
    // doc1: 1/(.25+.75*2/3) = 4/3; doc2: 4/(.25+.75*4/3) = 3.2.
    const idf = Math.log(1.6);
    const s = scores({ kind: 'term', field: 'body', term: 'z' });
    close(s.get(1), (idf * (4 / 3) * 2.2) / (1.2 + 4 / 3));
    close(s.get(2), (idf * 3.2 * 2.2) / (1.2 + 3.2));
    // t:x: weight 2.5, df 1 → ln(8/3); doc0: 2.5 * 1/(.6+.4) = 2.5.
    const t = scores({ kind: 'term', field: 't', term: 'x' });
    assert.deepEqual([...t.keys()], [0]);
    close(t.get(0), (Math.log(8 / 3) * 2.5 * 2.2) / (1.2 + 2.5));
  });

  it('scores a phrase as a pseudo-term with the sum of its terms idf', () => {
    // "x y" occurs once in doc0's body (len 3): S = 1; idf = ln(8/3) + ln(1.6) (y: df 2).
    const idf = Math.log(8 / 3) + Math.log(1.6);
    const s = scores({ kind: 'phrase', terms: ['x', 'y'] });
    assert.deepEqual([...s.keys()], [0]);
    close(s.get(0), (idf * 1 * 2.2) / (1.2 + 1));
  });

  it('scores a prefix as one pseudo-term over its expansions', () => {
    // y* = {y}: same as the term. z* = {z}. Prefix "" over body,t,k = {x, y, z}:
    // df = min(3, 1 + 2 + 2) = 3 → idf ln(1 + 0.5/3.5) = ln(8/7).
    // doc1: body tf 2 (y, z), len 2 → 2/(.25+.5) = 8/3.
    const idf = Math.log(8 / 7);
    const s = scores({ kind: 'prefix', prefix: '' });
    assert.equal(s.size, 3);
    close(s.get(1), (idf * (8 / 3) * 2.2) / (1.2 + 8 / 3));
  });

  it('multiplies by boosts and adds clause scores', () => {
    const x = scores({ kind: 'term', term: 'x' });
    const z = scores({ kind: 'term', term: 'z' });
    const s = scores({
      kind: 'bool',
      should: [
        { kind: 'boost', boost: 2, query: { kind: 'term', term: 'x' } },
        { kind: 'term', term: 'z' },
      ],
    });
    close(s.get(0), 2 * x.get(0)!);
    close(s.get(2), 2 * x.get(2)! + z.get(2)!);
  });

  it('uses the scoring options given', () => {
    // k1 = 0: no frequency effect, every match scores idf.
    const { hits } = executeQuery(
      [gen],
      { kind: 'term', field: 'body', term: 'z' },
      { k: 10, scoring: { k1: 0 } },
    );
    assert.equal(hits.length, 2);
    for (const h of hits) close(h.score, Math.log(1.6));
    // b = 0 on body: no length normalisation; weight 3.
    const r = executeQuery(
      [gen],
      { kind: 'term', field: 'body', term: 'z' },
      {
        k: 10,
        scoring: { fields: { body: { b: 0, weight: 3 } } },
      },
    );
    const byDoc = new Map(r.hits.map((h) => [h.docId, h.score]));
    close(byDoc.get(1), (Math.log(1.6) * 3 * 2.2) / (1.2 + 3));
    close(byDoc.get(2), (Math.log(1.6) * 12 * 2.2) / (1.2 + 12));
  });
});
