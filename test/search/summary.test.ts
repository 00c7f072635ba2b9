import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Analyzer } from '../../src/index/analysis/analyzer.js';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import { escapeHtml } from '../../src/escape-html.js';
import { buildSummary, Summarizer, SUMMARY_TEXT_CHARS } from '../../src/search/summary.js';
import { seededRandom } from '../support/seeded-random.js';

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
      const next = seededRandom(name.length * 7919);
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

  // Spellings whose term a plain search of the text would miss, or find where it is not.
  const TRICKY = [
    "don't",
    "DON'T",
    'dont',
    "o'clock",
    "protocol's",
    "a'1",
    "1'a",
    'Ｐｒｏｔｏｃｏｌ',
    'protocól',
    'protocol',
    'xprotocol',
    'ﬁle',
    'file',
    'happy',
    'happiness',
    'happi',
    'possibility',
    'possible',
    'relational',
    'relate',
    'hoping',
    'hope',
    'be',
    'bed',
    'e',
    '日本語のテキスト',
    'テキスト',
    'café',
    'CAFÉ',
    'Straße',
    'strasse',
    '3.14',
    'v1.2',
    'x.y',
    "'quoted'",
    'the',
    'a',
    'y'.repeat(9),
  ];
  const GAPS = [' ', ' ', ' ', '. ', ', ', '-', '/', ' '.repeat(300), '\n\n\n   ', '.', "'"];

  it('answers as the reference summary where a plain search of the text cannot see a term', () => {
    const tricky: [string, Analyzer][] = [
      ['stemming', createAnalyzer({ stem: true })],
      ['stemming, stop words', createAnalyzer({ stem: true, stopWords: true })],
      ['no folding', createAnalyzer({ caseFold: false, foldDiacritics: false })],
      // Tokens longer than 6 characters are dropped: counting must skip them.
      ['tokens up to 6', createAnalyzer({ stem: true, maxTokenLength: 6 })],
    ];
    for (const [name, analyzer] of tricky) {
      const next = seededRandom(name.length * 104729);
      for (let sample = 0; sample < 300; sample++) {
        const words = sample % 25 === 0 ? 3000 : Math.floor(next() * 400);
        let text = '';
        for (let i = 0; i < words; i++)
          text += TRICKY[Math.floor(next() * TRICKY.length)]! + GAPS[Math.floor(next() * GAPS.length)]!;
        if (sample % 3 === 0) text = text.trimEnd();
        const queryWords = Array.from(
          { length: 1 + Math.floor(next() * 3) },
          () => TRICKY[Math.floor(next() * TRICKY.length)]!,
        );
        const queryTerms = new Set(queryWords.flatMap((w) => analyzer.terms(w)));
        assert.equal(
          buildSummary(text, analyzer, queryTerms),
          referenceSummary(text, analyzer, queryTerms),
          `${name}: text ${sample} (${words} words), query ${JSON.stringify(queryWords)}`,
        );
      }
    }
  });

  // ASCII words where the scanner's joiners decide what a token is, and overlong tokens.
  const ASCII_WORDS = [
    "don't",
    "DON'T",
    "a'1",
    "1'a",
    "a''b",
    "it's",
    '3.14',
    '1.2.3',
    '1..2',
    'v1.2',
    'x.y',
    '1.',
    '.5',
    'a.1',
    "'quoted'",
    'protocol',
    'Protocols',
    'window',
    'the',
    'x'.repeat(7),
    'y'.repeat(140),
  ];
  const ASCII_GAPS = [' ', ' ', ' ', '. ', '.', "'", '-', '/', '\n', ' '.repeat(200), ''];

  it('counts the words of an ASCII text as the analyzer does (joiners, overlong tokens)', () => {
    const ascii: [string, Analyzer][] = [
      ['plain', createAnalyzer({})],
      ['stemming', createAnalyzer({ stem: true })],
      ['tokens up to 6', createAnalyzer({ stem: true, maxTokenLength: 6 })],
      ['no folding', createAnalyzer({ caseFold: false, foldDiacritics: false })],
    ];
    for (const [name, analyzer] of ascii) {
      const next = seededRandom(name.length * 15485863);
      for (let sample = 0; sample < 300; sample++) {
        const words = sample % 25 === 0 ? 3000 : Math.floor(next() * 400);
        let text = '';
        for (let i = 0; i < words; i++)
          text +=
            ASCII_WORDS[Math.floor(next() * ASCII_WORDS.length)]! +
            ASCII_GAPS[Math.floor(next() * ASCII_GAPS.length)]!;
        const queryWords = Array.from(
          { length: 1 + Math.floor(next() * 3) },
          () => ASCII_WORDS[Math.floor(next() * ASCII_WORDS.length)]!,
        );
        const queryTerms = new Set(queryWords.flatMap((w) => analyzer.terms(w)));
        assert.equal(
          buildSummary(text, analyzer, queryTerms, 120),
          referenceSummary(text, analyzer, queryTerms, 120),
          `${name}: text ${sample} (${words} words), query ${JSON.stringify(queryWords)}`,
        );
      }
    }
  });

  it('highlights spellings found only by analysis: apostrophes, full-width letters, stems', () => {
    const analyzer = createAnalyzer({ stem: true });
    const terms = (q: string) => new Set(analyzer.terms(q));
    assert.equal(
      buildSummary("Servers don't wait.", analyzer, terms('dont')),
      'Servers <b>don&#39;t</b> wait.',
    );
    assert.equal(
      buildSummary('See Ｐｒｏｔｏｃｏｌｓ.', analyzer, terms('protocol')),
      'See <b>Ｐｒｏｔｏｃｏｌｓ</b>.',
    );
    assert.equal(
      buildSummary('A possibility, HAPPY days.', analyzer, terms('possible happy')),
      'A <b>possibility</b>, <b>HAPPY</b> days.',
    );
    // Inside a longer word a term is no match.
    assert.equal(buildSummary('xprotocol protocolx', analyzer, terms('protocol')), 'xprotocol protocolx');
  });

  it('matches at the text’s very start and end, and not across the 20,000 characters scanned', () => {
    const analyzer = createAnalyzer({ stem: true });
    const queryTerms = new Set(analyzer.terms('protocol'));
    const check = (text: string) =>
      assert.equal(buildSummary(text, analyzer, queryTerms), referenceSummary(text, analyzer, queryTerms));
    check('protocol');
    check('protocol and more words');
    check('words and then protocol');
    check('words'.repeat(3) + ' protocol');
    const filler = 'word '.repeat(4000); // 20,000 characters
    // A match cut in two by the end of the scan is no match; one ending there is.
    for (const shift of [0, 3, 4, 8, 9, 12]) {
      const text = filler.slice(0, 20_000 - shift) + 'protocol and beyond';
      check(text);
    }
    const cut = buildSummary(filler.slice(0, 19_995) + 'protocol', analyzer, queryTerms);
    assert.ok(!cut.includes('<b>'), cut);
    const whole = buildSummary(filler.slice(0, 19_990) + '. protocol', analyzer, queryTerms);
    assert.ok(whole.includes('<b>protocol</b>'), whole);
  });

  it('depends on the first SUMMARY_TEXT_CHARS characters only: a text cut there has the same summary', () => {
    // A search decodes only that much of a stored text (see run-search.ts): the summary must
    // not change, at the text's end (`…` or not) nor with a match at the end of the scan.
    const analyzer = createAnalyzer({ stem: true });
    const queryTerms = new Set(analyzer.terms('protocol'));
    const filler = 'word '.repeat(4000); // 20,000 characters
    const texts = [
      filler,
      filler + 'x',
      filler.slice(0, 19_999) + 'x',
      filler + ' protocol',
      filler.slice(0, 19_992) + 'protocol and on',
      filler.slice(0, 19_991) + 'protocol',
      'protocol ' + filler + ' protocol protocol',
      filler.slice(0, 19_000) + 'protocol '.repeat(300),
    ];
    for (const text of texts) {
      const whole = buildSummary(text, analyzer, queryTerms);
      assert.equal(buildSummary(text.slice(0, SUMMARY_TEXT_CHARS), analyzer, queryTerms), whole);
      assert.equal(whole, referenceSummary(text, analyzer, queryTerms));
    }
    // The one character past the scan is what tells a text that goes on from one that ends
    // there, when the passage reaches the end of the scan.
    const ending = filler.slice(0, 19_990) + ' protocol ';
    assert.equal(ending.length, 20_000);
    assert.ok(!buildSummary(ending, analyzer, queryTerms).endsWith('…'));
    for (const more of ['x', 'xyz']) {
      const summary = buildSummary(ending + more, analyzer, queryTerms);
      assert.match(summary, /<b>protocol<\/b>\s+…$/);
      assert.equal(buildSummary((ending + more).slice(0, SUMMARY_TEXT_CHARS), analyzer, queryTerms), summary);
    }
  });

  it('counts a window’s 32 words across long runs of white space, from the first word or a match', () => {
    const analyzer = createAnalyzer({ stem: true });
    const queryTerms = new Set(analyzer.terms('alpha beta'));
    const word = (i: number) => `w${i}` + ' '.repeat(i % 5 === 0 ? 200 : 1);
    // Matches `between` words apart, after `before` words: the window at the first word holds
    // both matches exactly when the second is among the first 32 words.
    for (const before of [0, 1, 3, 4, 5, 20]) {
      for (const between of [1, 27, 28, 30, 31, 32, 33, 40]) {
        let text = '';
        for (let i = 0; i < before; i++) text += word(i);
        text += 'alpha ';
        for (let i = 0; i < between - 1; i++) text += word(100 + i);
        text += 'beta ';
        for (let i = 0; i < 40; i++) text += word(200 + i);
        assert.equal(
          buildSummary(text, analyzer, queryTerms, 4000),
          referenceSummary(text, analyzer, queryTerms, 4000),
          `${before} words, alpha, ${between} words, beta`,
        );
      }
    }
  });

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

  it('collapses every kind of white space and escapes every character as the reference does', () => {
    const analyzer = createAnalyzer({});
    // No match: the summary is the whole text (under 20,000 characters).
    const queryTerms = new Set(analyzer.terms('absent'));
    // Every UTF-16 unit alone and doubled (a run), between words, a page of them at a time.
    for (let first = 0; first < 0x10000; first += 2000) {
      let text = '';
      for (let c = first; c < Math.min(first + 2000, 0x10000); c++) {
        const unit = String.fromCharCode(c);
        text += `a${unit}b ${unit}${unit}c `;
      }
      assert.equal(
        buildSummary(text, analyzer, queryTerms, 20_000),
        referenceSummary(text, analyzer, queryTerms, 20_000),
        `units from ${first}`,
      );
    }
  });

  it('starts at the text when no query term occurs, and is empty for an empty text', () => {
    const analyzer = createAnalyzer({});
    assert.equal(buildSummary('First words here.', analyzer, new Set(['absent'])), 'First words here.');
    assert.equal(buildSummary('', analyzer, new Set(['absent'])), '');
  });
});

