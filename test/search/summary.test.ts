import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Analyzer } from '../../src/index/analysis/analyzer.js';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import { escapeHtml } from '../../src/escape-html.js';
import { buildSummary } from '../../src/search/summary.js';

/**
 * The summary as first written (every token of the text analysed into objects, each window
 * counted with a Set): the definition the single-pass version must answer exactly alike.
 */
function referenceSummary(
  text: string,
  analyzer: Analyzer,
  queryTerms: ReadonlySet<string>,
  maxChars = 260,
): string {
  const scanned = text.length > 20_000 ? text.slice(0, 20_000) : text;
  const tokens = analyzer.tokens(scanned);
  const hits = tokens.map((t) => queryTerms.has(t.term));
  let best = 0;
  let bestDistinct = -1;
  let bestTotal = -1;
  for (let start = 0; start < tokens.length; start++) {
    if (!hits[start] && start !== 0) continue;
    const seen = new Set<string>();
    let total = 0;
    const end = Math.min(tokens.length, start + 32);
    for (let i = start; i < end; i++) {
      if (hits[i]) {
        seen.add(tokens[i]!.term);
        total++;
      }
    }
    if (seen.size > bestDistinct || (seen.size === bestDistinct && total > bestTotal)) {
      best = start;
      bestDistinct = seen.size;
      bestTotal = total;
    }
  }
  let from = tokens.length === 0 ? 0 : tokens[best]!.start;
  if (best > 0) {
    const lead = tokens[Math.max(0, best - 4)]!.start;
    const sentence = scanned.lastIndexOf('. ', from);
    from = sentence >= 0 && from - sentence < 80 ? sentence + 2 : lead;
  }
  let to = Math.min(scanned.length, from + maxChars);
  if (to < scanned.length) {
    const space = scanned.lastIndexOf(' ', to);
    if (space > from + maxChars / 2) to = space;
  }
  const collapse = (s: string) => s.replace(/\s+/g, ' ');
  const parts: string[] = [];
  if (from > 0) parts.push('… ');
  let at = from;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.start < from || token.end > to || !hits[i]) continue;
    parts.push(
      escapeHtml(collapse(scanned.slice(at, token.start))),
      '<b>',
      escapeHtml(scanned.slice(token.start, token.end)),
      '</b>',
    );
    at = token.end;
  }
  parts.push(escapeHtml(collapse(scanned.slice(at, to))));
  if (to < text.length) parts.push(' …');
  return parts.join('').trim();
}

/** A deterministic pseudo-random source (tests must be repeatable). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = [
  'the',
  'of',
  'and',
  'a',
  'to',
  'in',
  'is',
  'protocol',
  'Protocols',
  'PROTOCOL',
  'network',
  'networking',
  'congestion',
  'window',
  'windows',
  'retransmission',
  'timeout',
  'TCP',
  'tcp/ip',
  'héllo',
  'Straße',
  "don't",
  'RFC',
  '2616',
  '3.14',
  'x'.repeat(140),
  'data',
  'packets',
  'packet',
  'control',
  'controlled',
  'routing',
  'ROUTER',
  'é',
  '<b>',
  '&amp;',
  'a"b',
  'security',
];
const PUNCTUATION = [' ', ' ', ' ', '  ', '\n', '\n\n   ', '. ', ', ', '; ', ' (', ') ', '. \n'];

/** A text of `words` words from {@link WORDS}, with spaces, line breaks and sentences. */
function textOf(next: () => number, words: number): string {
  let text = '';
  for (let i = 0; i < words; i++)
    text += WORDS[Math.floor(next() * WORDS.length)]! + PUNCTUATION[Math.floor(next() * PUNCTUATION.length)]!;
  return text;
}

describe('buildSummary', () => {
  const analyzers: [string, Analyzer][] = [
    ['stemming, stop words', createAnalyzer({ stem: true, stopWords: true })],
    ['plain', createAnalyzer({})],
  ];
  for (const [name, analyzer] of analyzers) {
    it(`answers as the reference summary on generated texts (${name})`, () => {
      const next = random(name.length * 7919);
      for (let sample = 0; sample < 400; sample++) {
        // Short texts, page-sized ones and some past the 20,000 characters scanned.
        const words = sample % 20 === 0 ? 5000 : Math.floor(next() * 600);
        const text = textOf(next, words);
        const queryWords = Array.from(
          { length: 1 + Math.floor(next() * 3) },
          () => WORDS[Math.floor(next() * WORDS.length)]!,
        );
        const queryTerms = new Set(queryWords.flatMap((w) => analyzer.terms(w)));
        const maxChars = sample % 7 === 0 ? 80 : 260;
        assert.equal(
          buildSummary(text, analyzer, queryTerms, maxChars),
          referenceSummary(text, analyzer, queryTerms, maxChars),
          `text ${sample} (${words} words), query ${JSON.stringify(queryWords)}`,
        );
      }
    });
  }

  it('highlights every matched word of the best passage and escapes the text', () => {
    const analyzer = createAnalyzer({ stem: true, stopWords: true });
    const text =
      'An introduction that says nothing. '.repeat(30) +
      'Congestion control of the <TCP> protocol: a congested window shrinks. ' +
      'Filler words again and again. '.repeat(30);
    const summary = buildSummary(text, analyzer, new Set(analyzer.terms('congestion window')));
    assert.match(summary, /^… <b>Congestion<\/b> control/);
    assert.match(
      summary,
      /<b>Congestion<\/b> control of the &lt;TCP&gt; protocol: a <b>congested<\/b> <b>window<\/b>/,
    );
    assert.ok(summary.endsWith(' …'));
  });

  it('starts at the text when no query term occurs, and is empty for an empty text', () => {
    const analyzer = createAnalyzer({});
    assert.equal(buildSummary('First words here.', analyzer, new Set(['absent'])), 'First words here.');
    assert.equal(buildSummary('', analyzer, new Set(['absent'])), '');
  });
});
