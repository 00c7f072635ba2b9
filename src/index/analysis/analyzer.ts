/**
 * Analysis turns text into the terms the index stores and the query processor looks up.
 * This file is the contract; `create-analyzer.ts` is the implementation.
 *
 * Rules every analyzer follows, so that index and query agree:
 * - Positions count tokens, stop words included (a removed stop word leaves a gap), so
 *   phrase queries stay exact.
 * - Offsets are UTF-16 code-unit offsets into the original text (snippets highlight with them).
 * - The same options give the same terms on the index side and on the query side.
 */
export interface AnalyzerOptions {
  /** Lower-case with Unicode case folding. Default true. */
  caseFold?: boolean;
  /** Remove diacritics (é → e, ß stays ß→ss only by case folding rules). Default true. */
  foldDiacritics?: boolean;
  /** Porter/Snowball English stemming. Default false. */
  stem?: boolean;
  /** `true` for the built-in English list, a list of words, or false/undefined for none. */
  stopWords?: boolean | readonly string[];
  /** Tokens longer than this (in UTF-16 units) are dropped (they are noise: base64, hashes). Default 128. */
  maxTokenLength?: number;
}

export interface Token {
  term: string;
  position: number;
  /** UTF-16 offsets of the original text that produced the term. */
  start: number;
  end: number;
}

/**
 * Receives the raw tokens of {@link Analyzer.forEachToken}: where a token is in the text,
 * before normalisation, so that an indexer can recognise a token it has seen before without
 * building its term (most tokens of a text are words seen before).
 */
export interface TokenSink {
  /**
   * The token `text[start, end)` at `position`. `kind` is an opaque summary of the token's
   * characters, to be passed to {@link Analyzer.termOfToken}; `hash` is
   * {@link spellingHash} of them, computed while scanning (a table of spellings needs it).
   */
  token(text: string, start: number, end: number, kind: number, hash: number, position: number): void;
}

/** FNV-1a offset basis and prime: the hash of a spelling is FNV-1a over its UTF-16 units. */
export const SPELLING_HASH_SEED = 0x811c9dc5 | 0;
export const SPELLING_HASH_PRIME = 0x01000193;

/** FNV-1a over the UTF-16 units of `text[start, end)`: the `hash` a {@link TokenSink} receives. */
export function spellingHash(text: string, start = 0, end = text.length): number {
  let hash = SPELLING_HASH_SEED;
  for (let j = start; j < end; j++) hash = Math.imul(hash ^ text.charCodeAt(j), SPELLING_HASH_PRIME);
  return hash;
}

export interface Analyzer {
  readonly options: Readonly<Required<AnalyzerOptions>>;
  /**
   * The fastest path of indexing: reports every token (dropped ones too: stop words, tokens
   * too long) with its position, starting at `firstPosition`, without building terms.
   * Returns the next free position, as {@link forEachTerm} does.
   */
  forEachToken(text: string, firstPosition: number, sink: TokenSink): number;
  /**
   * The term of a token reported by {@link forEachToken}, or null when the token is dropped
   * (its position stays used). It depends only on the characters `text[start, end)`: two
   * tokens spelled the same way always give the same term, so callers may cache it by spelling.
   */
  termOfToken(text: string, start: number, end: number, kind: number): string | null;
  /**
   * The fast path of indexing: calls `onTerm` for every kept term, with its position
   * (starting at `firstPosition`). Returns the next free position (= firstPosition + the
   * number of tokens seen, stop words included).
   */
  forEachTerm(text: string, firstPosition: number, onTerm: (term: string, position: number) => void): number;
  /** Every kept token with offsets (snippets, highlighting, tests). */
  tokens(text: string): Token[];
  /** Terms of a query text, in order (stop words removed, positions not kept). */
  terms(text: string): string[];
  /**
   * Normalises a prefix for truncation queries: case and diacritic folding only (no stemming,
   * no stop words), so `protoc*` finds `protocol` and `protocols`.
   */
  normalizePrefix(text: string): string;
}
