/**
 * The analyzer: tokenizer, folding, stop words and stemming behind the contract of
 * `analyzer.ts`.
 *
 * Tokenizer rules (they decide what a user can find, so they are part of the contract):
 * - A token is a maximal run of letters, decimal digits and combining marks (`\p{L}\p{N}\p{M}`
 *   plus the invisible in-word characters ZWJ, ZWNJ, soft hyphen, word joiner). Letters and
 *   digits stay together: `RFC2616` → `rfc2616`, `IPv6` → `ipv6`, `SHA256` → `sha256`.
 * - `.` joins two decimal digits: `3.14`, `1.1`, `192.0.2.1` and section numbers `3.2.1`
 *   are one token each, and so is `v1.2` (a letter-digit token continued by `.` and a digit).
 *   Between letters it separates: `example.com` → `example`, `com`.
 * - `'` and `’` join two letters; the term drops a possessive `'s` and then the apostrophes:
 *   `don't` → `dont`, `O’Reilly` → `oreilly`, `IETF's` → `ietf`.
 * - Everything else separates, including `-`, `/`, `_`, `:` and `,`: `e-mail` → `e`, `mail`;
 *   `Content-Type` → `content`, `type`; `HTTP/1.1` → `http`, `1.1`; `[RFC2119]` → `rfc2119`;
 *   `1,000` → `1`, `000`. A query with the same spelling analyses to the same terms at
 *   consecutive positions, so a phrase query finds it.
 * - Emoji, symbols and punctuation are not tokens.
 * - A run of letters of a script written without spaces (Han, Hiragana, Katakana, Thai, Lao,
 *   Khmer, Myanmar) is cut into words by `Intl.Segmenter` (ICU dictionaries); only the run
 *   goes there, so the rest of the text keeps the fast path.
 * These match `Intl.Segmenter`'s word segmentation (UAX #29) for words of letters and digits
 * separated by spaces and punctuation; the differences are deliberate: UAX #29 keeps
 * `example.com`, `a_b`, `a:b` and `1,000` whole, and does not fold apostrophes.
 *
 * Normalisation: ASCII tokens are only lower-cased (the fast path); other tokens go through
 * `foldTerm` (NFKC/NFKD, full case folding, diacritic folding: see `fold-term.ts`).
 */
import { stemmer } from 'stemmer';
import { SearchError } from '../../errors.js';
import {
  SPELLING_HASH_PRIME,
  SPELLING_HASH_SEED,
  spellingHash,
  type Analyzer,
  type AnalyzerOptions,
  type Token,
  type TokenSink,
} from './analyzer.js';
import {
  APOSTROPHE,
  ASCII_CLASS,
  DIGIT,
  LETTER,
  MARK,
  NO_SPACE,
  OTHER,
  UPPER,
  WIDE,
  nonAsciiClass,
} from './char-class.js';
import { ENGLISH_STOP_WORDS } from './english-stop-words.js';
import { foldTerm, stripApostrophes } from './fold-term.js';

type Emit = (term: string, position: number, start: number, end: number) => void;

/** Turns raw tokens into terms for the entry points that want terms (all but forEachToken). */
class TermEmitter implements TokenSink {
  constructor(
    private readonly analyzer: Analyzer,
    private readonly emit: Emit,
  ) {}

  token(text: string, start: number, end: number, kind: number, _hash: number, position: number): void {
    const term = this.analyzer.termOfToken(text, start, end, kind);
    if (term !== null) this.emit(term, position, start, end);
  }
}

// Token flags, beside the class bits LETTER, DIGIT and UPPER the scanner ORs in.
const NON_ASCII = 128;
/** Token flag: the token holds an apostrophe between two letters (`don't`). */
export const JOINED_APOSTROPHE = 256;
const WORD = LETTER | DIGIT;

