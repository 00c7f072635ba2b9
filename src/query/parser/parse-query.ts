/**
 * The query language (**compat**: the original's) → the query tree of `../query-tree.ts`.
 *
 * | typed                         | tree                                                            |
 * |-------------------------------|-----------------------------------------------------------------|
 * | `a b`                         | should clauses with `coordBoost` (documents with all words first: the tiers) |
 * | `a b` with `allRequired`      | must clauses (`fmo=on`, fully matching only)                     |
 * | `"a b"`                       | PhraseQuery; positions from the analyzer, so a removed stop word leaves a gap |
 * | `e-mail`, `HTTP/1.1`          | a word the analyzer splits is a phrase of its tokens            |
 * | `the`, `-`, `…`               | a word analysed to nothing is dropped                           |
 * | `+x`, `-x`                    | must, mustNot (`x`: a word, a phrase or a bracket)              |
 * | `!x`                          | read as `-x` (the original keeps `!x` documents in lower tiers; the tree cannot) |
 * | `\|x`                         | filter: required, not scored (the original's scoped inclusion)  |
 * | `[a "b c" t:d]`               | one clause: a BooleanQuery of should clauses, minShouldMatch 1  |
 * | `t:x`, `t:"a b"`, `t:[a b]`, `t:ab*` | the same with `field: 't'` and the class's analyzer      |
 * | `abc*`                        | PrefixQuery of `analyzer.normalizePrefix('abc')`, OR the word's |
 * |                               | own term when stemming changed it (`routing*` finds `rout`)     |
 * | `-a -b`                       | MatchAll with mustNot: everything but those                     |
 *
 * Decisions where the original is silent or where a malformed query must degrade:
 * - Brackets in brackets are flattened: `[a [b c]]` is `[a b c]` (any-of is associative),
 *   an inner class scopes only its own items, and operators inside brackets are ignored
 *   (with a warning): `[a -b]` is `[a b]`.
 * - Truncation: a bare `*`, or a prefix shorter than {@link MIN_PREFIX_LENGTH} code points
 *   after normalisation, is dropped (with a warning): it would expand to most of the
 *   vocabulary. Leading stars are ignored (`*port*` is `port*`; no left truncation). A
 *   truncated word the analyzer would split (`e-ma*`, `example.co*`) needs its earlier
 *   parts as terms and its last part as the prefix (a phrase cannot end in a prefix).
 * - Unbalanced quotes and brackets, stray operators and colons are ignored as syntax and
 *   their words kept (see `scan-query.ts`). The result is never an error.
 * - Limits: the text is cut at {@link MAX_QUERY_LENGTH} UTF-16 units, and at most
 *   {@link MAX_CLAUSES} leaf clauses (terms, phrases, prefixes; inside brackets too) are
 *   kept, in the order typed; both are reported in `warnings`.
 * - Unknown classes are not an error: they match nothing.
 */
import { SearchError } from '../../errors.js';
import type { Analyzer, Token } from '../../index/analysis/analyzer.js';
import type { BooleanQuery, PhraseQuery, PrefixQuery, Query, TermQuery } from '../query-tree.js';
import { scanQuery, type QueryOperator, type QueryToken } from './scan-query.js';

/** Longer query texts are cut here (UTF-16 units), never refused. */
export const MAX_QUERY_LENGTH = 2000;
/** Leaf clauses (term, phrase, prefix) kept; further ones are ignored and reported. */
export const MAX_CLAUSES = 64;
/** Shortest truncation prefix (code points, after normalisation). */
export const MIN_PREFIX_LENGTH = 2;
/**
 * Added per matching should clause. A BM25F clause scores below idf·(k1+1), about 30 for a
 * million documents, so 1000 keeps the original's strict tiers (all words, then one fewer…)
 * for any realistic query while the order inside a tier stays BM25F. Callers that want soft
 * tiers (long natural-language queries) pass a smaller `coordBoost`.
 */
export const DEFAULT_COORD_BOOST = 1000;

export interface ParseQueryOptions {
  /** The analyzer of a class (`undefined`: the default content fields), as `Schema.analyzerFor`. */
  analyzerFor(field: string | undefined): Analyzer;
  /** Fully matching only (`fmo=on`): every clause without an operator becomes `must`. */
  allRequired?: boolean;
  /** `coordBoost` of the top-level should clauses; default {@link DEFAULT_COORD_BOOST}. */
  coordBoost?: number;
}

