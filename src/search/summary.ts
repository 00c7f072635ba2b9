import type { Analyzer, TokenSink } from '../index/analysis/analyzer.js';
import { ASCII_CLASS, OTHER } from '../index/analysis/char-class.js';
import { DROPPED, SpellingTable, UNKNOWN } from '../index/analysis/spelling-table.js';
import { BoundedMap } from '../bounded-map.js';
import { escapeHtml, HTML_ESCAPES } from '../escape-html.js';
import { isWideSpace } from '../whitespace.js';
import {
  ASCII_PAIR_STEP,
  ASCII_STEP,
  asciiStartsExactly,
  asciiTokenEnd,
  forEachAsciiToken,
  type AsciiTokenSink,
} from './ascii-tokens.js';
import { candidatePatterns, type CandidatePatterns } from './summary-candidates.js';

/** How much of a document's text is searched for the best passage (long documents: the start). */
const SCAN_CHARS = 20_000;
/**
 * The characters of a text a summary depends on: the {@link SCAN_CHARS} it searches, and one
 * more, which says whether the text goes on after them (the summary then ends with `…`). The
 * summary of `text.slice(0, SUMMARY_TEXT_CHARS)` is the summary of `text`, so a search
 * decodes no more of a stored text than that.
 */
export const SUMMARY_TEXT_CHARS = SCAN_CHARS + 1;
const WINDOW_TOKENS = 32;
/** Kept tokens shown before the best window's first one (unless a sentence starts near). */
const LEAD_TOKENS = 4;
/**
 * Characters counted per token still wanted while a range grows (RFC text has about 8 per
 * kept token, layout included), and at least: counting a little too far costs less than
 * coming back.
 */
const STEP_PER_TOKEN = 8;
const MIN_STEP = 64;
/**
 * Shortest spelling prefix worth searching for (see `summary-candidates.ts`): a shorter one
 * is found at nearly every word, and analysing the whole text at once is cheaper then.
 */
const MIN_PREFIX = 2;
/**
 * Words analysed one at a time before a summary analyses the whole text instead: this many,
 * and one per so many characters (a call of the analyzer costs about what it takes to scan a
 * few dozen characters).
 */
const MIN_WORDS = 16;
const CHARS_PER_WORD = 64;

/** What {@link TokenScan} does with the tokens the analyzer reports. */
const enum Mode {
  /** Finds the query terms among them (and counts every kept token). */
  Hits,
  /** Counts the kept tokens, giving each query term found before its index. */
  Count,
  /** Only collects the kept tokens' starts, in `backStarts`. */
  Back,
}

/**
 * What a summary knows of the text it summarises. Reused from one summary to the next (a
 * thread builds one at a time), so a summary allocates no object per token.
 *
 * - Hits: every token that is a query term, with its start, end, distinct-term number and
 *   kept-token index.
 * - Kept tokens of the ranges counted (see {@link indexHits}): their starts, by index (a lead
 *   of a few tokens before the best window is cut from them). Indexes are counted in one
 *   sequence over the ranges with {@link WINDOW_TOKENS} unused ones between two ranges: exact
 *   inside a range, and far enough apart between ranges that no window reaches from one to
 *   the next (each range goes on for a window past its last hit).
 */
class TokenScan implements TokenSink, AsciiTokenSink {
  mode = Mode.Hits;
  /** Start of every kept token counted, by index. */
  starts: Int32Array = new Int32Array(4096);
  /** The next index; 0 only when the text has no kept token. */
  kept = 0;
  /** Kept-token index, start, end and distinct-term number of every token that is a query term. */
  hitIndex: Int32Array = new Int32Array(256);
  hitStart: Int32Array = new Int32Array(256);
  hitEnd: Int32Array = new Int32Array(256);
  hitTerm: Int32Array = new Int32Array(256);
  hits = 0;
  /** The first hit not given its index yet ({@link Mode.Count}). */
  nextHit = 0;
  /** Index of the first kept token of each range, and where the range begins in the text. */
  rangeIndex: Int32Array = new Int32Array(64);
  rangeFrom: Int32Array = new Int32Array(64);
  ranges = 0;
  /** Starts of the kept tokens found in {@link Mode.Back}. */
  backStarts: Int32Array = new Int32Array(64);
  backCount = 0;
  /**
   * Whether every token of the text up to the analyzer's longest is kept (an ASCII text and
   * no stop words: only stop words and overlong tokens are dropped then, and folding never
   * empties an ASCII token), so that counting needs no term.
   */
  keptByLength = false;
  private maxTokenLength = 0;
  /** Where the analysed part begins in the text (the analyzer sees only the part). */
  private offset = 0;
  /** The summarised query's terms and their numbers (`hitTerm`). */
  private query: QueryTerms | null = null;
  private analyzer: Analyzer | null = null;
  private table: SpellingTable | null = null;
  /**
   * 1 at the table id of each query term the table held when the query's ids were looked up
   * (a term id below `knownTerms` is a query term exactly when marked): one array read per
   * token instead of a set lookup. Ids added since are checked by their term.
   */
  private queryIds = new Uint8Array(1024);
  private knownTerms = 0;
  private marked: readonly number[] = [];