const DEFAULT_MAX_TOKEN_LENGTH = 128;
/** V8 shares the characters of a substring this long with its parent (a "sliced string"). */
const SLICED_STRING_MIN_LENGTH = 13;
const STEM_CACHE_LIMIT = 100_000;
/** Slots of the token cache (a power of two) and the longest token it keeps. */
const TOKEN_CACHE_SIZE = 1 << 16;
const TOKEN_CACHE_MAX_LENGTH = 40;
const KNOWN_OPTIONS = new Set(['caseFold', 'foldDiacritics', 'stem', 'stopWords', 'maxTokenLength']);
const ASCII_LOWER_WORD = /^[a-z]+$/;
const NON_ASCII_CHAR = /[^\x00-\x7f]/;
const NOT_ASCII_TERM_CHAR = /[^A-Za-z0-9.]/g;
const DOT_NOT_AFTER_DIGIT = /(?<!\p{Nd})\./gu;

// One segmenter for the process. A fixed locale ('und'), not the machine's default, so that
// two servers (or the index and the query side) never cut the same text differently.
let segmenter: Intl.Segmenter | undefined;

/**
 * Creates an analyzer. Options are checked here so that a bad collection configuration
 * fails when it is loaded, not while documents are indexed.
 *
 * @throws SearchError `ANALYZER_OPTIONS_INVALID` naming the option and what it accepts.
 */
export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  return new UnicodeAnalyzer(resolveOptions(options));
}

function invalid(message: string): SearchError {
  return new SearchError('ANALYZER_OPTIONS_INVALID', message);
}

function resolveOptions(options: AnalyzerOptions): Readonly<Required<AnalyzerOptions>> {
  if (typeof options !== 'object' || options === null) {
    throw invalid('analyzer options must be an object such as { stem: true }');
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) {
      throw invalid(`unknown analyzer option "${key}"; the options are ${[...KNOWN_OPTIONS].join(', ')}`);
    }
  }
  const flag = (name: 'caseFold' | 'foldDiacritics' | 'stem', fallback: boolean): boolean => {
    const value: unknown = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') throw invalid(`analyzer option ${name} must be true or false`);
    return value;
  };
  const maxTokenLength: unknown = options.maxTokenLength ?? DEFAULT_MAX_TOKEN_LENGTH;
  if (typeof maxTokenLength !== 'number' || !Number.isInteger(maxTokenLength) || maxTokenLength < 1) {
    throw invalid(
      `analyzer option maxTokenLength must be a positive integer (default ${DEFAULT_MAX_TOKEN_LENGTH})`,
    );
  }
  const stopWords: unknown = options.stopWords ?? false;
  let resolvedStopWords: boolean | readonly string[];
  if (typeof stopWords === 'boolean') {
    resolvedStopWords = stopWords;
  } else if (Array.isArray(stopWords) && stopWords.every((w) => typeof w === 'string')) {
    resolvedStopWords = Object.freeze([...stopWords]);
  } else {
    throw invalid(
      'analyzer option stopWords must be true (the built-in English list), false, or a list of words',
    );
  }
  return Object.freeze({
    caseFold: flag('caseFold', true),
    foldDiacritics: flag('foldDiacritics', true),
    stem: flag('stem', false),
    stopWords: resolvedStopWords,
    maxTokenLength,
  });
}

/**
 * `text.startsWith(key, start)` for a short key. In V8 the builtin costs a call into the
 * runtime; this loop is inlined, and most cache hits are 2 to 10 characters.
 */
function sameText(text: string, start: number, key: string): boolean {
  for (let j = key.length - 1; j >= 0; j--) {
    if (text.charCodeAt(start + j) !== key.charCodeAt(j)) return false;
  }
  return true;
}

/** True when the character at `j` (if any) is a decimal digit: the right side of `3.14`. */
function isDigitAt(text: string, j: number): boolean {
  if (j >= text.length) return false;
  const c = text.charCodeAt(j);
  if (c < 128) return c >= 48 && c <= 57;
  return (nonAsciiClass(text, j, c) & DIGIT) !== 0;
}

/** True when the character at `j` (if any) is a letter: the right side of `don't`. */
function isLetterAt(text: string, j: number): boolean {
  if (j >= text.length) return false;
  const c = text.charCodeAt(j);
  if (c < 128) return ((ASCII_CLASS[c] ?? OTHER) & LETTER) !== 0;
  return (nonAsciiClass(text, j, c) & LETTER) !== 0;
}

