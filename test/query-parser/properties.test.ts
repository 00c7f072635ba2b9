import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Analyzer } from '../../src/index/analysis/analyzer.js';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import { executeQuery } from '../../src/query/execute-query.js';
import { explainQuery } from '../../src/query/parser/explain-query.js';
import {
  DEFAULT_COORD_BOOST,
  MAX_CLAUSES,
  MIN_PREFIX_LENGTH,
  parseQuery,
  type ParsedQuery,
} from '../../src/query/parser/parse-query.js';
import type { Query } from '../../src/query/query-tree.js';
import { MemoryGeneration } from '../support/memory-generation.js';
import { leafCount, nodes } from './helpers.js';
import { anyCodePoint } from '../support/code-point-unit.js';

const body = createAnalyzer({ stem: true, stopWords: true });
const title = createAnalyzer({ stem: false });
const analyzerFor = (field: string | undefined): Analyzer => (field === undefined ? body : title);
const parse = (text: string, allRequired = false): ParsedQuery =>
  parseQuery(text, { analyzerFor, allRequired });

// Pieces that exercise every syntax rule when glued together at random.
const PIECES = [
  ' ',
  ' ',
  ' ',
  '"',
  '\u201c',
  '\u201d',
  '[',
  ']',
  '+',
  '-',
  '!',
  '|',
  ':',
  '*',
  't:',
  'a1:',
  'http://',
  '\\',
  'rome',
  'Caesar',
  'the',
  'of',
  'e-mail',
  'HTTP/1.1',
  '3.14',
  'protoc',
  'x',
  'Ünï',
  '東京大学',
  '😀',
  '\ud800',
  '\u0000',
  '\u00a0',
  '\t',
  "don't",
];
const syntaxText = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((a) => a.join(''));
const anyText = fc.oneof(
  syntaxText,
  fc.string({ unit: anyCodePoint, maxLength: 200 }),
  // Every UTF-16 unit, lone surrogates included.
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 200 }),
  // Long enough for the clause and length limits.
  fc
    .array(fc.constantFrom('w', 'x y', '[a b c]', '-z', '"p q r"', 'ab*', ' '), {
      minLength: 50,
      maxLength: 400,
    })
    .map((a) => a.join(' ')),
);

const CLASS_NAME = /^[A-Za-z0-9]{1,64}$/;

/** What every parse result must satisfy, whatever the text. */
function checkInvariants(r: ParsedQuery): void {
  assert.ok(leafCount(r.tree) <= MAX_CLAUSES, `${leafCount(r.tree)} clauses`);
  for (const q of nodes(r.tree)) {
    if (q.kind === 'term') assert.ok(q.term.length > 0);
    if (q.kind === 'phrase') {
      assert.ok(q.terms.length >= 2 && q.terms.every((t) => t.length > 0));
      if (q.positions !== undefined) {
        assert.equal(q.positions.length, q.terms.length);
        assert.equal(q.positions[0], 0);
        // Each position above the one before it (the first has none: it is compared to -1).
        for (const [i, p] of q.positions.entries()) assert.ok(p > (q.positions[i - 1] ?? -1));
      }
    }
    if (q.kind === 'prefix') assert.ok(Array.from(q.prefix).length >= MIN_PREFIX_LENGTH);
    if ((q.kind === 'term' || q.kind === 'phrase' || q.kind === 'prefix') && q.field !== undefined) {
      assert.match(q.field, CLASS_NAME);
    }
    if (q.kind === 'bool') {
      const clauses =
        (q.must?.length ?? 0) + (q.should?.length ?? 0) + (q.filter?.length ?? 0) + (q.mustNot?.length ?? 0);
      assert.ok(clauses > 0, 'no empty boolean');
      for (const list of [q.must, q.should, q.filter, q.mustNot])
        assert.ok(list === undefined || list.length > 0);
    }
  }
  assert.ok(r.terms.every((t) => t.term.length > 0));
  assert.ok(r.words.every((w) => w.length > 0));
  assert.equal(typeof explainQuery(r.tree), 'string');
}