  /** Starts the scan of a new text for `query`; {@link end} must follow. */
  begin(analyzer: Analyzer, query: QueryTerms): void {
    this.restart();
    this.keptByLength = false;
    this.maxTokenLength = analyzer.options.maxTokenLength;
    this.query = query;
    this.analyzer = analyzer;
    // Spellings → terms (the indexing threads' table): a word seen before costs a hash the
    // scanner already computed and one comparison, no string and no normalisation.
    const table = SpellingTable.for(analyzer);
    this.table = table;
    const ids = query.idsIn(table);
    this.knownTerms = ids.knownTerms;
    if (this.queryIds.length < this.knownTerms)
      this.queryIds = new Uint8Array(Math.max(2 * this.queryIds.length, this.knownTerms));
    this.marked = ids.ids;
    for (const id of ids.ids) this.queryIds[id] = 1;
  }

  /** Forgets what was found in the text so far, to analyse it again. */
  restart(): void {
    this.mode = Mode.Hits;
    this.kept = 0;
    this.hits = 0;
    this.nextHit = 0;
    this.ranges = 0;
  }

  end(): void {
    for (const id of this.marked) this.queryIds[id] = 0;
    this.marked = [];
    this.query = null;
    this.analyzer = null;
    this.table = null;
  }

  /** Opens a range at `from` (a cut, see {@link isCut}) whose first kept token gets index `first`. */
  openRange(from: number, first: number): void {
    if (this.ranges === this.rangeIndex.length) {
      this.rangeIndex = grow(this.rangeIndex);
      this.rangeFrom = grow(this.rangeFrom);
    }
    this.rangeIndex[this.ranges] = first;
    this.rangeFrom[this.ranges] = from;
    this.ranges++;
    this.kept = first;
  }

  /** Analyses `text[from, to)` (both cuts) in the current mode. */
  analyse(text: string, from: number, to: number): void {
    if (this.keptByLength && this.mode !== Mode.Hits) {
      this.countAsciiTokens(text, from, to);
      return;
    }
    this.offset = from;
    this.analyzer!.forEachToken(from === 0 && to === text.length ? text : text.substring(from, to), 0, this);
  }

  /**
   * {@link Mode.Hits} in an ASCII text: the tokens of `text[from, to)` (both cuts) found
   * without the analyzer, with what it would report for them (see `ascii-tokens.ts`).
   */
  analyseAscii(text: string, from: number, to: number): void {
    this.offset = 0;
    forEachAsciiToken(text, from, to, this);
  }

  /** Collects the starts of the kept tokens of `text[from, to)` (both cuts) into `backStarts`. */
  collectStarts(text: string, from: number, to: number): void {
    const mode = this.mode;
    this.mode = Mode.Back;
    this.backCount = 0;
    try {
      this.analyse(text, from, to);
    } finally {
      this.mode = mode;
    }
  }

  token(text: string, start: number, end: number, kind: number, hash: number): void {
    if (this.mode !== Mode.Hits) {
      this.count(text, start, end, kind, hash);
      return;
    }
    const table = this.table!;
    const id = table.lookup(text, start, end, kind, hash);
    if (id === DROPPED) return;
    let term: string | null = null;
    if (id === UNKNOWN) {
      term = this.analyzer!.termOfToken(text, start, end, kind);
      if (term === null) return;
    }
    start += this.offset;
    end += this.offset;
    if (this.kept >= this.starts.length) this.starts = grow(this.starts, this.kept + 1);
    const index = this.kept++;
    this.starts[index] = start;
    if (term === null) {
      if (id < this.knownTerms && this.queryIds[id] === 0) return;
      term = table.terms[id]!;
    }
    const number = this.query!.numbers.get(term);
    if (number === undefined) return;
    if (this.hits === this.hitIndex.length) {
      this.hitIndex = grow(this.hitIndex);
      this.hitStart = grow(this.hitStart);
      this.hitEnd = grow(this.hitEnd);
      this.hitTerm = grow(this.hitTerm);
    }
    const hit = this.hits++;
    this.hitIndex[hit] = index;
    this.hitStart[hit] = start;
    this.hitEnd[hit] = end;
    this.hitTerm[hit] = number;
  }

