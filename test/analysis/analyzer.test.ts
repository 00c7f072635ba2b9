import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SearchError } from '../../src/errors.js';
import type { Analyzer, Token } from '../../src/index/analysis/analyzer.js';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import { ENGLISH_STOP_WORDS } from '../../src/index/analysis/english-stop-words.js';
import { anyCodePoint } from '../support/code-point-unit.js';

const plain = createAnalyzer();

/** `term@position` strings: one assertion shows terms, positions and order together. */
function show(analyzer: Analyzer, text: string): string[] {
  return analyzer.tokens(text).map((t) => `${t.term}@${t.position}`);
}

function collect(
  analyzer: Analyzer,
  text: string,
  firstPosition = 0,
): { pairs: [string, number][]; next: number } {
  const pairs: [string, number][] = [];
  const next = analyzer.forEachTerm(text, firstPosition, (term, position) => {
    pairs.push([term, position]);
  });
  return { pairs, next };
}

describe('createAnalyzer: tokenizer', () => {
  it('splits ASCII text on spaces and punctuation and lower-cases', () => {
    assert.deepEqual(plain.terms('Hello, World! The QUICK brown fox (jumps).'), [
      'hello',
      'world',
      'the',
      'quick',
      'brown',
      'fox',
      'jumps',
    ]);
  });

  it('makes RFC notation searchable: versions, RFC numbers, brackets, slashes, hyphens', () => {
    assert.deepEqual(plain.terms('HTTP/1.1 per [RFC2119] and RFC2616. See IPv6, SHA256, 0x1F.'), [
      'http',
      '1.1',
      'per',
      'rfc2119',
      'and',
      'rfc2616',
      'see',
      'ipv6',
      'sha256',
      '0x1f',
    ]);
    assert.deepEqual(plain.terms('e-mail x-y Content-Type a_b a:b example.com'), [
      'e',
      'mail',
      'x',
      'y',
      'content',
      'type',
      'a',
      'b',
      'a',
      'b',
      'example',
      'com',
    ]);
  });

  it('keeps decimal numbers and dotted versions whole, but not a sentence-final dot', () => {
    assert.deepEqual(plain.terms('pi is 3.14, v1.2 ships; 192.0.2.1 and section 3.2.1. Item 1. Done.'), [
      'pi',
      'is',
      '3.14',
      'v1.2',
      'ships',
      '192.0.2.1',
      'and',
      'section',
      '3.2.1',
      'item',
      '1',
      'done',
    ]);
    assert.deepEqual(plain.terms('1,000 -5 10% 2^32 ٣.١٤'), ['1', '000', '5', '10', '2', '32', '٣.١٤']);
  });

  it('joins apostrophes inside words and drops possessives', () => {
    assert.deepEqual(plain.terms("Don't use the IETF's O’Reilly rock'n'roll 'quoted' 90's"), [
      'dont',
      'use',
      'the',
      'ietf',
      'oreilly',
      'rocknroll',
      'quoted',
      '90',
      's',
    ]);
  });

  it('ignores emoji and symbols', () => {
    assert.deepEqual(plain.terms('😀 hello 👩‍💻 world ❤️ © ™ → ★'), ['hello', 'world']);
    assert.deepEqual(plain.terms('😀🎉👍🏽'), []);
    // A keycap is a digit with marks: the digit stays, the marks go.
    assert.deepEqual(plain.terms('1️⃣'), ['1']);
  });

  it('treats unpaired surrogates as separators, also at the end of the text', () => {
    assert.deepEqual(plain.terms('abc\ud800'), ['abc']);
    assert.deepEqual(plain.terms('\ud800'), []);
    assert.deepEqual(plain.terms('a\udc00b\ud800\ud800c'), ['a', 'b', 'c']);
    assert.deepEqual(plain.terms('𝐁\ud835'), ['b']);
  });

  it('returns nothing for empty and whitespace-only text, and the position does not move', () => {
    for (const text of ['', ' ', '\n\t  \r\n', '\u00a0\u2003', '... --- !!!']) {
      assert.deepEqual(plain.tokens(text), []);
      assert.deepEqual(plain.terms(text), []);
      assert.equal(
        plain.forEachTerm(text, 7, () => assert.fail('no term expected')),
        7,
      );
    }
  });

  it('cuts Chinese and Japanese into several words, and keeps Latin words inside them', () => {
    const zh = '我们是中国人，我爱北京天安门。';
    const zhTokens = plain.tokens(zh);
    assert.ok(zhTokens.length >= 5, `expected several tokens, got ${JSON.stringify(zhTokens)}`);
    assert.ok(zhTokens.some((t) => t.term === '北京'));
    for (const t of zhTokens) assert.equal(zh.slice(t.start, t.end), t.term);

    const ja = '東京タワーは333メートル、JavaScript入門';
    const jaTerms = plain.terms(ja);
    assert.ok(jaTerms.includes('333'));
    assert.ok(jaTerms.includes('javascript'));
    assert.ok(jaTerms.includes('メートル'));
    assert.ok(jaTerms.length >= 6, JSON.stringify(jaTerms));
  });

  it('cuts Thai into several words', () => {
    const th = 'ภาษาไทยเป็นภาษาที่สวยงาม';
    const tokens = plain.tokens(th);
    assert.ok(tokens.length >= 4, JSON.stringify(tokens));
    assert.equal(tokens.map((t) => t.term).join(''), th);
    assert.deepEqual(
      tokens.map((t) => t.position),
      tokens.map((_, i) => i),
    );
  });

  it('keeps space-separated non-Latin scripts whole: Korean, Cyrillic, Devanagari', () => {
    assert.deepEqual(plain.terms('한국어 텍스트'), ['한국어', '텍스트']);
    assert.deepEqual(plain.terms('Привет, мир'), ['привет', 'мир']);
    // Vowel signs and the virama are combining marks but not diacritics: they stay.
    assert.deepEqual(plain.terms('हिन्दी भाषा'), ['हिन्दी', 'भाषा']);
  });
});