/**
 * The kind (LETTER or DIGIT) of the last letter or digit of the token `text[start, i)`: what
 * a joiner (`.`, `'`) at `i` looks at. Found again from the token's start when a joiner
 * comes, rather than tracked for every character: joiners are rare, characters are not.
 */
function lastWordKind(text: string, start: number, i: number): number {
  let last = 0;
  for (let j = start; j < i;) {
    const c = text.charCodeAt(j);
    if (c < 128) {
      const k = (ASCII_CLASS[c] ?? OTHER) & WORD;
      if (k !== 0) last = k;
      j++;
    } else {
      const k = nonAsciiClass(text, j, c);
      if ((k & WORD) !== 0) last = k & WORD;
      j += (k & WIDE) !== 0 ? 2 : 1;
    }
  }
  return last;
}

/**
 * A copy of `s` that does not share memory with the text it was cut from. Terms outlive the
 * document (the index writer keeps them in its dictionary); a V8 sliced string would keep the
 * whole document text alive with it.
 */
function detach(s: string): string {
  return (' ' + s).slice(1);
}

class UnicodeAnalyzer implements Analyzer {
  readonly options: Readonly<Required<AnalyzerOptions>>;
  private readonly caseFold: boolean;
  private readonly foldDiacritics: boolean;
  private readonly stem: boolean;
  private readonly maxTokenLength: number;
  private readonly stopSet: Set<string> | null;
  /** Stop words are short; longer terms skip the set lookup. */
  private readonly stopMaxLength: number;
  /** Porter stemming is pure and word frequencies are Zipfian: a cache removes most of its cost. */
  private readonly stemCache = new Map<string, string>();
  /**
   * Token cache (see `cachedTermOf`): original token text and its term (null: dropped). Only
   * used with stemming or stop words: without them a term costs a substring, and measured on
   * RFC text that was faster than the cache's lookup and comparison.
   */
  private readonly useTokenCache: boolean;
  private readonly cacheKeys: string[];
  private readonly cacheTerms: (string | null)[];

  constructor(options: Readonly<Required<AnalyzerOptions>>) {
    this.options = options;
    this.caseFold = options.caseFold;
    this.foldDiacritics = options.foldDiacritics;
    this.stem = options.stem;
    this.maxTokenLength = options.maxTokenLength;
    const list =
      options.stopWords === true ? ENGLISH_STOP_WORDS : options.stopWords === false ? [] : options.stopWords;
    // Stop words are folded like terms, so `["The", "Café"]` removes `the` and `cafe`.
    const folded = list.map((w) => this.normalizePrefix(w)).filter((w) => w.length > 0);
    this.stopSet = folded.length > 0 ? new Set(folded) : null;
    this.stopMaxLength = folded.reduce((max, w) => Math.max(max, w.length), 0);
    this.useTokenCache = this.stem || this.stopSet !== null;
    const slots = this.useTokenCache ? TOKEN_CACHE_SIZE : 0;
    this.cacheKeys = new Array<string>(slots).fill('');
    this.cacheTerms = new Array<string | null>(slots).fill(null);
  }

  forEachToken(text: string, firstPosition: number, sink: TokenSink): number {
    return this.scan(text, firstPosition, sink);
  }

  termOfToken(text: string, start: number, end: number, kind: number): string | null {
    return this.useTokenCache
      ? this.cachedTermOf(text, start, end, kind)
      : this.termOf(text, start, end, kind);
  }

  forEachTerm(text: string, firstPosition: number, onTerm: (term: string, position: number) => void): number {
    return this.scan(text, firstPosition, new TermEmitter(this, onTerm));
  }

  tokens(text: string): Token[] {
    const out: Token[] = [];
    this.scan(
      text,
      0,
      new TermEmitter(this, (term, position, start, end) => {
        out.push({ term, position, start, end });
      }),
    );
    return out;
  }