const generation = new MemoryGeneration([
  { fields: { body: ['rome', 'caesar', '', 'protocol'], t: ['rome'] } },
  { fields: { body: ['e', 'mail', 'x', 'y'] } },
]);

describe('parseQuery properties', () => {
  it('parses any string without throwing, into at most 64 clauses the executor accepts', () => {
    fc.assert(
      fc.property(anyText, fc.boolean(), (text, allRequired) => {
        const r = parse(text, allRequired);
        checkInvariants(r);
        if (r.tree !== null) executeQuery([generation], r.tree, { k: 5, exhaustive: true });
      }),
      { numRuns: 1000 },
    );
  });

  it('is deterministic: the same text gives the same result, with other analyzer instances too', () => {
    const otherBody = createAnalyzer({ stem: true, stopWords: true });
    const otherTitle = createAnalyzer({ stem: false });
    const other = { analyzerFor: (f: string | undefined) => (f === undefined ? otherBody : otherTitle) };
    fc.assert(
      fc.property(anyText, (text) => {
        const first = parse(text);
        assert.deepEqual(parse(text), first);
        assert.deepEqual(parseQuery(text, other), first);
      }),
      { numRuns: 500 },
    );
  });

  // Words without any syntax: letters, digits and in-word punctuation; no leading operator.
  const wordArb = fc
    .string({
      unit: fc.constantFrom(..."abcXYZ019éÖßσ東京.'-/,_", 'the', 'of', 'and', 'running'),
      minLength: 1,
      maxLength: 6,
    })
    .filter((w) => !/^[-+!|]/.test(w));

  it('turns plain words into exactly their analysed terms, as should clauses in order', () => {
    fc.assert(
      fc.property(fc.array(wordArb, { maxLength: 80 }), fc.boolean(), (words, allRequired) => {
        const text = words.join(' ');
        const r = parse(text, allRequired);
        // The oracle: each word on its own through the analyzer.
        const expected: Query[] = [];
        const kept: string[] = [];
        for (const w of words) {
          const tokens = body.tokens(w);
          if (expected.length === MAX_CLAUSES) continue;
          const [first] = tokens;
          if (first === undefined) continue;
          kept.push(w);
          if (tokens.length === 1) {
            expected.push({ kind: 'term', term: first.term });
          } else {
            const positions = tokens.map((t) => t.position - first.position);
            const gaps = positions.some((p, i) => p !== i);
            expected.push(
              gaps
                ? { kind: 'phrase', terms: tokens.map((t) => t.term), positions }
                : { kind: 'phrase', terms: tokens.map((t) => t.term) },
            );
          }
        }
        const clauses =
          r.tree === null
            ? []
            : r.tree.kind === 'bool'
              ? ((allRequired ? r.tree.must : r.tree.should) ?? [])
              : [r.tree];
        assert.deepEqual(clauses, expected);
        if (expected.length >= 2) {
          assert.deepEqual(
            r.tree,
            allRequired
              ? { kind: 'bool', must: expected }
              : { kind: 'bool', should: expected, coordBoost: DEFAULT_COORD_BOOST },
          );
        }
        assert.deepEqual(r.words, kept);
        // Under the limit, the terms are those of the whole text.
        if (expected.length < MAX_CLAUSES) {
          assert.deepEqual(
            clauses.flatMap((c) => (c.kind === 'term' ? [c.term] : c.kind === 'phrase' ? c.terms : [])),
            body.terms(text),
          );
        }
      }),
      { numRuns: 500 },
    );
  });

  // An oracle for well-formed queries: clauses generated as data, written as text, and the
  // tree they must give built directly from the data.
  type Spec = {
    op: '' | '+' | '-';
    field: string | undefined;
    kind: 'word' | 'phrase' | 'group' | 'prefix';
    words: [string, ...string[]];
  };
  const VOCAB = ['rome', 'caesar', 'antony', 'the', 'legions', 'e-mail', 'Ünï'];
  const specArb: fc.Arbitrary<Spec> = fc.record({
    op: fc.constantFrom('' as const, '+' as const, '-' as const),
    field: fc.constantFrom(undefined, 't', 'a1'),
    kind: fc.constantFrom('word' as const, 'phrase' as const, 'group' as const, 'prefix' as const),
    words: fc
      .tuple(fc.constantFrom(...VOCAB), fc.array(fc.constantFrom(...VOCAB), { maxLength: 2 }))
      .map(([first, rest]): [string, ...string[]] => [first, ...rest]),
  });

  function render(s: Spec): string {
    const scope = s.field === undefined ? '' : `${s.field}:`;
    if (s.kind === 'word') return `${s.op}${scope}${s.words[0]}`;
    if (s.kind === 'prefix') return `${s.op}${scope}${s.words[0].slice(0, 3)}*`;
    if (s.kind === 'phrase') return `${s.op}${scope}"${s.words.join(' ')}"`;
    return `${s.op}${scope}[${s.words.join(' ')}]`;
  }

  const withField = <T extends Query>(q: T, field: string | undefined): T =>
    field === undefined ? q : { ...q, field };

  function leafOf(text: string, field: string | undefined): Query | null {
    const tokens = analyzerFor(field).tokens(text);
    const [first] = tokens;
    if (first === undefined) return null;
    if (tokens.length === 1) return withField({ kind: 'term', term: first.term }, field);
    const positions = tokens.map((t) => t.position - first.position);
    const phrase: Query = { kind: 'phrase', terms: tokens.map((t) => t.term) };
    return withField(positions.some((p, i) => p !== i) ? { ...phrase, positions } : phrase, field);
  }

  function expectedOf(s: Spec): Query | null {
    if (s.kind === 'word') return leafOf(s.words[0], s.field);
    if (s.kind === 'phrase') return leafOf(s.words.join(' '), s.field);
    if (s.kind === 'prefix') {
      // `e-m*`: the part before the hyphen is a term, the last part the prefix.
      const pieces = s.words[0].slice(0, 3).split('-');
      const prefix = analyzerFor(s.field).normalizePrefix(pieces.at(-1) ?? '');
      const before = analyzerFor(s.field).terms(pieces.slice(0, -1).join(' '));
      const parts: Query[] = before.map((term) => withField({ kind: 'term', term }, s.field));
      if (prefix.length >= 2) parts.push(withField({ kind: 'prefix', prefix }, s.field));
      const [only, ...more] = parts;
      return only === undefined ? null : more.length === 0 ? only : { kind: 'bool', must: parts };
    }
    const items = s.words.map((w) => leafOf(w, s.field)).filter((q): q is Query => q !== null);
    const [only, ...more] = items;
    return only === undefined
      ? null
      : more.length === 0
        ? only
        : { kind: 'bool', should: items, minShouldMatch: 1 };
  }

  it('gives well-formed queries the tree built from their clauses', () => {
    fc.assert(
      fc.property(fc.array(specArb, { maxLength: 8 }), (specs) => {
        const r = parse(specs.map(render).join(' '));
        const slots: Record<'must' | 'should' | 'mustNot', Query[]> = { must: [], should: [], mustNot: [] };
        for (const s of specs) {
          const q = expectedOf(s);
          if (q !== null) slots[s.op === '+' ? 'must' : s.op === '-' ? 'mustNot' : 'should'].push(q);
        }
        const { must, should, mustNot } = slots;
        let expected: Query | null;
        if (must.length + should.length + mustNot.length === 0) expected = null;
        else if (must.length + should.length === 0)
          expected = { kind: 'bool', must: [{ kind: 'all' }], mustNot };
        else if (mustNot.length === 0 && must.length + should.length === 1)
          expected = must[0] ?? should[0] ?? null;
        else {
          expected = { kind: 'bool' };
          if (must.length > 0) expected.must = must;
          if (should.length > 0) expected.should = should;
          if (mustNot.length > 0) expected.mustNot = mustNot;
          if (should.length >= 2 || (should.length === 1 && must.length > 0))
            expected.coordBoost = DEFAULT_COORD_BOOST;
        }
        assert.deepEqual(r.tree, expected);
      }),
      { numRuns: 1000 },
    );
  });
});