describe('createAnalyzer: folding', () => {
  it('folds diacritics, whatever the Unicode normalisation form of the input', () => {
    assert.deepEqual(plain.terms('Café naïve résumé Ångström coöperate'), [
      'cafe',
      'naive',
      'resume',
      'angstrom',
      'cooperate',
    ]);
    assert.deepEqual(plain.terms('Cafe\u0301'), ['cafe']);
    assert.deepEqual(plain.terms('Øresund Łódź Đakovo'), ['oresund', 'lodz', 'dakovo']);
  });

  it('keeps diacritics when asked, in NFC', () => {
    const keep = createAnalyzer({ foldDiacritics: false });
    assert.deepEqual(keep.terms('Café'), ['café']);
    assert.deepEqual(keep.terms('Cafe\u0301'), ['café']);
  });

  it('strips Hebrew points and Arabic harakat, but not the kana voicing mark', () => {
    assert.deepEqual(plain.terms('מִשְׁנָה كِتَابٌ'), ['משנה', 'كتاب']);
    // が is か + a combining voicing mark in NFD; it is a different word from か.
    assert.deepEqual(plain.terms('が'), ['が']);
    assert.deepEqual(plain.terms('か\u3099'), ['が']);
  });

  it('folds German ß to ss, so Straße, STRASSE and strasse meet', () => {
    assert.deepEqual(plain.terms('Straße STRASSE strasse STRAẞE'), [
      'strasse',
      'strasse',
      'strasse',
      'strasse',
    ]);
    // Without case folding ß is a letter like any other.
    assert.deepEqual(createAnalyzer({ caseFold: false }).terms('Straße'), ['Straße']);
  });

  it('folds Turkish İ and ı to i, locale-independently', () => {
    assert.deepEqual(plain.terms('İstanbul ISTANBUL istanbul ıstanbul'), [
      'istanbul',
      'istanbul',
      'istanbul',
      'istanbul',
    ]);
    const keep = createAnalyzer({ foldDiacritics: false });
    // Case folding alone maps İ to i without leaving a combining dot behind ...
    assert.deepEqual(keep.terms('İstanbul'), ['istanbul']);
    // ... and the dotless ı, a letter of its own, is only folded with the diacritics.
    assert.deepEqual(keep.terms('ıstanbul'), ['ıstanbul']);
  });

  it('applies full case folding and compatibility folding', () => {
    assert.deepEqual(plain.terms('ΟΔΟΣ οδος'), ['οδοσ', 'οδοσ']);
    assert.deepEqual(plain.terms('ﬁne ＡＢＣ１２３ 𝐁𝐎𝐋𝐃'), ['fine', 'abc123', 'bold']);
    assert.deepEqual(plain.terms('ｶﾀｶﾅ'), ['カタカナ']);
    assert.deepEqual(plain.terms('한국어'.normalize('NFD')), ['한국어']);
    assert.deepEqual(plain.terms('ex\u00adample'), ['example']);
  });

  it('keeps case when case folding is off', () => {
    assert.deepEqual(createAnalyzer({ caseFold: false }).terms('RFC2616 Café'), ['RFC2616', 'Cafe']);
  });
});