  terms(text: string): string[] {
    const out: string[] = [];
    this.scan(
      text,
      0,
      new TermEmitter(this, (term) => {
        out.push(term);
      }),
    );
    return out;
  }

  normalizePrefix(text: string): string {
    let t = text.trim();
    if (t.includes("'") || t.includes('’')) t = stripApostrophes(t);
    if (NON_ASCII_CHAR.test(t)) {
      t = foldTerm(t, this.caseFold, this.foldDiacritics);
    } else {
      t = t.replace(NOT_ASCII_TERM_CHAR, '');
      if (this.caseFold) t = t.toLowerCase();
    }
    // A `.` is only ever inside a term after a digit (`3.14`), so `3.` stays a useful prefix.
    return t.includes('.') ? t.replace(DOT_NOT_AFTER_DIGIT, '') : t;
  }

  /**
   * The scanner behind every entry point, so they cannot disagree. It walks UTF-16 units with
   * table lookups and allocates nothing: it reports where each token is and what kinds of
   * characters it holds (the `kind` that `termOfToken` needs).
   */
  private scan(text: string, firstPosition: number, sink: TokenSink): number {
    const n = text.length;
    let position = firstPosition;
    let i = 0;
    while (i < n) {
      const start = i;
      let c = text.charCodeAt(i);
      let k: number;
      if (c === 32) {
        // Spaces are most of what separates tokens (and all of RFC layout): one compare.
        i++;
        continue;
      }
      if (c < 128) {
        k = ASCII_CLASS[c] ?? OTHER;
        i++;
        if (k === 0) continue;
      } else {
        k = nonAsciiClass(text, i, c);
        if ((k & WORD) === 0) {
          if ((k & NO_SPACE) !== 0) {
            position = this.segmentRun(text, i, position, sink);
            i = this.runEnd;
          } else {
            i += (k & WIDE) !== 0 ? 2 : 1; // a separator, or a mark with no letter to attach to
          }
          continue;
        }
        i += (k & WIDE) !== 0 ? 2 : 1;
        k |= NON_ASCII;
      }
      // The spelling's hash, as the characters go by (see spellingHash).
      let hash = Math.imul(SPELLING_HASH_SEED ^ c, SPELLING_HASH_PRIME);
      if (i - start === 2) hash = Math.imul(hash ^ text.charCodeAt(start + 1), SPELLING_HASH_PRIME);

      let flags = k & ~WIDE;
      while (i < n) {
        c = text.charCodeAt(i);
        if (c < 128) {
          k = ASCII_CLASS[c] ?? OTHER;
          if (k !== 0) {
            flags |= k;
          } else if (c === 46 /* . */ && isDigitAt(text, i + 1) && lastWordKind(text, start, i) === DIGIT) {
            // joins two digits
          } else if (c === 39 /* ' */ && isLetterAt(text, i + 1) && lastWordKind(text, start, i) === LETTER) {
            flags |= JOINED_APOSTROPHE;
          } else {
            break;
          }
          hash = Math.imul(hash ^ c, SPELLING_HASH_PRIME);
          i++;
        } else {
          k = nonAsciiClass(text, i, c);
          if ((k & WORD) !== 0) {
            flags |= NON_ASCII | (k & WORD);
          } else if ((k & MARK) !== 0) {
            flags |= NON_ASCII;
          } else if (
            (k & APOSTROPHE) !== 0 &&
            isLetterAt(text, i + 1) &&
            lastWordKind(text, start, i) === LETTER
          ) {
            flags |= NON_ASCII | JOINED_APOSTROPHE;
          } else {
            break;
          }
          hash = Math.imul(hash ^ c, SPELLING_HASH_PRIME);
          if ((k & WIDE) !== 0) {
            hash = Math.imul(hash ^ text.charCodeAt(i + 1), SPELLING_HASH_PRIME);
            i += 2;
          } else i++;
        }
      }

      sink.token(text, start, i, flags, hash, position);
      position++;
    }
    return position;
  }

  /** Where the last `segmentRun` stopped (a second return value without an allocation). */
  private runEnd = 0;

