import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  collapseWhitespace,
  lineBreaksToSpaces,
  normalizeBodyText,
  normalizeNewlines,
} from '../../src/collection/filters/normalize-whitespace.js';
import { TextAccumulator } from '../../src/collection/filters/text-accumulator.js';

// Whitespace-heavy strings, with every kind of JavaScript whitespace.
const spacey = fc
  .array(
    fc.constantFrom(
      'a',
      'bc',
      ' ',
      '  ',
      '\n',
      '\r',
      '\r\n',
      '\t',
      '\u00a0',
      '\u2003',
      '\u3000',
      '\ufeff',
      'é',
    ),
    {
      maxLength: 40,
    },
  )
  .map((parts) => parts.join(''));

describe('whitespace normalisation (against the regex it replaces)', () => {
  it('collapseWhitespace = replace(/\\s+/g, " ").trim()', () => {
    fc.assert(fc.property(spacey, (s) => assert.equal(collapseWhitespace(s), s.replace(/\s+/g, ' ').trim())));
  });

  it('normalizeBodyText keeps one \\n per run that has a line break, one space otherwise; trimmed', () => {
    const oracle = (s: string) =>
      s
        .replace(/[^\S\n]+/g, ' ')
        .replace(/ ?\n[\n ]*/g, '\n')
        .trim();
    fc.assert(fc.property(spacey, (s) => assert.equal(normalizeBodyText(s), oracle(s))));
  });

  it('normalizeNewlines makes CRLF and CR into LF', () => {
    fc.assert(fc.property(spacey, (s) => assert.equal(normalizeNewlines(s), s.replace(/\r\n?/g, '\n'))));
  });

  it('lineBreaksToSpaces makes every CR and LF a space', () => {
    fc.assert(fc.property(spacey, (s) => assert.equal(lineBreaksToSpaces(s), s.replace(/[\r\n]/g, ' '))));
  });
});

describe('TextAccumulator', () => {
  it('gives back the concatenation, and any suffix by offset, across its internal flushes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 10_000 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (pieces, probes) => {
          const acc = new TextAccumulator();
          let naive = '';
          const offsets: number[] = [];
          for (const piece of pieces) {
            offsets.push(acc.length);
            acc.push(piece);
            naive += piece;
            assert.equal(acc.length, naive.length);
          }
          for (const probe of probes) {
            const from = offsets.length === 0 ? 0 : offsets[probe % offsets.length];
            assert.equal(acc.slice(from), naive.slice(from));
            assert.equal(acc.slice(probe % (naive.length + 1)), naive.slice(probe % (naive.length + 1)));
          }
          assert.equal(acc.toString(), naive);
          assert.equal(acc.slice(0), naive);
        },
      ),
      { numRuns: 200 },
    );
  });
});