describe('createAnalyzer: positions and offsets', () => {
  it('leaves a gap in positions where a stop word was removed', () => {
    const stop = createAnalyzer({ stopWords: true });
    assert.deepEqual(show(stop, 'The state of the art'), ['state@1', 'art@4']);
    const { pairs, next } = collect(stop, 'the state of the art', 10);
    assert.deepEqual(pairs, [
      ['state', 11],
      ['art', 14],
    ]);
    assert.equal(next, 15);
    assert.deepEqual(stop.terms('MUST NOT be used'), ['must', 'used']);
  });

  it('uses the built-in list of 33 English words, folded stop words from a custom list', () => {
    assert.equal(ENGLISH_STOP_WORDS.length, 33);
    const stop = createAnalyzer({ stopWords: true });
    assert.deepEqual(stop.terms(ENGLISH_STOP_WORDS.join(' ')), []);
    const custom = createAnalyzer({ stopWords: ['The', 'CAFÉ'] });
    assert.deepEqual(custom.terms('the Cafe of the cafés'), ['of', 'cafes']);
  });

  it('gives UTF-16 offsets that slice back to the original word', () => {
    const text = "  Café\u0301s? IETF's 𝐁𝐎𝐋𝐃 HTTP/1.1 北京 ex\u00adample";
    const tokens = plain.tokens(text);
    assert.deepEqual(
      tokens.map((t) => text.slice(t.start, t.end)),
      ['Café\u0301s', "IETF's", '𝐁𝐎𝐋𝐃', 'HTTP', '1.1', '北京', 'ex\u00adample'],
    );
    assert.deepEqual(
      tokens.map((t) => t.term),
      ['cafes', 'ietf', 'bold', 'http', '1.1', '北京', 'example'],
    );
  });

  it('continues positions across calls of forEachTerm', () => {
    const title = collect(plain, 'Hypertext Transfer Protocol', 0);
    const body = collect(plain, 'Status codes', title.next);
    assert.equal(title.next, 3);
    assert.deepEqual(body.pairs, [
      ['status', 3],
      ['codes', 4],
    ]);
    assert.equal(body.next, 5);
  });
});

describe('createAnalyzer: stemming, lengths, prefixes, options', () => {
  it('stems English words only when asked', () => {
    assert.deepEqual(plain.terms('protocols running generalization'), [
      'protocols',
      'running',
      'generalization',
    ]);
    const stem = createAnalyzer({ stem: true });
    assert.deepEqual(stem.terms('Protocols running generalization'), ['protocol', 'run', 'gener']);
    // Numbers, mixed tokens and other scripts are not English words.
    assert.deepEqual(stem.terms('rfc2616s 3.14 книги'), ['rfc2616s', '3.14', 'книги']);
    // Same result the second time, when the caches answer.
    assert.deepEqual(stem.terms('Protocols running generalization'), ['protocol', 'run', 'gener']);
  });

  it('drops tokens longer than maxTokenLength and keeps their position', () => {
    const short = createAnalyzer({ maxTokenLength: 5 });
    assert.deepEqual(show(short, 'abcde abcdef ab'), ['abcde@0', 'ab@2']);
    const hash = 'a'.repeat(129);
    assert.deepEqual(show(plain, `sha ${hash} end ${'b'.repeat(128)}`), [
      'sha@0',
      'end@2',
      `${'b'.repeat(128)}@3`,
    ]);
  });

  it('normalises prefixes with folding only', () => {
    const stem = createAnalyzer({ stem: true, stopWords: true });
    assert.equal(stem.normalizePrefix('Protoc'), 'protoc');
    assert.equal(stem.normalizePrefix(' CAFÉ '), 'cafe');
    assert.equal(stem.normalizePrefix('The'), 'the');
    assert.equal(stem.normalizePrefix('Straß'), 'strass');
    assert.equal(stem.normalizePrefix('3.'), '3.');
    assert.equal(stem.normalizePrefix('v1.'), 'v1.');
    assert.equal(stem.normalizePrefix('word.'), 'word');
    assert.equal(stem.normalizePrefix("don'"), 'don');
    for (const word of ['protocols', 'HTTP', 'Café', '3.14', 'İstanbul']) {
      const [term] = plain.terms(word);
      assert.ok(term.startsWith(plain.normalizePrefix(word.slice(0, 3))), word);
    }
  });

  it('resolves defaults and rejects bad options with a SearchError', () => {
    assert.deepEqual(plain.options, {
      caseFold: true,
      foldDiacritics: true,
      stem: false,
      stopWords: false,
      maxTokenLength: 128,
    });
    const bad: unknown[] = [
      { maxTokenLength: 0 },
      { maxTokenLength: 2.5 },
      { stem: 'yes' },
      { stopWords: [1] },
      { stopword: true },
    ];
    for (const options of bad) {
      assert.throws(
        () => createAnalyzer(options as never),
        (error: unknown) => error instanceof SearchError && error.code === 'ANALYZER_OPTIONS_INVALID',
        JSON.stringify(options),
      );
    }
  });
});