  /** {@link Mode.Count} and {@link Mode.Back}: a kept token's start, and the index of a hit met. */
  private count(text: string, start: number, end: number, kind: number, hash: number): void {
    const id = this.table!.lookup(text, start, end, kind, hash);
    if (id === DROPPED) return;
    if (id === UNKNOWN && this.analyzer!.termOfToken(text, start, end, kind) === null) return;
    this.keep(start + this.offset);
  }

  /**
   * {@link Mode.Count} and {@link Mode.Back} when {@link keptByLength}: the tokens of the
   * ASCII text `text[from, to)` (both cuts) found here rather than by the analyzer, which
   * then has nothing to add (no term is looked at), and a call per token and the spelling's
   * hash cost more than finding them (the ranges counted are most of a page whose words
   * match often). One table step per pair of characters ({@link ASCII_PAIR_STEP}) without a branch: every
   * character's position is written where the next start goes, and the count moves on at a
   * token's first character. A token longer than the analyzer keeps (rare) can only be where
   * two starts are further apart than that: such a token is measured, and when one is too
   * long the text is counted again by {@link asciiStartsExactly}.
   */
  countAsciiTokens(text: string, from: number, to: number): void {
    const back = this.mode === Mode.Back;
    let out = back ? this.backStarts : this.starts;
    const first = back ? this.backCount : this.kept;
    // Two tokens are at least two characters apart; the last position is written past the last start.
    const most = first + ((to - from + 1) >> 1) + 1;
    if (out.length < most) {
      out = grow(out, most);
      if (back) this.backStarts = out;
      else this.starts = out;
    }
    let count = first;
    let state = 0;
    let i = from;
    // Two characters a step (ASCII_PAIR_STEP), then the last one alone when the length is odd.
    for (; i + 1 < to; i += 2) {
      const step = ASCII_PAIR_STEP[(state << 14) | (text.charCodeAt(i) << 7) | text.charCodeAt(i + 1)]!;
      out[count] = i;
      count += (step >> 3) & 1;
      out[count] = i + 1;
      count += step >> 4;
      state = step & 7;
    }
    if (i < to) {
      out[count] = i;
      count += ASCII_STEP[(state << 7) | text.charCodeAt(i)]! >> 3;
    }
    const maxLength = this.maxTokenLength;
    for (let j = first; j < count; j++) {
      const start = out[j]!;
      if (
        (j + 1 < count ? out[j + 1]! : to) - start > maxLength &&
        asciiTokenEnd(text, start, to) - start > maxLength
      ) {
        count = asciiStartsExactly(text, from, to, maxLength, out, first);
        break;
      }
    }
    if (back) {
      this.backCount = count;
      return;
    }
    // The hits among these tokens get their indexes (a hit not at a token's start would stay
    // without one; indexHits says so).
    let j = first;
    while (this.nextHit < this.hits) {
      const start = this.hitStart[this.nextHit]!;
      if (start >= to) break;
      while (j < count && out[j]! < start) j++;
      if (j === count || out[j] !== start) break;
      this.hitIndex[this.nextHit++] = j++;
    }
    this.kept = count;
  }

  /** {@link Mode.Count} and {@link Mode.Back}: the kept token at `start` (in the whole text). */
  private keep(start: number): void {
    if (this.mode === Mode.Back) {
      if (this.backCount === this.backStarts.length) this.backStarts = grow(this.backStarts);
      this.backStarts[this.backCount++] = start;
      return;
    }
    if (this.nextHit < this.hits && this.hitStart[this.nextHit] === start)
      this.hitIndex[this.nextHit++] = this.kept;
    if (this.kept >= this.starts.length) this.starts = grow(this.starts, this.kept + 1);
    this.starts[this.kept++] = start;
  }
}

