import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchError } from '../../src/errors.js';
import type { Analyzer } from '../../src/index/analysis/analyzer.js';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import { Schema } from '../../src/index/schema.js';
import {
  DEFAULT_COORD_BOOST,
  MAX_CLAUSES,
  MAX_QUERY_LENGTH,
  parseQuery,
  type ParseQueryOptions,
} from '../../src/query/parser/parse-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { leafCount as leaves } from './helpers.js';

const plain = createAnalyzer({ stem: false });
const withStopWords = createAnalyzer({ stem: false, stopWords: true });
// A class whose analyzer keeps case, to show that a class is analysed with its own analyzer.
const caseKeeping = createAnalyzer({ caseFold: false, stem: false });

function opts(extra: Partial<ParseQueryOptions> = {}, analyzer: Analyzer = plain): ParseQueryOptions {
  return { analyzerFor: (field) => (field === 'id' ? caseKeeping : analyzer), ...extra };
}

const parse = (text: string, extra: Partial<ParseQueryOptions> = {}, analyzer: Analyzer = plain) =>
  parseQuery(text, opts(extra, analyzer));
const tree = (text: string, extra: Partial<ParseQueryOptions> = {}, analyzer: Analyzer = plain) =>
  parse(text, extra, analyzer).tree;

const term = (t: string, field?: string): Query =>
  field === undefined ? { kind: 'term', term: t } : { kind: 'term', field, term: t };
const anyOf = (...should: Query[]): Query => ({ kind: 'bool', should, minShouldMatch: 1 });

