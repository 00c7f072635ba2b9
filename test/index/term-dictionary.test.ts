import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { GenerationReader } from '../../src/index/generation/generation-reader.js';
import {
  writeGeneration,
  type GenerationSource,
  type PostingsData,
} from '../../src/index/generation/generation-writer.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';

/**
 * Term lookups (the dictionary's blocks read as UTF-8 bytes) against the dictionary's terms
 * decoded one by one (`terms()`, as merges read them): the same entry, or none, for every term
 * asked, present or not, across block boundaries, multi-byte characters, characters at and
 * above U+E000 and past U+FFFF (whose UTF-8 order is not the dictionary's UTF-16 order), and
 * lone surrogates; `probeDocFreq` ("did you mean") the same docFreq.
 */

/** Characters of 1 to 4 UTF-8 bytes, around the places where byte order and UTF-16 order part. */
const CHARACTERS = ['a', 'b', 'z', 'é', 'ÿ', '中', '\ud7ff', '\ue000', '\uffff', '\ufffd', '😀', '𝄞'];
const MAX_DOC_FREQ = 7;

/** Two readers of one dictionary: one probed, one asked (its term cache never serves the probes). */
function dictionaryOf(terms: readonly string[]): { probed: GenerationReader; asked: GenerationReader } {
  const sorted = [...new Set(terms)].sort();
  const dir = new MemoryDirectory();
  const source: GenerationSource = {
    docCount: MAX_DOC_FREQ,
    fields: [
      {
        name: 'body',
        positions: false,
        lengths: null,
        sumLength: 0,
        docCount: MAX_DOC_FREQ,
        terms: () =>
          sorted.map((term, i): [string, PostingsData] => {
            const df = 1 + (i % MAX_DOC_FREQ);
            const docs = Array.from({ length: df }, (_, d) => d);
            return [term, { count: df, docs, freqs: docs.map(() => 1), positions: null }];
          }),
      },
    ],
    numbers: [],
    storedBlocks: () => [],
  };
  writeGeneration(dir, 1, source);
  return { probed: GenerationReader.open(dir, 1, {}), asked: GenerationReader.open(dir, 1, {}) };
}

/** Terms near `term`: itself, one character more or less, its last character changed. */
function neighbours(term: string): string[] {
  const near = [term, term.slice(0, -1), term + 'a', term + '\uffff', term + '😀', 'a' + term];
  for (const c of CHARACTERS) near.push(term.slice(0, -1) + c);
  return near;
}

const termOf = fc
  .array(fc.constantFrom(...CHARACTERS), { minLength: 1, maxLength: 6 })
  .map((chars) => chars.join(''));

describe('term lookups', () => {
  it('find the entry the dictionary holds for every term asked, present or absent', () => {
    fc.assert(
      fc.property(
        fc.array(termOf, { minLength: 1, maxLength: 300 }),
        fc.array(termOf, { maxLength: 40 }),
        (terms, others) => {
          const { probed, asked } = dictionaryOf(terms);
          // The dictionary's own entries, decoded term by term.
          const entries = new Map(asked.terms('body'));
          const probes = [...terms, ...others].flatMap(neighbours);
          // Lone surrogates (no dictionary term holds one) and a term past every other.
          probes.push('\ud800', 'a\udc00', '\ud83d', '\uffff\uffff\uffff\uffff\uffff\uffff\uffff');
          for (const probe of probes) {
            const expected = entries.get(probe);
            assert.deepEqual(asked.termInfo('body', probe), expected, `lookup ${JSON.stringify(probe)}`);
            assert.equal(
              probed.probeDocFreq('body', probe),
              expected?.docFreq ?? 0,
              `probe ${JSON.stringify(probe)}`,
            );
          }
          assert.equal(probed.probeDocFreq('title', terms[0]!), 0);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('finds every term of a large dictionary with its own docFreq', () => {
    const terms = Array.from({ length: 2000 }, (_, i) => `t${i.toString(36)}${['é', '中', '😀'][i % 3]}`);
    const { probed } = dictionaryOf(terms);
    const sorted = [...terms].sort();
    sorted.forEach((term, i) => assert.equal(probed.probeDocFreq('body', term), 1 + (i % MAX_DOC_FREQ)));
    assert.equal(probed.probeDocFreq('body', 'tzzzz'), 0);
  });
});