function grow(array: Int32Array, atLeast = 0): Int32Array {
  const bigger = new Int32Array(Math.max(array.length * 2, atLeast));
  bigger.set(array);
  return bigger;
}

/**
 * Whether `text[i]` is a cut: an ASCII character that is neither a letter, a digit, `.` nor
 * `'`. No token holds one (only those two join characters into a token, and the runs of
 * scripts written without spaces are never ASCII), and the scanner keeps no state across
 * one, so analysing the text between two cuts (or the text's ends) gives exactly the tokens
 * that analysing the whole text gives there.
 */
function isCut(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c < 128 && ASCII_CLASS[c] === OTHER && c !== 46 && c !== 39;
}

/** The cut (or the text's start) at or before `at`, not before `floor` (a cut). */
function cutBefore(text: string, at: number, floor: number): number {
  let from = at;
  while (from > floor && !isCut(text, from)) from--;
  return from;
}

/** The first cut after `at`, or the text's end. */
function cutAfter(text: string, at: number): number {
  const n = text.length;
  let to = at + 1;
  while (to < n && !isCut(text, to)) to++;
  return to;
}

/**
 * Finds the hits of `text` into {@link scan}: every place `pattern` finds (where a query term
 * can be, see `summary-candidates.ts`) is inside a word between two cuts, and only those
 * words are analysed. In an ASCII text `pattern` finds only spelling prefixes and the
 * apostrophes are found apart (`indexOf`: an alternative for them costs a regular expression
 * about twice the time), the two taking turns in the text's order. The words' other tokens
 * are counted meanwhile, but not kept ({@link indexHits} counts again, in ranges). False
 * when the words found are so many (text in a language with accents, say) that analysing
 * each on its own would cost more than analysing the whole text: nothing is found then.
 */
function findHits(text: string, pattern: RegExp, ascii: boolean): boolean {
  const n = text.length;
  const maxWords = MIN_WORDS + n / CHARS_PER_WORD;
  let words = 0;
  let end = 0;
  // The next place each search found (at or past `end` once searched again), -1 when none is left.
  let match = -2;
  let quote = ascii ? -2 : -1;
  while (end < n) {
    if (match !== -1 && match < end) {
      pattern.lastIndex = end;
      // `test` rather than `exec`: no match to allocate. The match holds no cut (see
      // `summary-candidates.ts`), so its last character is in the word it starts in.
      match = pattern.test(text) ? pattern.lastIndex - 1 : -1;
    }
    if (quote !== -1 && quote < end) quote = text.indexOf("'", end);
    const at = match === -1 ? quote : quote === -1 || match < quote ? match : quote;
    if (at === -1) break;
    if (++words > maxWords) return false;
    const from = cutBefore(text, at, end);
    end = cutAfter(text, at);
    if (ascii) scan.analyseAscii(text, from, end);
    else scan.analyse(text, from, end);
  }
  return true;
}

/**
 * Finds the hits of the ASCII text `text`, for an analyzer that drops no token for its term,
 * in one pass: every kept token is counted (one range, see {@link TokenScan.countAsciiTokens}),
 * and only the tokens whose first two characters (an apostrophe aside, lower-cased) start a
 * spelling prefix (`firstPairs`, see {@link Summarizer}) are looked at: a token whose term is
 * a query term starts with its spelling prefix (see `summary-candidates.ts`). For texts where
 * the candidate words are too many for {@link findHits}.
 */
function findHitsAscii(text: string, firstPairs: Uint8Array): void {
  const n = text.length;
  scan.restart();
  scan.keptByLength = true;
  scan.openRange(0, 0);
  scan.mode = Mode.Count;
  scan.countAsciiTokens(text, 0, n);
  scan.mode = Mode.Hits;
  const kept = scan.kept;
  const starts = scan.starts;
  for (let j = 0; j < kept; j++) {
    const start = starts[j]!;
    let second = text.charCodeAt(start + 1);
    if (second === 39 /* ' */) second = text.charCodeAt(start + 2);
    // Past the text's end charCodeAt is NaN, and NaN | 32 is a space.
    if (firstPairs[((text.charCodeAt(start) | 32) << 7) | ((second | 32) & 127)] === 0) continue;
    // Analysed as the kept token of index j (it is one already: the scan writes its start again).
    scan.kept = j;
    scan.analyseAscii(text, start, asciiTokenEnd(text, start, n));
  }
  scan.kept = kept;
}

