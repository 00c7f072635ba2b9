import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import {
  ASCII_PAIR_STEP,
  ASCII_STEP,
  asciiStartsExactly,
  asciiTokenEnd,
  forEachAsciiToken,
  SECOND_TOKEN_START,
  TOKEN_START,
} from '../../src/search/ascii-tokens.js';
import { seededRandom } from '../support/seeded-random.js';

// Words where the scanner's joiners decide what a token is, and long tokens.
const WORDS = [
  "don't",
  "DON'T",
  "a'1",
  "1'a",
  "a''b",
  "it's'",
  '3.14',
  '1.2.3',
  '1..2',
  'v1.2',
  'x.y',
  '1.',
  '.5',
  'a.1',
  "'quoted'",
  'Protocol',
  'TCP/IP',
  'under_score',
  'x'.repeat(7),
  'y'.repeat(140),
];
const GAPS = [' ', ' ', '. ', '.', "'", '-', '/', '\n', ' '.repeat(40), '', '"', '<', '~'];

function textOf(next: () => number): string {
  let text = '';
  const words = Math.floor(next() * 300);
  for (let i = 0; i < words; i++)
    text += WORDS[Math.floor(next() * WORDS.length)]! + GAPS[Math.floor(next() * GAPS.length)]!;
  return text;
}

interface Reported {
  start: number;
  end: number;
  kind: number;
  hash: number;
}

describe('ASCII tokens', () => {
  const analyzer = createAnalyzer({});
  const analyzerTokens = (text: string): Reported[] => {
    const out: Reported[] = [];
    analyzer.forEachToken(text, 0, {
      token: (_text, start, end, kind, hash) => out.push({ start, end, kind, hash }),
    });
    return out;
  };

  it('reports the tokens, kinds and spelling hashes the analyzer reports', () => {
    const next = seededRandom(7);
    for (let sample = 0; sample < 300; sample++) {
      const text = textOf(next);
      const ours: Reported[] = [];
      forEachAsciiToken(text, 0, text.length, {
        token: (_text, start, end, kind, hash) => ours.push({ start, end, kind, hash }),
      });
      assert.deepEqual(ours, analyzerTokens(text), `text ${sample}: ${JSON.stringify(text.slice(0, 200))}`);
    }
  });

  it('steps two characters at a time as it steps one at a time, from every state, for every pair', () => {
    for (let state = 0; state < 5; state++)
      for (let c0 = 0; c0 < 128; c0++)
        for (let c1 = 0; c1 < 128; c1++) {
          const first = ASCII_STEP[(state << 7) | c0]!;
          const second = ASCII_STEP[((first & 7) << 7) | c1]!;
          const pair = ASCII_PAIR_STEP[(state << 14) | (c0 << 7) | c1]!;
          const where = `state ${state}, ${c0} ${c1}`;
          assert.equal(pair & 7, second & 7, where);
          assert.equal((pair & TOKEN_START) !== 0, first >= TOKEN_START, where);
          assert.equal((pair & SECOND_TOKEN_START) !== 0, second >= TOKEN_START, where);
        }
  });

  it('finds where tokens start and end, and leaves out the tokens longer than kept', () => {
    const next = seededRandom(11);
    for (let sample = 0; sample < 300; sample++) {
      const text = textOf(next);
      const tokens = analyzerTokens(text);
      // The table, one character at a time: a start where it says so.
      const starts: number[] = [];
      let state = 0;
      for (let i = 0; i < text.length; i++) {
        state = ASCII_STEP[(state << 7) | text.charCodeAt(i)]!;
        if (state >= TOKEN_START) starts.push(i);
        state &= 7;
      }
      assert.deepEqual(
        starts,
        tokens.map((t) => t.start),
        `text ${sample}`,
      );
      for (const t of tokens) assert.equal(asciiTokenEnd(text, t.start, text.length), t.end);
      for (const maxLength of [6, 128]) {
        const out = new Int32Array(text.length + 2);
        const count = asciiStartsExactly(text, 0, text.length, maxLength, out, 1);
        assert.deepEqual(
          [...out.subarray(1, count)],
          tokens.filter((t) => t.end - t.start <= maxLength).map((t) => t.start),
          `text ${sample}, tokens up to ${maxLength}`,
        );
      }
    }
  });
});