describe('createAnalyzer: properties', () => {
  // Strings that reach every path: ASCII, joiners, marks, no-space scripts, astral letters,
  // emoji, ignorables and unpaired surrogates.
  const pieces = [
    'a',
    'Z',
    'é',
    'e\u0301',
    'ß',
    'İ',
    'ı',
    'Σ',
    'ж',
    '7',
    '٣',
    '.',
    "'",
    '’',
    '-',
    '/',
    ' ',
    '\n',
    '北',
    '京',
    'タ',
    'ー',
    'ก',
    'า',
    'ั',
    '한',
    'ि',
    '😀',
    '\u200d',
    '\ufe0f',
    '\u00ad',
    '𝐁',
    '\ud800',
    '\udc00',
    'ﬁ',
    'ｶ',
    'ﾞ',
    '\u0301',
  ];
  const mixed = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((p) => p.join(''));
  const anyText = fc.oneof(
    mixed,
    fc.string({ unit: anyCodePoint, maxLength: 60 }),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
  );
  const analyzers = [
    plain,
    createAnalyzer({ stem: true, stopWords: true }),
    createAnalyzer({ caseFold: false, foldDiacritics: false, maxTokenLength: 4 }),
  ];

  it('analyses any text; positions increase, offsets stay in bounds, forEachTerm agrees with tokens()', () => {
    fc.assert(
      fc.property(anyText, fc.nat(1000), (text, first) => {
        for (const analyzer of analyzers) {
          const tokens: Token[] = analyzer.tokens(text);
          let previous = -1;
          for (const t of tokens) {
            assert.ok(t.position > previous, 'positions strictly increase');
            previous = t.position;
            assert.ok(t.start >= 0 && t.start < t.end && t.end <= text.length, 'offsets in bounds');
            assert.ok(t.term.length > 0);
          }
          const { pairs, next } = collect(analyzer, text, first);
          assert.deepEqual(
            pairs,
            tokens.map((t) => [t.term, t.position + first]),
          );
          assert.ok(next >= (tokens.length === 0 ? first : tokens[tokens.length - 1].position + first + 1));
          assert.deepEqual(
            analyzer.terms(text),
            tokens.map((t) => t.term),
          );
        }
      }),
      { numRuns: 400 },
    );
  });

  it('gives the same terms from a fresh analyzer as from one whose caches are warm', () => {
    const warm = createAnalyzer({ stem: true, stopWords: true });
    fc.assert(
      fc.property(mixed, (text) => {
        assert.deepEqual(warm.tokens(text), createAnalyzer({ stem: true, stopWords: true }).tokens(text));
      }),
      { numRuns: 200 },
    );
  });

  it('cuts words like Intl.Segmenter for letters and digits between spaces and punctuation', () => {
    const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
    const word = fc.array(fc.constantFrom('a', 'B', 'é', 'ß', 'ж', 'ñ', 'Ω', '1', '9'), {
      minLength: 1,
      maxLength: 6,
    });
    const separator = fc.constantFrom(' ', '  ', '\n', '; ', '!', '(', ')', '-', '/', '"', '?');
    const text = fc
      .array(fc.tuple(word, separator), { maxLength: 12 })
      .map((parts) => parts.map(([w, s]) => w.join('') + s).join(''));
    fc.assert(
      fc.property(text, (t) => {
        const ours = plain.tokens(t).map((tok) => [tok.start, tok.end]);
        const theirs = [...segmenter.segment(t)]
          .filter((s) => s.isWordLike === true)
          .map((s) => [s.index, s.index + s.segment.length]);
        assert.deepEqual(ours, theirs);
      }),
      { numRuns: 300 },
    );
  });
});
