import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { GenerationReader } from '../../src/index/generation/generation-reader.js';
import {
  writeGeneration,
  type GenerationSource,
  type PostingsData,
} from '../../src/index/generation/generation-writer.js';
import { TERMS_PER_BLOCK } from '../../src/index/generation/generation-files.js';
import { TermProbes } from '../../src/index/generation/term-probes.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';

/**
 * Term lookups (the dictionary's blocks read as UTF-8 bytes) against the dictionary's terms
 * decoded one by one (`terms()`, as merges read them): the same entry, or none, for every term
 * asked, present or not, across block boundaries, multi-byte characters, characters at and
 * above U+E000 and past U+FFFF (whose UTF-8 order is not the dictionary's UTF-16 order), and
 * lone surrogates; `probeDocFreq` ("did you mean") the same docFreq, and `probeDocFreqs` (many
 * terms looked up together in one pass) the same docFreqs.
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

/** `probeDocFreqs` of `terms` (in their order, duplicates included), added to a start of 0. */
function batchDocFreqs(reader: GenerationReader, field: string, terms: readonly string[]): number[] {
  const probes = new TermProbes(terms);
  const found = new Int32Array(probes.terms.length);
  reader.probeDocFreqs(field, probes, found);
  return terms.map((_, i) => found[probes.slotOf[i]!]!);
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
          assert.deepEqual(
            batchDocFreqs(probed, 'body', probes),
            probes.map((probe) => entries.get(probe)?.docFreq ?? 0),
            'probed together',
          );
          assert.deepEqual(
            batchDocFreqs(probed, 'title', terms),
            terms.map(() => 0),
          );
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

  it('looks many terms up together: block edges, outside the dictionary, non-ASCII, lone surrogates, duplicates', () => {
    const terms = Array.from({ length: 2000 }, (_, i) => `t${i.toString(36)}${['é', '中', '😀'][i % 3]}`);
    const { probed } = dictionaryOf(terms);
    const sorted = [...new Set(terms)].sort();
    const dfOf = (term: string) => {
      const i = sorted.indexOf(term);
      return i < 0 ? 0 : 1 + (i % MAX_DOC_FREQ);
    };
    const firsts = sorted.filter((_, i) => i % TERMS_PER_BLOCK === 0);
    const lasts = sorted.filter(
      (_, i) => i % TERMS_PER_BLOCK === TERMS_PER_BLOCK - 1 || i === sorted.length - 1,
    );
    const asked = [
      ...firsts,
      ...lasts,
      // Absent: before the first term, after the last, just before and after a block's first term.
      '',
      'a',
      't',
      'zzz',
      '\uffff',
      '😀',
      ...firsts.map((term) => term.slice(0, -1)),
      ...firsts.map((term) => term + 'a'),
      ...lasts.map((term) => term + '\ue000'),
      // Absent just before a term in the middle of a block (the pass stops at that term, which the next probe finds).
      ...sorted.filter((_, i) => i % 7 === 3).map((term) => term.slice(0, -1)),
      // Lone surrogates, alone and after a present term.
      '\ud83d',
      `${sorted[5]!}\udc00`,
      // Present terms ending past U+FFFF, and the same term several times.
      ...sorted.filter((term) => term.endsWith('😀')).slice(0, 50),
      sorted[100]!,
      sorted[100]!,
      sorted[1999]!,
    ];
    const expected = asked.map(dfOf);
    assert.ok(expected.filter((df) => df > 0).length > 150);
    assert.deepEqual(batchDocFreqs(probed, 'body', asked), expected);
    // Any order in, the same answers; and as asked one by one.
    assert.deepEqual(batchDocFreqs(probed, 'body', [...asked].reverse()), [...expected].reverse());
    assert.deepEqual(
      asked.map((term) => probed.probeDocFreq('body', term)),
      expected,
    );
  });

  it('adds to the docFreqs it is given (one array summed over generations)', () => {
    const { probed } = dictionaryOf(['apple', 'banana', 'cherry']);
    const probes = new TermProbes(['cherry', 'apple', 'durian']);
    assert.deepEqual(probes.terms, ['apple', 'cherry', 'durian']);
    const found = new Int32Array([10, 20, 30]);
    probed.probeDocFreqs('body', probes, found);
    probed.probeDocFreqs('body', probes, found);
    // apple is the first term (docFreq 1), cherry the third (3).
    assert.deepEqual([...found], [12, 26, 30]);
  });
});