/**
 * Gives every hit its kept-token index (see {@link TokenScan}): a range opens at the word of
 * the first hit not counted yet and grows until a window past its last hit; its kept tokens
 * are counted (without their terms when {@link TokenScan.keptByLength}). Text between ranges
 * is not counted.
 */
function indexHits(text: string): void {
  scan.mode = Mode.Count;
  scan.kept = 0;
  scan.nextHit = 0;
  let end = 0;
  while (scan.nextHit < scan.hits) {
    const at = scan.hitStart[scan.nextHit]!;
    const from = cutBefore(text, at, end);
    scan.openRange(from, scan.ranges === 0 ? 0 : scan.kept + WINDOW_TOKENS);
    const to = cutAfter(text, at);
    const hit = scan.nextHit;
    scan.analyse(text, from, to);
    // The same tokens as when the hit was found: never true but for a bug, which must not loop.
    if (scan.nextHit === hit) throw new Error(`summary: the token at ${at} is no longer a query term`);
    end = growRange(text, to);
  }
}

/**
 * Counts the open range on from `at` (a cut) until it holds a window after its last hit or
 * the text ends; returns where it stopped (a cut, or the text's end). After the text's last
 * hit nothing is counted: no window holds more than its hits, and the lead comes before.
 */
function growRange(text: string, at: number): number {
  const n = text.length;
  for (;;) {
    if (scan.nextHit === scan.hits) return at;
    const missing = scan.hitIndex[scan.nextHit - 1]! + WINDOW_TOKENS - scan.kept;
    if (missing <= 0 || at >= n) return at;
    let to = Math.min(n, at + Math.max(MIN_STEP, missing * STEP_PER_TOKEN));
    while (to < n && !isCut(text, to)) to++;
    scan.analyse(text, at, to);
    at = to;
  }
}

/**
 * The kept tokens of `text[from, to)` (both cuts), from its start, until `enough` were found
 * or `to` is reached: their number; the first one's start in `firstStart` (-1 when none).
 */
function countKept(text: string, from: number, to: number, enough: number): number {
  let count = 0;
  firstStart = -1;
  while (from < to && count < enough) {
    let end = Math.min(to, from + Math.max(MIN_STEP, (enough - count) * STEP_PER_TOKEN));
    while (end < to && !isCut(text, end)) end++;
    scan.collectStarts(text, from, end);
    if (firstStart < 0 && scan.backCount > 0) firstStart = scan.backStarts[0]!;
    count += scan.backCount;
    from = end;
  }
  return count;
}
let firstStart = -1;

/** The range holding the kept token of index `index`. */
function rangeOf(index: number): number {
  let range = scan.ranges - 1;
  while (scan.rangeIndex[range]! > index) range--;
  return range;
}

/** Start of the text's first kept token (0 when it has none). */
function firstKeptStart(text: string): number {
  const until = scan.ranges > 0 ? scan.rangeFrom[0]! : text.length;
  countKept(text, 0, until, 1);
  if (firstStart >= 0) return firstStart;
  return scan.ranges > 0 && scan.kept > scan.rangeIndex[0]! ? scan.starts[scan.rangeIndex[0]!]! : 0;
}

/**
 * Start of the kept token {@link LEAD_TOKENS} before the one of index `best` (the text's
 * first kept token when there are fewer before it). Far enough inside its range, `starts`
 * has it; otherwise the text before the range is counted back, a growing span at a time,
 * until it has enough kept tokens or the text starts.
 */
function leadStart(text: string, best: number): number {
  const range = rangeOf(best);
  const first = scan.rangeIndex[range]!;
  if (best - first >= LEAD_TOKENS) return scan.starts[best - LEAD_TOKENS]!;
  const rangeFrom = scan.rangeFrom[range]!;
  const missing = LEAD_TOKENS - (best - first);
  for (let span = missing * 4 * STEP_PER_TOKEN; ; span *= 4) {
    const from = cutBefore(text, Math.max(0, rangeFrom - span), 0);
    scan.collectStarts(text, from, rangeFrom);
    const count = scan.backCount;
    if (count >= missing) return scan.backStarts[count - missing]!;
    if (from === 0) return count > 0 ? scan.backStarts[0]! : scan.starts[first]!;
  }
}

const scan = new TokenScan();
/** Distinct terms seen in one window: marks by term number, reset by a generation count. */
let seenMarks: Int32Array = new Int32Array(64);
let seenGeneration = 0;