/** A positive term of the query, as analysed (what highlighting and spelling look for). */
export interface QueryTerm {
  /** The class; absent for the default content fields. */
  field?: string;
  term: string;
  /** Present when `term` is a truncation prefix (highlight words starting with it). */
  prefix?: true;
}

export interface ParsedQuery {
  /** Null when nothing searchable is left (empty text, only operators, only stop words). */
  tree: Query | null;
  /** Every positive term (not under `-`/`!`), deduplicated, in the order typed. */
  terms: QueryTerm[];
  /**
   * The plain words as typed (no operator, class, quotes or `*`; not excluded; not dropped
   * by the analyzer), in order: what "did you mean" may correct and substitute back.
   */
  words: string[];
  /**
   * Every positive unit as typed (words, `"phrases"`, `prefixes*`, `class:` scopes; no
   * leading operator), in order: the result packet's `searchedFor`.
   */
  searched: string[];
  /** What was ignored or changed, in plain words (for logs and the results page). */
  warnings: string[];
}

interface Unit {
  query: Query;
  leaves: number;
  terms: QueryTerm[];
  /** Set for a plain unscoped word. */
  word?: string;
  raw: string;
}

type Slot = 'should' | 'must' | 'mustNot' | 'filter';

const SLOT_OF: Record<QueryOperator, Slot> = { '+': 'must', '-': 'mustNot', '!': 'mustNot', '|': 'filter' };
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const LEADING_OPERATORS = /^[+\-!|]+/;
const PREFIX_CHAR = /[\p{L}\p{N}\p{M}'\u2019\u00ad\u200c\u200d\u2060]/u;
const DECIMAL_DIGIT = /\p{Nd}/u;
const WARNING_TEXT_LENGTH = 40;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Parses a query text into a query tree. Never throws for any text: malformed syntax
 * degrades to the words it contains. Deterministic: the same text and options give the same
 * result.
 *
 * @throws SearchError `QUERY_INVALID` only when `options.coordBoost` is not a finite number >= 0.
 */
export function parseQuery(text: string, options: ParseQueryOptions): ParsedQuery {
  const coordBoost = options.coordBoost ?? DEFAULT_COORD_BOOST;
  if (typeof coordBoost !== 'number' || !Number.isFinite(coordBoost) || coordBoost < 0) {
    throw new SearchError(
      'QUERY_INVALID',
      `coordBoost must be a finite number >= 0, got ${String(coordBoost)}`,
    );
  }
  return new QueryParser(options, coordBoost).parse(typeof text === 'string' ? text : '');
}

class QueryParser {
  private readonly options: ParseQueryOptions;
  private readonly coordBoost: number;
  private readonly analyzers = new Map<string | undefined, Analyzer>();
  private readonly warnings: string[] = [];
  private readonly terms: QueryTerm[] = [];
  private readonly termKeys = new Set<string>();
  private readonly words: string[] = [];
  private readonly searched: string[] = [];
  private readonly ignored: string[] = [];
  private leaves = 0;
  private tokens: QueryToken[] = [];

  constructor(options: ParseQueryOptions, coordBoost: number) {
    this.options = options;
    this.coordBoost = coordBoost;
  }

  parse(input: string): ParsedQuery {
    let text = input;
    if (text.length > MAX_QUERY_LENGTH) {
      text = text.slice(0, MAX_QUERY_LENGTH);
      this.warn(`the query was cut to its first ${MAX_QUERY_LENGTH} characters`);
    }
    // Half of a surrogate pair (the cut above, a broken client) is no character: a separator.
    // The analyzer may throw on one at the end of a text, and words would keep it.
    text = text.replace(LONE_SURROGATE, ' ');
    const scanned = scanQuery(text);
    for (const w of scanned.warnings) this.warn(w);
    this.tokens = scanned.tokens;

    const slots: Record<Slot, Query[]> = { should: [], must: [], mustNot: [], filter: [] };
    let i = 0;
    while (i < this.tokens.length) {
      const token = this.tokens[i];
      if (token.kind === 'close') {
        i++; // the scanner balances brackets; a close here cannot happen, but costs nothing to skip
        continue;
      }
      const op = token.op;
      const positive = op !== '-' && op !== '!';
      let query: Query | null;
      if (token.kind === 'open') {
        const group: Query[] = [];
        i = this.readGroup(i + 1, token.field, positive, group);
        query =
          group.length === 0
            ? null
            : group.length === 1
              ? group[0]
              : { kind: 'bool', should: group, minShouldMatch: 1 };
      } else {
        query = this.full(token) ? null : this.take(this.unitOf(token), positive);
        i++;
      }
      if (query === null) continue;
      const slot: Slot =
        op !== undefined ? SLOT_OF[op] : this.options.allRequired === true ? 'must' : 'should';
      slots[slot].push(query);
    }

    if (this.ignored.length > 0) {
      const shown = this.ignored.slice(0, 10).map(short).join(' ');
      const more = this.ignored.length > 10 ? ` and ${this.ignored.length - 10} more` : '';
      this.warn(`only the first ${MAX_CLAUSES} words and phrases are searched; ignored: ${shown}${more}`);
    }
    return {
      tree: this.assemble(slots),
      terms: this.terms,
      words: this.words,
      searched: this.searched,
      warnings: this.warnings,
    };
  }

  private assemble(slots: Record<Slot, Query[]>): Query | null {
    const { should, must, mustNot, filter } = slots;
    const positives = should.length + must.length + filter.length;
    if (positives + mustNot.length === 0) return null;
    if (positives === 0) return { kind: 'bool', must: [{ kind: 'all' }], mustNot };
    if (mustNot.length === 0 && filter.length === 0 && should.length + must.length === 1) {
      return should.length === 1 ? should[0] : must[0];
    }
    const bool: BooleanQuery = { kind: 'bool' };
    if (must.length > 0) bool.must = must;
    if (should.length > 0) bool.should = should;
    if (mustNot.length > 0) bool.mustNot = mustNot;
    if (filter.length > 0) bool.filter = filter;
    // With one should clause and nothing required the coordination bonus is a constant: leave it out.
    if (should.length >= 2 || (should.length === 1 && must.length + filter.length > 0))
      bool.coordBoost = this.coordBoost;
    return bool;
  }

  /**
   * Reads the items of a bracket whose `[` was just before `start` into `items`, flattening
   * brackets inside it; returns the index after its `]`.
   */
  private readGroup(start: number, field: string | undefined, positive: boolean, items: Query[]): number {
    let i = start;
    while (i < this.tokens.length) {
      const token = this.tokens[i];
      if (token.kind === 'close') return i + 1;
      if (token.op !== undefined)
        this.warn('operators inside [ ] are ignored: [a b] matches any of its words');
      const itemField = token.field ?? field;
      if (token.kind === 'open') {
        i = this.readGroup(i + 1, itemField, positive, items);
        continue;
      }
      const query = this.full(token)
        ? null
        : this.take(this.unitOf({ ...token, field: itemField }), positive);
      if (query !== null) items.push(query);
      i++;
    }
    return i;
  }

  /** True (and the token reported) when the clause limit is reached: analysing it is wasted work. */
  private full(token: QueryToken): boolean {
    if (this.leaves < MAX_CLAUSES) return false;
    this.ignored.push(token.raw);
    return true;
  }

  /** Keeps a unit within the clause limit and records its terms and word; null when dropped. */
  private take(unit: Unit | null, positive: boolean): Query | null {
    if (unit === null) return null;
    // `full()` skipped units once the limit was reached; one of several leaves (`e-ma*`)
    // can still overflow it here.
    if (this.leaves + unit.leaves > MAX_CLAUSES) {
      this.ignored.push(unit.raw);
      return null;
    }
    this.leaves += unit.leaves;
    if (positive) {
      for (const t of unit.terms) {
        const key = `${t.field ?? ''}\u0000${t.term}\u0000${t.prefix === true ? 1 : 0}`;
        if (!this.termKeys.has(key)) {
          this.termKeys.add(key);
          this.terms.push(t);
        }
      }
      if (unit.word !== undefined) this.words.push(unit.word);
      this.searched.push(unit.raw.replace(LEADING_OPERATORS, ''));
    }
    return unit.query;
  }

  private unitOf(token: QueryToken & { kind: 'word' | 'phrase' }): Unit | null {
    const field = token.field;
    const analyzer = this.analyzer(field);
    if (token.kind === 'phrase') {
      const unit = tokensUnit(field, analyzer.tokens(token.text), token.raw);
      if (unit === null && LETTER_OR_DIGIT.test(token.text))
        this.warn(`${short(token.raw)} has no searchable words and was ignored`);
      return unit;
    }
    if (token.text.endsWith('*'))
      return this.prefixUnit(field, analyzer, token.text.replace(/^\*+|\*+$/g, ''), token.raw);
    const unit = tokensUnit(field, analyzer.tokens(token.text), token.raw);
    if (unit === null) {
      if (LETTER_OR_DIGIT.test(token.text))
        this.warn(`"${short(token.raw)}" was ignored (a stop word, or too long)`);
      return null;
    }
    if (field === undefined) unit.word = token.text.replace(LEADING_OPERATORS, '');
    return unit;
  }

  /** `body*`: the last run of word characters is the prefix; earlier parts must match as terms. */
  private prefixUnit(field: string | undefined, analyzer: Analyzer, body: string, raw: string): Unit | null {
    const cps = Array.from(body);
    const isPrefixChar = (k: number): boolean =>
      PREFIX_CHAR.test(cps[k]) || (cps[k] === '.' && k > 0 && DECIMAL_DIGIT.test(cps[k - 1]));
    let end = cps.length;
    while (end > 0 && !isPrefixChar(end - 1)) end--;
    let start = end;
    while (start > 0 && isPrefixChar(start - 1)) start--;
    const prefix = analyzer.normalizePrefix(cps.slice(start, end).join(''));
    const before = analyzer.terms(cps.slice(0, start).join(''));
    const parts: Query[] = before.map((term) => withField<TermQuery>({ kind: 'term', term }, field));
    const terms: QueryTerm[] = before.map((term) => withField<QueryTerm>({ term }, field));
    if (Array.from(prefix).length >= MIN_PREFIX_LENGTH) {
      const truncation = withField<PrefixQuery>({ kind: 'prefix', prefix }, field);
      // Under stemming the index holds `rout` for "routing": the prefix alone would miss the
      // word itself, so the word's own term is searched with it.
      const own = analyzer.terms(cps.slice(start, end).join(''));
      const stem =
        own.length === 1 && /^\p{L}+$/u.test(prefix) && !own[0]!.startsWith(prefix) ? own[0] : undefined;
      parts.push(
        stem === undefined
          ? truncation
          : { kind: 'bool', should: [truncation, withField<TermQuery>({ kind: 'term', term: stem }, field)] },
      );
      terms.push(withField<QueryTerm>({ term: prefix, prefix: true }, field));
      if (stem !== undefined) terms.push(withField<QueryTerm>({ term: stem }, field));
    } else if (prefix === '') {
      this.warn('a * without letters or digits before it was ignored');
    } else {
      this.warn(
        `"${short(raw)}" was ignored: truncation needs at least ${MIN_PREFIX_LENGTH} letters or digits before the *`,
      );
    }
    if (parts.length === 0) return null;
    const query: Query = parts.length === 1 ? parts[0] : { kind: 'bool', must: parts };
    return { query, leaves: parts.length, terms, raw };
  }

  private analyzer(field: string | undefined): Analyzer {
    let analyzer = this.analyzers.get(field);
    if (analyzer === undefined) {
      analyzer = this.options.analyzerFor(field);
      this.analyzers.set(field, analyzer);
    }
    return analyzer;
  }

  private warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }
}

/** One token is a term; several are a phrase, with positions only when a stop word left a gap. */
function tokensUnit(field: string | undefined, tokens: Token[], raw: string): Unit | null {
  if (tokens.length === 0) return null;
  const terms = tokens.map((t) => withField<QueryTerm>({ term: t.term }, field));
  if (tokens.length === 1)
    return {
      query: withField<TermQuery>({ kind: 'term', term: tokens[0].term }, field),
      leaves: 1,
      terms,
      raw,
    };
  const phrase = withField<PhraseQuery>({ kind: 'phrase', terms: tokens.map((t) => t.term) }, field);
  const first = tokens[0].position;
  if (tokens.some((t, k) => t.position - first !== k))
    phrase.positions = tokens.map((t) => t.position - first);
  return { query: phrase, leaves: 1, terms, raw };
}

/** Sets `field` only when there is one, so unscoped nodes have no `field` key at all. */
function withField<T extends { field?: string }>(node: T, field: string | undefined): T {
  if (field !== undefined) node.field = field;
  return node;
}

function short(text: string): string {
  const cps = Array.from(text);
  return cps.length <= WARNING_TEXT_LENGTH ? text : cps.slice(0, WARNING_TEXT_LENGTH).join('') + '…';
}
