import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { executeQuery } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { MemoryGeneration, type MemoryDocument } from '../support/memory-generation.js';

/**
 * Phrases in two phases (`PhraseScorer`): once the top k is full, a document holding every
 * term of the phrase is dismissed without reading positions when its score, with the phrase
 * frequency bounded by its rarest term's, cannot compete. The results must not change.
 *
 * 20,000 documents of the same length: "new york" once in each, except one "strong" document
 * per block of 128 with the phrase three times (so every block's bounds stay competitive
 * and only the per-document bound can dismiss documents), and every 7th document holds both
 * words apart (a candidate that is not a match).
 */
const N = 20_000;
const BLOCK = 128;
const docs: MemoryDocument[] = [];
for (let i = 0; i < N; i++) {
  let body: string[];
  if (i % BLOCK === 64) body = ['new', 'york', 'new', 'york', 'new', 'york', 'w', 'w'];
  else if (i % 7 === 3) body = ['york', 'w', 'new', 'w', 'w', 'w', 'w', 'w'];
  else body = ['new', 'york', 'w', 'w', 'w', 'w', 'w', 'w'];
  docs.push({ fields: { body, t: i % 1000 === 0 ? ['new', 'york', 'times'] : ['w'] } });
}
const gen = new MemoryGeneration(docs, { blockSize: BLOCK });
const phrase: Query = { kind: 'phrase', terms: ['new', 'york'] };

describe('phrase pruning', () => {
  it('returns the exhaustive top k while scoring far fewer documents than match', () => {
    const exhaustive = executeQuery([gen], phrase, { k: 10, exhaustive: true });
    const pruned = executeQuery([gen], phrase, { k: 10 });
    assert.deepEqual(pruned.hits, exhaustive.hits);
    const hasPhrase = (words: string[] | undefined) =>
      (words ?? []).some((w, i) => w === 'new' && words![i + 1] === 'york');
    const matches = docs.filter((doc) => hasPhrase(doc.fields.body) || hasPhrase(doc.fields.t)).length;
    assert.equal(exhaustive.totalHits, matches);
    // The first 1,001 matches are counted (the default totalHitsThreshold), then only the
    // strong documents can compete: one per block, the others are dismissed on their bound.
    assert.ok(
      pruned.counters.docsScored <= 1_001 + Math.ceil(N / BLOCK),
      `scored ${pruned.counters.docsScored}`,
    );
    assert.equal(pruned.totalHitsExact, false);
  });

  it('stays exact across generations, for any k and threshold', () => {
    const first = new MemoryGeneration(docs.slice(0, N / 2), { blockSize: BLOCK });
    const second = new MemoryGeneration(docs.slice(N / 2), { blockSize: 16, killed: [0, 64, 500] });
    for (const k of [1, 10, 200]) {
      for (const totalHitsThreshold of [0, 10, 1000]) {
        const exhaustive = executeQuery([first, second], phrase, { k, exhaustive: true });
        const pruned = executeQuery([first, second], phrase, { k, totalHitsThreshold });
        assert.deepEqual(pruned.hits, exhaustive.hits, `k ${k}, threshold ${totalHitsThreshold}`);
      }
    }
  });
});