/** Queries whose candidate patterns are kept: the 64 most recently used, at most 128. */
const RECENT_PATTERNS = 64;
/**
 * Candidate patterns of recent queries: a query asked again (a popular one, the next page)
 * reuses its regular expressions and the code V8 compiled for them, which costs more than a
 * page of summaries' searches when compiled anew.
 */
const recentPatterns = new BoundedMap<string, CandidatePatterns | null>(RECENT_PATTERNS);

function patternsFor(terms: ReadonlySet<string>, stems: boolean): CandidatePatterns | null {
  let key = stems ? 's' : 'n';
  for (const term of terms) key += '\u0000' + term;
  let patterns = recentPatterns.get(key);
  if (patterns === undefined) {
    patterns = candidatePatterns(terms, stems, MIN_PREFIX);
    recentPatterns.set(key, patterns);
  }
  return patterns;
}

/** Whether the analyzer drops no token for its term (only overlong ones): no stop words. */
function dropsNoTerm(analyzer: Analyzer): boolean {
  const stopWords = analyzer.options.stopWords;
  return stopWords === false || (Array.isArray(stopWords) && stopWords.length === 0);
}

/** The table ids of a query's terms (see {@link QueryTerms.idsIn}). */
interface QueryIds {
  /** Ids of the query terms the table held when they were looked up. */
  ids: number[];
  /** How many terms the table held then: a larger id is checked by its term. */
  knownTerms: number;
}

/**
 * The terms of one query as a summary checks tokens against them: each with a number (the
 * `hitTerm` that tells distinct terms apart in a window), and their ids in the thread's
 * spelling table, looked up again only when the table has grown or been replaced.
 */
class QueryTerms {
  readonly numbers = new Map<string, number>();
  private table: SpellingTable | null = null;
  private ids: QueryIds = { ids: [], knownTerms: 0 };

  constructor(terms: ReadonlySet<string>) {
    for (const term of terms) this.numbers.set(term, this.numbers.size);
  }

  idsIn(table: SpellingTable): QueryIds {
    const knownTerms = table.terms.length;
    if (table !== this.table || knownTerms !== this.ids.knownTerms) {
      const ids: number[] = [];
      for (const term of this.numbers.keys()) {
        const id = table.termId(term);
        if (id !== undefined) ids.push(id);
      }
      this.table = table;
      this.ids = { ids, knownTerms };
    }
    return this.ids;
  }
}

/**
 * Query-biased summaries of the results of one query: what depends only on the query (the
 * candidate patterns, the terms' numbers and table ids) is prepared once, for every result
 * summarised with {@link Summarizer.summarize}. A thread builds one summary at a time; a
 * summarizer may be used after another was (they share the thread's scan state only within
 * one call).
 */
export class Summarizer {
  private readonly query: QueryTerms;
  private readonly keptByLength: boolean;
  /** Undefined until the first summary; null when the whole text is analysed (see {@link candidatePatterns}). */
  private patterns: CandidatePatterns | null | undefined = undefined;
  /** 1 at `c0 << 7 | c1` for the first two characters of each spelling prefix, lower-cased (`| 32`). */
  private firstPairs: Uint8Array | null = null;

  constructor(
    private readonly analyzer: Analyzer,
    private readonly queryTerms: ReadonlySet<string>,
  ) {
    this.query = new QueryTerms(queryTerms);
    this.keptByLength = dropsNoTerm(analyzer);
  }