  /**
   * Cuts the run of no-space-script characters that starts at `start` into words with
   * `Intl.Segmenter`, reports them, and returns the next position; sets `runEnd`.
   */
  private segmentRun(text: string, start: number, position: number, sink: TokenSink): number {
    const n = text.length;
    let end = start;
    while (end < n) {
      const c = text.charCodeAt(end);
      if (c < 128) break;
      const k = nonAsciiClass(text, end, c);
      if ((k & (NO_SPACE | MARK)) === 0) break;
      end += (k & WIDE) !== 0 ? 2 : 1;
    }
    segmenter ??= new Intl.Segmenter('und', { granularity: 'word' });
    for (const segment of segmenter.segment(text.substring(start, end))) {
      if (segment.isWordLike !== true) continue;
      const s = start + segment.index;
      const e = s + segment.segment.length;
      sink.token(text, s, e, NON_ASCII, spellingHash(text, s, e), position);
      position++;
    }
    // Set last: a sink may use this analyzer meanwhile (runEnd is shared by every call).
    this.runEnd = end;
    return position;
  }

  /**
   * `termOf` through a direct-mapped cache keyed by the token's original text. Word
   * frequencies are Zipfian, so most tokens are found here: no substring, no lower-casing, no
   * stop-word lookup and no stemming for them, only a comparison of the text in place.
   */
  private cachedTermOf(text: string, start: number, end: number, flags: number): string | null {
    const length = end - start;
    if (length > TOKEN_CACHE_MAX_LENGTH) return this.termOf(text, start, end, flags);
    // Hashing here rather than in the scanner keeps the path without the cache lean.
    let hash = length;
    for (let j = start; j < end; j++) hash = (Math.imul(hash, 31) + text.charCodeAt(j)) | 0;
    const slot = (hash ^ (hash >>> 15)) & (TOKEN_CACHE_SIZE - 1);
    const key = this.cacheKeys[slot];
    const cached = this.cacheTerms[slot];
    // Both are undefined only when the cache is off (no slots).
    if (key?.length === length && cached !== undefined && sameText(text, start, key)) return cached;
    const term = this.termOf(text, start, end, flags);
    const raw = text.substring(start, end);
    this.cacheKeys[slot] = length >= SLICED_STRING_MIN_LENGTH ? detach(raw) : raw;
    this.cacheTerms[slot] = term;
    return term;
  }

  /** The term of the token `text[start, end)`, or null when it is dropped (its position stays used). */
  private termOf(text: string, start: number, end: number, flags: number): string | null {
    if (end - start > this.maxTokenLength) return null;
    let t = text.substring(start, end);
    let stemmable: boolean;
    if ((flags & (NON_ASCII | JOINED_APOSTROPHE)) === 0) {
      if ((flags & UPPER) !== 0 && this.caseFold) t = t.toLowerCase();
      stemmable = (flags & DIGIT) === 0 && (this.caseFold || (flags & UPPER) === 0);
    } else {
      if ((flags & JOINED_APOSTROPHE) !== 0) t = stripApostrophes(t);
      if ((flags & NON_ASCII) !== 0) t = foldTerm(t, this.caseFold, this.foldDiacritics);
      else if (this.caseFold) t = t.toLowerCase();
      if (t.length === 0 || t.length > this.maxTokenLength) return null;
      stemmable = ASCII_LOWER_WORD.test(t);
    }
    if (t.length >= SLICED_STRING_MIN_LENGTH) t = detach(t);
    if (this.stopSet !== null && t.length <= this.stopMaxLength && this.stopSet.has(t)) return null;
    if (this.stem && stemmable) t = this.stemOf(t);
    return t;
  }

  private stemOf(term: string): string {
    let stem = this.stemCache.get(term);
    if (stem === undefined) {
      stem = stemmer(term);
      // A cache, not a dictionary: forgetting everything at the limit keeps memory bounded
      // and costs one refill of the frequent words.
      if (this.stemCache.size >= STEM_CACHE_LIMIT) this.stemCache.clear();
      this.stemCache.set(term, stem);
    }
    return stem;
  }
}