describe('parseQuery: words', () => {
  it('puts plain words into should with the coordination bonus (tiers)', () => {
    const r = parse('Julius Caesar rome');
    assert.deepEqual(r.tree, {
      kind: 'bool',
      should: [term('julius'), term('caesar'), term('rome')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    assert.deepEqual(r.words, ['Julius', 'Caesar', 'rome']);
    assert.deepEqual(r.terms, [{ term: 'julius' }, { term: 'caesar' }, { term: 'rome' }]);
    assert.deepEqual(r.warnings, []);
  });

  it('uses the coordBoost given by the caller', () => {
    assert.deepEqual(tree('a b', { coordBoost: 2.5 }), {
      kind: 'bool',
      should: [term('a'), term('b')],
      coordBoost: 2.5,
    });
    assert.deepEqual(tree('a b', { coordBoost: 0 }), {
      kind: 'bool',
      should: [term('a'), term('b')],
      coordBoost: 0,
    });
  });

  it('refuses a coordBoost that would break scoring, with QUERY_INVALID', () => {
    for (const coordBoost of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => parse('a', { coordBoost }),
        (e: unknown) =>
          e instanceof SearchError && e.code === 'QUERY_INVALID' && /coordBoost/.test(e.message),
      );
    }
  });

  it('gives a single word as the term itself', () => {
    assert.deepEqual(tree('caesar'), term('caesar'));
  });

  it('with allRequired (fmo=on) makes every plain clause required', () => {
    assert.deepEqual(tree('a "b c" [d e]', { allRequired: true }), {
      kind: 'bool',
      must: [term('a'), { kind: 'phrase', terms: ['b', 'c'] }, anyOf(term('d'), term('e'))],
    });
    assert.deepEqual(tree('a', { allRequired: true }), term('a'));
    // Operators keep their meaning.
    assert.deepEqual(tree('a -b', { allRequired: true }), {
      kind: 'bool',
      must: [term('a')],
      mustNot: [term('b')],
    });
  });

  it('turns a word the analyzer splits into a phrase of its tokens', () => {
    assert.deepEqual(tree('e-mail'), { kind: 'phrase', terms: ['e', 'mail'] });
    assert.deepEqual(tree('HTTP/1.1'), { kind: 'phrase', terms: ['http', '1.1'] });
    assert.deepEqual(tree('example.com'), { kind: 'phrase', terms: ['example', 'com'] });
    assert.deepEqual(parse('e-mail').words, ['e-mail']);
  });

  it('keeps the gap of a stop word inside a split word', () => {
    assert.deepEqual(tree('state-of-the-art', {}, withStopWords), {
      kind: 'phrase',
      terms: ['state', 'art'],
      positions: [0, 3],
    });
  });

  it('drops words analysed to nothing, with a warning for stop words only', () => {
    const r = parse('the caesar , … ☃', {}, withStopWords);
    assert.deepEqual(r.tree, term('caesar'));
    assert.deepEqual(r.words, ['caesar']);
    assert.deepEqual(r.warnings, ['"the" was ignored (a stop word, or too long)']);
  });

  it('returns tree null for an empty query, only spaces, only stop words or only operators', () => {
    for (const text of ['', '   \t\n', 'the of a', '+ - ! | : * [ ] "" []', '""', '[ ]']) {
      const r = parse(text, {}, withStopWords);
      assert.equal(r.tree, null, text);
      assert.deepEqual(r.terms, [], text);
      assert.deepEqual(r.words, [], text);
    }
  });

  it('folds case and diacritics of Unicode words and segments scripts written without spaces', () => {
    const r = parse('Ünïcödé Ελληνικά STRASSE 東京大学');
    assert.deepEqual(r.tree, {
      kind: 'bool',
      should: [
        term('unicode'),
        term('ελληνικα'),
        term('strasse'),
        { kind: 'phrase', terms: ['東京', '大学'] },
      ],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    assert.deepEqual(r.words, ['Ünïcödé', 'Ελληνικά', 'STRASSE', '東京大学']);
  });

  it('treats all Unicode white space as a separator', () => {
    assert.deepEqual(tree('a\u00a0b\u3000c\td'), {
      kind: 'bool',
      should: [term('a'), term('b'), term('c'), term('d')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
  });

  it('analyses with the schema analyzer (stemming on by default)', () => {
    const schema = new Schema();
    const r = parseQuery('Running +"search engines"', {
      analyzerFor: (f) => schema.analyzerFor(f ?? 'body'),
    });
    assert.deepEqual(r.tree, {
      kind: 'bool',
      must: [{ kind: 'phrase', terms: ['search', 'engin'] }],
      should: [term('run')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    assert.deepEqual(r.words, ['Running']);
  });
});

describe('parseQuery: phrases', () => {
  it('makes a quoted text one phrase clause', () => {
    assert.deepEqual(tree('"hail caesar" rome'), {
      kind: 'bool',
      should: [{ kind: 'phrase', terms: ['hail', 'caesar'] }, term('rome')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
  });

  it('keeps the positions of removed stop words, so the phrase stays exact', () => {
    assert.deepEqual(tree('"state of the art"', {}, withStopWords), {
      kind: 'phrase',
      terms: ['state', 'art'],
      positions: [0, 3],
    });
    // A leading stop word does not shift the positions.
    assert.deepEqual(tree('"the art of war"', {}, withStopWords), {
      kind: 'phrase',
      terms: ['art', 'war'],
      positions: [0, 2],
    });
  });

  it('gives a one-word phrase as a term and drops a phrase of stop words', () => {
    assert.deepEqual(tree('"Caesar"'), term('caesar'));
    const r = parse('"to be or not to be" rome', {}, withStopWords);
    assert.deepEqual(r.tree, term('rome'));
    assert.deepEqual(r.warnings, ['"to be or not to be" has no searchable words and was ignored']);
  });

  it('ignores syntax inside quotes', () => {
    assert.deepEqual(tree('"a [b] -c t:d e*"'), { kind: 'phrase', terms: ['a', 'b', 'c', 't', 'd', 'e'] });
  });

  it('accepts typographic quotes', () => {
    assert.deepEqual(tree('\u201chail caesar\u201d'), { kind: 'phrase', terms: ['hail', 'caesar'] });
    assert.deepEqual(tree('\u201ehail caesar\u201c'), { kind: 'phrase', terms: ['hail', 'caesar'] });
  });

  it('lists phrase terms in terms but not in words', () => {
    const r = parse('"hail caesar" rome');
    assert.deepEqual(r.terms, [{ term: 'hail' }, { term: 'caesar' }, { term: 'rome' }]);
    assert.deepEqual(r.words, ['rome']);
  });

  it('starts a phrase at a quote inside a word', () => {
    assert.deepEqual(tree('a"b c"'), {
      kind: 'bool',
      should: [term('a'), { kind: 'phrase', terms: ['b', 'c'] }],
      coordBoost: DEFAULT_COORD_BOOST,
    });
  });
});

describe('parseQuery: + and -', () => {
  it('makes +word required and -word excluded', () => {
    const r = parse('caesar +rome -antony');
    assert.deepEqual(r.tree, {
      kind: 'bool',
      must: [term('rome')],
      should: [term('caesar')],
      mustNot: [term('antony')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    assert.deepEqual(r.terms, [{ term: 'caesar' }, { term: 'rome' }]);
    assert.deepEqual(r.words, ['caesar', 'rome']);
  });

  it('applies + and - to phrases and brackets', () => {
    assert.deepEqual(tree('+"hail caesar" -[brutus antony] rome'), {
      kind: 'bool',
      must: [{ kind: 'phrase', terms: ['hail', 'caesar'] }],
      should: [term('rome')],
      mustNot: [anyOf(term('brutus'), term('antony'))],
      coordBoost: DEFAULT_COORD_BOOST,
    });
  });

  it('matches everything but the excluded clauses when nothing else is asked', () => {
    assert.deepEqual(tree('-brutus -"mark antony"'), {
      kind: 'bool',
      must: [{ kind: 'all' }],
      mustNot: [term('brutus'), { kind: 'phrase', terms: ['mark', 'antony'] }],
    });
    // The positive words were stop words: still "everything but".
    assert.deepEqual(tree('the -brutus', {}, withStopWords), {
      kind: 'bool',
      must: [{ kind: 'all' }],
      mustNot: [term('brutus')],
    });
  });

  it('gives a lone required clause as itself', () => {
    assert.deepEqual(tree('+caesar'), term('caesar'));
  });

  it('reads !word as an exclusion and |word as a filter (the original operators)', () => {
    const r = parse('caesar !brutus |t:rome');
    assert.deepEqual(r.tree, {
      kind: 'bool',
      should: [term('caesar')],
      mustNot: [term('brutus')],
      filter: [term('rome', 't')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    assert.deepEqual(r.terms, [{ term: 'caesar' }, { field: 't', term: 'rome' }]);
  });

  it('treats - inside a word as part of it, and a lone operator as nothing', () => {
    assert.deepEqual(tree('co-operate + - rome'), {
      kind: 'bool',
      should: [{ kind: 'phrase', terms: ['co', 'operate'] }, term('rome')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
  });

  it('uses the first of several operators and reads the rest as punctuation', () => {
    const r = parse('+-rome');
    assert.deepEqual(r.tree, term('rome'));
    assert.deepEqual(r.words, ['rome']);
    assert.deepEqual(tree('-+rome'), { kind: 'bool', must: [{ kind: 'all' }], mustNot: [term('rome')] });
  });

  it('does not list excluded words in terms or words', () => {
    const r = parse('-brutus -t:antony -[x y] -"p q" -ab*');
    assert.deepEqual(r.terms, []);
    assert.deepEqual(r.words, []);
  });
});

describe('parseQuery: [any of]', () => {
  it('makes a bracket one clause matching any of its items', () => {
    assert.deepEqual(tree('[mighty brave] army'), {
      kind: 'bool',
      should: [anyOf(term('mighty'), term('brave')), term('army')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
  });

  it('takes phrases, classes and truncation inside', () => {
    assert.deepEqual(
      tree('+[a "b c" t:d ef*]'),
      anyOf(term('a'), { kind: 'phrase', terms: ['b', 'c'] }, term('d', 't'), {
        kind: 'prefix',
        prefix: 'ef',
      }),
    );
  });

  it('flattens brackets inside brackets (any of any of is any of)', () => {
    const r = parse('[a [b [c d]] e]');
    assert.deepEqual(r.tree, anyOf(term('a'), term('b'), term('c'), term('d'), term('e')));
    assert.deepEqual(r.words, ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(r.warnings, []);
  });

  it('scopes the items of a nested bracket to its own class', () => {
    assert.deepEqual(
      tree('t:[a x:[b c] d]'),
      anyOf(term('a', 't'), term('b', 'x'), term('c', 'x'), term('d', 't')),
    );
  });

  it('ignores operators inside brackets, with a warning', () => {
    const r = parse('[a -b +c +[d]]');
    assert.deepEqual(r.tree, anyOf(term('a'), term('b'), term('c'), term('d')));
    assert.deepEqual(r.warnings, ['operators inside [ ] are ignored: [a b] matches any of its words']);
  });

  it('gives a bracket of one item as the item, and drops an empty one', () => {
    assert.deepEqual(tree('[caesar]'), term('caesar'));
    assert.deepEqual(tree('[] [the] rome', {}, withStopWords), term('rome'));
  });

  it('keeps a ] inside a quoted phrase in a bracket', () => {
    assert.deepEqual(tree('[a "b ] c"]'), anyOf(term('a'), { kind: 'phrase', terms: ['b', 'c'] }));
  });
});

describe('parseQuery: class:', () => {
  it('scopes a word, a phrase, a bracket and a prefix to the class', () => {
    const r = parse('t:Rome a:"Julius Caesar" s:[x y] d:repub*');
    assert.deepEqual(r.tree, {
      kind: 'bool',
      should: [
        term('rome', 't'),
        { kind: 'phrase', field: 'a', terms: ['julius', 'caesar'] },
        anyOf(term('x', 's'), term('y', 's')),
        { kind: 'prefix', field: 'd', prefix: 'repub' },
      ],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    assert.deepEqual(r.terms, [
      { field: 't', term: 'rome' },
      { field: 'a', term: 'julius' },
      { field: 'a', term: 'caesar' },
      { field: 's', term: 'x' },
      { field: 's', term: 'y' },
      { field: 'd', term: 'repub', prefix: true },
    ]);
    // Scoped words are not plain words.
    assert.deepEqual(r.words, []);
  });

  it('combines with operators', () => {
    assert.deepEqual(tree('+t:rome -a:"mark antony" +s:[x y]'), {
      kind: 'bool',
      must: [term('rome', 't'), anyOf(term('x', 's'), term('y', 's'))],
      mustNot: [{ kind: 'phrase', field: 'a', terms: ['mark', 'antony'] }],
    });
  });

  it('uses the analyzer of the class', () => {
    assert.deepEqual(tree('id:ABC-12 ABC'), {
      kind: 'bool',
      should: [{ kind: 'phrase', field: 'id', terms: ['ABC', '12'] }, term('abc')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    const seen: (string | undefined)[] = [];
    parseQuery('a t:b t:c "d" K:e', {
      analyzerFor: (f) => {
        seen.push(f);
        return plain;
      },
    });
    assert.deepEqual(seen, [undefined, 't', 'K']);
  });

  it('keeps class names case-sensitive and accepts unknown classes up to 64 characters', () => {
    const long = 'c'.repeat(64);
    assert.deepEqual(tree(`T:x ${long}:y`), {
      kind: 'bool',
      should: [term('x', 'T'), term('y', long)],
      coordBoost: DEFAULT_COORD_BOOST,
    });
  });

  it('does not read a 65-character or non-ASCII prefix as a class', () => {
    const long = 'c'.repeat(65);
    assert.deepEqual(tree(`${long}:y`), { kind: 'phrase', terms: [long, 'y'] });
    assert.deepEqual(tree('café:y'), { kind: 'phrase', terms: ['cafe', 'y'] });
  });

  it('keeps a pasted URL or path as text', () => {
    assert.deepEqual(tree('https://example.com/a'), {
      kind: 'phrase',
      terms: ['https', 'example', 'com', 'a'],
    });
    assert.deepEqual(tree('C:\\temp'), { kind: 'phrase', terms: ['c', 'temp'] });
    assert.deepEqual(tree('a::b'), { kind: 'phrase', terms: ['a', 'b'] });
  });

  it('reads a class with nothing to scope as the word', () => {
    const r = parse('t: rome');
    assert.deepEqual(r.tree, {
      kind: 'bool',
      should: [term('t'), term('rome')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    assert.deepEqual(tree(':rome'), term('rome'));
  });

  it('drops a class whose bracket is not closed, keeping the words', () => {
    const r = parse('t:[a b');
    assert.deepEqual(r.tree, {
      kind: 'bool',
      should: [term('t'), term('a'), term('b')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    assert.deepEqual(r.warnings, ['a [ without its closing ] was ignored']);
  });
});

describe('parseQuery: * truncation', () => {
  it('makes word* a prefix query of the normalised prefix', () => {
    const r = parse('Protoc* Café*');
    assert.deepEqual(r.tree, {
      kind: 'bool',
      should: [
        { kind: 'prefix', prefix: 'protoc' },
        { kind: 'prefix', prefix: 'cafe' },
      ],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    assert.deepEqual(r.terms, [
      { term: 'protoc', prefix: true },
      { term: 'cafe', prefix: true },
    ]);
    assert.deepEqual(r.words, []);
  });

  it('does not stem the prefix, and finds the word itself by its stem (the index holds stems)', () => {
    const stemming = createAnalyzer({ stem: true });
    assert.deepEqual(tree('connections*', {}, stemming), {
      kind: 'bool',
      should: [{ kind: 'prefix', prefix: 'connections' }, term('connect')],
    });
    assert.deepEqual(tree('dns*', {}, stemming), {
      kind: 'bool',
      should: [{ kind: 'prefix', prefix: 'dns' }, term('dn')],
    });
    // A word the stemmer leaves alone needs nothing more: the prefix covers it.
    assert.deepEqual(tree('rout*', {}, stemming), { kind: 'prefix', prefix: 'rout' });
    assert.deepEqual(tree('connections*')?.kind, 'prefix', 'no stemming, no extra term');
  });

  it('drops a bare * and prefixes shorter than 2 characters, with a warning', () => {
    const r = parse('* a* ** rome');
    assert.deepEqual(r.tree, term('rome'));
    assert.deepEqual(r.warnings, [
      'a * without letters or digits before it was ignored',
      '"a*" was ignored: truncation needs at least 2 letters or digits before the *',
    ]);
    assert.equal(tree('東*'), null);
    assert.deepEqual(tree('東京*'), { kind: 'prefix', prefix: '東京' });
  });

  it('ignores leading stars and repeated trailing stars', () => {
    assert.deepEqual(tree('*port**'), { kind: 'prefix', prefix: 'port' });
  });

  it('keeps a decimal point that can continue a number', () => {
    assert.deepEqual(tree('3.*'), { kind: 'prefix', prefix: '3.' });
    assert.deepEqual(tree('v1.2*'), { kind: 'prefix', prefix: 'v1.2' });
  });

  it('requires the earlier parts of a split truncated word as terms', () => {
    assert.deepEqual(tree('e-ma*'), { kind: 'bool', must: [term('e'), { kind: 'prefix', prefix: 'ma' }] });
    assert.deepEqual(tree('example.co*'), {
      kind: 'bool',
      must: [term('example'), { kind: 'prefix', prefix: 'co' }],
    });
    assert.deepEqual(tree('foo-*'), { kind: 'prefix', prefix: 'foo' });
    // The last part is too short: only the earlier part is left.
    assert.deepEqual(tree('rome-a*'), term('rome'));
  });

  it('reads a * inside a word as punctuation', () => {
    assert.deepEqual(tree('a*b'), { kind: 'phrase', terms: ['a', 'b'] });
  });
});

describe('parseQuery: malformed input degrades to its words', () => {
  const cases: [string, string[]][] = [
    ['"hail caesar', ['hail', 'caesar']],
    ['hail" caesar', ['hail', 'caesar']],
    ['[mighty brave army', ['mighty', 'brave', 'army']],
    ['mighty] brave', ['mighty', 'brave']],
    ['] [ ] [', []],
    ['+ rome -', ['rome']],
    ['rome : * [ ]', ['rome']],
    ['t:"unclosed phrase', ['t', 'unclosed', 'phrase']],
    ['"a" "b', ['a', 'b']],
  ];
  for (const [text, words] of cases) {
    it(JSON.stringify(text), () => {
      const r = parse(text);
      const got: string[] = [];
      const walk = (q: Query | null): void => {
        if (q === null) return;
        if (q.kind === 'term') got.push(q.term);
        else if (q.kind === 'bool') [...(q.must ?? []), ...(q.should ?? [])].forEach(walk);
        else if (q.kind === 'phrase') got.push(...q.terms);
      };
      walk(r.tree);
      assert.deepEqual(got, words);
    });
  }

  it('reports the unbalanced syntax it ignored', () => {
    assert.deepEqual(parse('"a [b').warnings, [
      'a quote without its closing quote was ignored',
      'a [ without its closing ] was ignored',
    ]);
    assert.deepEqual(parse('a] b').warnings, ['a ] without its opening [ was ignored']);
  });

  it('accepts lone surrogates, control characters and emoji', () => {
    assert.deepEqual(tree('\ud800rome\u0000\u0007 😀 \udfff'), term('rome'));
  });
});

describe('parseQuery: limits', () => {
  it(`keeps the first ${MAX_CLAUSES} clauses and reports the others`, () => {
    const words = Array.from({ length: 70 }, (_, i) => `w${i}`);
    const r = parse(words.join(' '));
    assert.equal(leaves(r.tree), MAX_CLAUSES);
    assert.deepEqual(r.words, words.slice(0, MAX_CLAUSES));
    assert.deepEqual(r.warnings, [
      `only the first ${MAX_CLAUSES} words and phrases are searched; ignored: w64 w65 w66 w67 w68 w69`,
    ]);
  });

  it('counts clauses inside brackets and excluded ones', () => {
    const items = Array.from({ length: 40 }, (_, i) => `x${i}`);
    const r = parse(`-[${items.join(' ')}] [${items.join(' ')}]`);
    assert.equal(leaves(r.tree), MAX_CLAUSES);
    assert.match(r.warnings[0] ?? '', /ignored: x24 x25 .* and 6 more$/);
  });

  it(`cuts the text at ${MAX_QUERY_LENGTH} characters without splitting a surrogate pair`, () => {
    const phrase = '"' + 'ab '.repeat(665) + '"';
    assert.equal(phrase.length, MAX_QUERY_LENGTH - 3);
    // The emoji's first half is the last unit kept: it must go with its pair.
    const text = phrase + ' b\u{1F600}c d';
    const r = parse(text);
    assert.deepEqual(r.tree, {
      kind: 'bool',
      should: [{ kind: 'phrase', terms: Array<string>(665).fill('ab') }, term('b')],
      coordBoost: DEFAULT_COORD_BOOST,
    });
    assert.deepEqual(r.words, ['b']);
    assert.deepEqual(r.warnings, [`the query was cut to its first ${MAX_QUERY_LENGTH} characters`]);
  });
});