  /**
   * The summary of `text`: the passage of about `maxChars` characters holding the most
   * distinct query terms (the start of the text when none occurs), HTML-escaped, with every
   * matched word wrapped in `<b>`. Safe to insert into HTML as is.
   *
   * Windows are {@link WINDOW_TOKENS} kept tokens (stop words do not count) starting at the
   * text's first token or at a matched one; the best has the most distinct query terms, then
   * the most matches, then comes first. Only the words where a query term can be are
   * analysed (see {@link findHits}), and the kept tokens are counted only around the matches
   * (see {@link indexHits}); the answer is the one analysing the whole text would give.
   */
  summarize(text: string, maxChars = 260): string {
    const scanned = text.length > SCAN_CHARS ? text.slice(0, SCAN_CHARS) : text;
    if (this.patterns === undefined) this.patterns = patternsFor(this.queryTerms, this.analyzer.options.stem);
    const candidates = this.patterns;
    let from: number;
    scan.begin(this.analyzer, this.query);
    try {
      // Most texts are ASCII only, where no character is a candidate by itself.
      const ascii = candidates !== null && Buffer.byteLength(scanned) === scanned.length;
      if (candidates !== null && findHits(scanned, ascii ? candidates.prefixes : candidates.any, ascii)) {
        scan.keptByLength = ascii && this.keptByLength;
        indexHits(scanned);
      } else if (candidates !== null && ascii && this.keptByLength) {
        findHitsAscii(scanned, this.firstPairsOf(candidates));
      } else {
        // The whole text at once: hits come with their indexes.
        scan.restart();
        scan.openRange(0, 0);
        scan.analyse(scanned, 0, scanned.length);
      }
      const best = bestWindow(scanned);
      if (best === FIRST_TOKEN) {
        from = firstKeptStart(scanned);
      } else {
        // Start a few words before the first match, at a sentence start when one is near.
        from = scan.starts[best]!;
        const sentence = sentenceNear(scanned, from);
        from = sentence >= 0 ? sentence + 2 : leadStart(scanned, best);
      }
    } finally {
      scan.end();
    }
    return htmlAround(text, scanned, from, maxChars);
  }

  private firstPairsOf(candidates: CandidatePatterns): Uint8Array {
    if (this.firstPairs === null) {
      const pairs = new Uint8Array(128 << 7);
      // Every prefix has at least MIN_PREFIX (2) characters, all ASCII.
      for (const prefix of candidates.spellingPrefixes)
        pairs[((prefix.charCodeAt(0) | 32) << 7) | (prefix.charCodeAt(1) | 32)] = 1;
      this.firstPairs = pairs;
    }
    return this.firstPairs;
  }
}

/**
 * Where `scanned.lastIndexOf('. ', from)` is when it is less than {@link SENTENCE_REACH}
 * characters before `from`, else -1: the search stops there rather than at the text's start.
 */
function sentenceNear(scanned: string, from: number): number {
  const floor = Math.max(0, from - SENTENCE_REACH + 1);
  for (let i = Math.min(from, scanned.length - 2); i >= floor; i--)
    if (scanned.charCodeAt(i) === 46 /* . */ && scanned.charCodeAt(i + 1) === 32) return i;
  return -1;
}
const SENTENCE_REACH = 80;

/** The summary HTML of `scanned[from, …)`, about `maxChars` characters, with the hits of {@link scan} in bold. */
function htmlAround(text: string, scanned: string, from: number, maxChars: number): string {
  const { hitStart, hitEnd, hits } = scan;
  let to = Math.min(scanned.length, from + maxChars);
  // End at a word boundary.
  if (to < scanned.length) {
    const space = scanned.lastIndexOf(' ', to);
    if (space > from + maxChars / 2) to = space;
  }
  let html = from > 0 ? '… ' : '';
  let at = from;
  for (let h = 0; h < hits; h++) {
    const start = hitStart[h]!;
    const end = hitEnd[h]!;
    if (start < from || end > to) continue;
    // A matched word keeps its characters (a token may hold a byte-order mark, which is white space).
    html += htmlOf(scanned, at, start) + '<b>' + wordHtml(scanned, start, end) + '</b>';
    at = end;
  }
  html += htmlOf(scanned, at, to);
  if (to < text.length) html += ' …';
  return html.trim();
}

/** The summarizer of the last {@link buildSummary} call's query (a page of results shares one). */
let lastSummarizer: { analyzer: Analyzer; key: string; summarizer: Summarizer } | null = null;

/**
 * The summary of `text` for the query terms `queryTerms` (see {@link Summarizer.summarize}).
 * Summarising several results of one query, a {@link Summarizer} prepares the query once;
 * this keeps the last query's.
 */
export function buildSummary(
  text: string,
  analyzer: Analyzer,
  queryTerms: ReadonlySet<string>,
  maxChars = 260,
): string {
  let key = '';
  for (const term of queryTerms) key += '\u0000' + term;
  if (lastSummarizer === null || lastSummarizer.analyzer !== analyzer || lastSummarizer.key !== key)
    lastSummarizer = { analyzer, key, summarizer: new Summarizer(analyzer, queryTerms) };
  return lastSummarizer.summarizer.summarize(text, maxChars);
}

/** What {@link bestWindow} answers for the window at the text's first kept token. */
const FIRST_TOKEN = -1;