describe('Summarizer', () => {
  it('gives each page its own summary, for pages in any order and beside other queries', () => {
    const analyzer = createAnalyzer({ stem: true });
    const next = seededRandom(4242);
    const texts = Array.from({ length: 40 }, (_, i) => textOf(next, i % 10 === 0 ? 3000 : 20 + i * 10));
    const queries = ['protocol window', 'congestion', "don't RFC 3.14", 'packets routing security'].map(
      (q) => new Set(analyzer.terms(q)),
    );
    const summarizers = queries.map((terms) => new Summarizer(analyzer, terms));
    // Pages of the queries taking turns, each summarizer used again after the others.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < texts.length; i++) {
        const q = (i + round) % queries.length;
        const maxChars = i % 3 === 0 ? 120 : 260;
        assert.equal(
          summarizers[q]!.summarize(texts[i]!, maxChars),
          referenceSummary(texts[i]!, analyzer, queries[q]!, maxChars),
          `round ${round}, text ${i}, query ${q}`,
        );
      }
    }
  });

  it('answers as the reference summary when the words to look at are too many for one at a time', () => {
    // `th` starts most of these words: an ASCII text is then counted whole, and only the
    // words starting like a query term are looked at.
    const words = [
      'the',
      'The',
      'THE',
      'that',
      'this',
      'then',
      "th'e",
      "t'he",
      "T'HE",
      "they're",
      'thé',
      'other',
      'to',
      'a',
      '3.14',
    ];
    const many = [...words, 'x'.repeat(7), 'y'.repeat(140), 'protocol', 'theory', 'thermal'];
    const gaps = [' ', ' ', '. ', ', ', '\n   ', "'", '.', '-'];
    for (const [name, analyzer] of [
      ['plain', createAnalyzer({})],
      ['stemming', createAnalyzer({ stem: true })],
      ['tokens up to 6', createAnalyzer({ stem: true, maxTokenLength: 6 })],
      ['no folding', createAnalyzer({ caseFold: false, foldDiacritics: false })],
    ] as const) {
      const next = seededRandom(name.length * 31337);
      for (let sample = 0; sample < 100; sample++) {
        let text = '';
        const count = sample % 10 === 0 ? 4000 : 50 + Math.floor(next() * 600);
        // Some texts ASCII only, some with an accent (the analyzer then reads everything).
        const list = sample % 4 === 0 ? many : many.filter((w) => w !== 'thé');
        for (let i = 0; i < count; i++)
          text += list[Math.floor(next() * list.length)]! + gaps[Math.floor(next() * gaps.length)]!;
        const query = ['the', 'the protocol', "they're theory", 'thermal 3.14', 'THE'][sample % 5]!;
        const summarizer = new Summarizer(analyzer, new Set(analyzer.terms(query)));
        assert.equal(
          summarizer.summarize(text),
          referenceSummary(text, analyzer, new Set(analyzer.terms(query))),
          `${name}: text ${sample} (${count} words), query ${query}`,
        );
      }
    }
  });

  it('finds a query term whose spelling the thread met only after the summarizer was made', () => {
    const analyzer = createAnalyzer({ stem: true });
    const word = 'zqxjvwords';
    const summarizer = new Summarizer(analyzer, new Set(analyzer.terms(word)));
    // The first text does not hold the term: the spelling table has not met it yet.
    assert.equal(summarizer.summarize('Nothing to see here.'), 'Nothing to see here.');
    // Another query's summary meets the spelling first (the table learns its term then).
    const other = new Summarizer(analyzer, new Set(analyzer.terms(`other ${word}`)));
    other.summarize(`other text with ${word} in it`);
    assert.equal(summarizer.summarize(`A text with ${word} in it.`), `A text with <b>${word}</b> in it.`);
  });
});