/**
 * The index of the first kept token of the best window, or {@link FIRST_TOKEN}. The window at
 * the first kept token comes first, so it is the best when no other has more; and it holds a
 * subset of the hits of the window at the first hit (they all come at or after that hit). So
 * it is the best exactly when that window is the best of those at hits and holds no hit past
 * the text's first {@link WINDOW_TOKENS} kept tokens: only then are the kept tokens before
 * the first hit counted.
 */
function bestWindow(text: string): number {
  const { kept, hitIndex, hitTerm, hits } = scan;
  if (hits === 0) return FIRST_TOKEN;
  let best = 0;
  let bestDistinct = -1;
  let bestTotal = -1;
  if (seenMarks.length < hits + 1) seenMarks = new Int32Array(2 * (hits + 1));
  for (let first = 0; first < hits; first++) {
    seenGeneration++;
    let distinct = 0;
    let total = 0;
    const end = Math.min(kept, hitIndex[first]! + WINDOW_TOKENS);
    for (let h = first; h < hits && hitIndex[h]! < end; h++) {
      total++;
      const term = hitTerm[h]!;
      if (seenMarks[term] !== seenGeneration) {
        seenMarks[term] = seenGeneration;
        distinct++;
      }
    }
    if (distinct > bestDistinct || (distinct === bestDistinct && total > bestTotal)) {
      best = first;
      bestDistinct = distinct;
      bestTotal = total;
    }
  }
  if (best !== 0) return hitIndex[best]!;
  // How far into the text the last hit of the first hit's window is.
  const range = rangeOf(hitIndex[0]!);
  const inRange = hitIndex[bestTotal - 1]! - scan.rangeIndex[range]!;
  if (inRange >= WINDOW_TOKENS) return hitIndex[0]!;
  const before = countKept(text, 0, scan.rangeFrom[range]!, WINDOW_TOKENS - inRange);
  return before + inRange < WINDOW_TOKENS ? FIRST_TOKEN : hitIndex[0]!;
}

/** What {@link htmlOf} does with an ASCII character (`ASCII_OUTPUT`): keeps it, collapses it, escapes it. */
const KEPT = 0;
const SPACE = 1;
const ESCAPED = 2;
const ASCII_OUTPUT = new Uint8Array(128);
/** `escapeHtml`'s character references, by the code of the character they stand for. */
const ENTITIES: string[] = [];
for (const c of [9, 10, 11, 12, 13, 32]) ASCII_OUTPUT[c] = SPACE;
for (const [character, entity] of Object.entries(HTML_ESCAPES)) {
  ASCII_OUTPUT[character.charCodeAt(0)] = ESCAPED;
  ENTITIES[character.charCodeAt(0)] = entity;
}

/**
 * `escapeHtml(text.slice(from, to))` for a matched word, which keeps its characters (white
 * space too: a token may hold a byte-order mark): the slice itself unless it holds a
 * character to escape (most words hold none).
 */
function wordHtml(text: string, from: number, to: number): string {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 && ASCII_OUTPUT[c] === ESCAPED) return escapeHtml(text.slice(from, to));
  }
  return text.slice(from, to);
}

function isSpace(c: number): boolean {
  return c < 128 ? ASCII_OUTPUT[c] === SPACE : isWideSpace(c);
}

/**
 * `text[from, to)` as summary HTML: every run of white space (`\s+`) one space, and
 * escaped as `escapeHtml` escapes. One pass, copying the characters kept in slices; the
 * same as `escapeHtml(text.slice(from, to).replace(/\s+/g, ' '))` (`test/search/summary.test.ts`
 * checks every UTF-16 unit), which took two regular expressions and three strings per
 * piece of a summary.
 */
function htmlOf(text: string, from: number, to: number): string {
  let html = '';
  let kept = from;
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    const output = c < 128 ? ASCII_OUTPUT[c]! : isWideSpace(c) ? SPACE : KEPT;
    if (output === KEPT || (c === 32 && (i + 1 === to || !isSpace(text.charCodeAt(i + 1))))) {
      // A character kept, or a lone space: it is its own output.
      i++;
      continue;
    }
    if (kept < i) html += text.slice(kept, i);
    i++;
    if (output === ESCAPED) {
      html += ENTITIES[c]!;
    } else {
      while (i < to && isSpace(text.charCodeAt(i))) i++;
      html += ' ';
    }
    kept = i;
  }
  return kept === from ? text.slice(from, to) : kept < to ? html + text.slice(kept, to) : html;
}
