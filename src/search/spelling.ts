import type { Analyzer } from '../index/analysis/analyzer.js';

export interface SpellingSource {
  analyzer: Analyzer;
  /** Documents containing an (analysed) term of the body. */
  docFreq(term: string): number;
  /**
   * {@link docFreq} of each of many terms (the edits of one word), in their order: looked up
   * together, in one pass over each dictionary instead of one lookup each. Without it, terms
   * are looked up one by one.
   */
  docFreqs?(terms: readonly string[]): ArrayLike<number>;
  /** Body terms starting with a prefix, in order. */
  termsWithPrefix(prefix: string, limit: number): string[];
  /**
   * A word of the collection's own text that analyses to `term` (terms may be stems): one of
   * `preferred` (lower case) when the text holds one, else the first such word found.
   */
  surfaceOf(term: string, preferred: readonly string[]): string | undefined;
  /** Matches of an alternative query text. */
  count(text: string): number;
}

/** Limits of one suggestion (see {@link suggestSpelling}). */
export interface SpellingOptions {
  /**
   * Most terms looked up (in every generation) for the whole query, each counted once whether
   * asked alone (`docFreq`) or with others (`docFreqs`); default {@link DEFAULT_MAX_LOOKUPS}.
   * When it runs out, the words not yet corrected stay as typed.
   */
  maxLookups?: number;
}

/**
 * About eight words of ten letters corrected at distance 1 (each ~600 single edits looked
 * up): a query of many unknown words (pasted text, random strings) stops there instead of
 * costing tens of thousands of dictionary lookups in every generation.
 */
export const DEFAULT_MAX_LOOKUPS = 5000;

/** A word occurring in fewer documents than this is a candidate for correction. */
const RARE = 2;
/** Terms read from the dictionary when looking for corrections at distance 2. */
const CANDIDATE_SCAN = 5000;
/** Letters tried for replacements and insertions at distance 1 (with the word's own letters). */
const PROBE_LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * "Did you mean": replaces rare or unknown words by the most frequent word of the
 * collection's own vocabulary within a small edit distance (1 for short words, 2 otherwise),
 * and proposes the result when it finds more documents than the query as typed (`count`),
 * and far more ({@link FAR_MORE} times) when the typed query already finds a few.
 *
 * It runs on the thread that answers queries, so its cost is bounded: corrections at distance
 * 1 are found by looking up each single edit of the word (a few hundred dictionary lookups);
 * only when none exists are up to {@link CANDIDATE_SCAN} dictionary terms sharing the word's
 * first two letters compared at distance 2; and the whole query makes at most
 * `options.maxLookups` lookups. The caller asks only when the original would show a
 * suggestion (few or no results).
 */
export function suggestSpelling(
  words: readonly string[],
  source: SpellingSource,
  options: SpellingOptions = {},
): string | null {
  const budget = { left: options.maxLookups ?? DEFAULT_MAX_LOOKUPS };
  const docFreq = (term: string): number => {
    budget.left--;
    return source.docFreq(term);
  };
  // A term of a batch counts as one lookup, as when asked alone.
  const docFreqs = (terms: readonly string[]): ArrayLike<number> => {
    budget.left -= terms.length;
    return source.docFreqs !== undefined ? source.docFreqs(terms) : terms.map((term) => source.docFreq(term));
  };
  const bounded: Required<SpellingSource> = { ...source, docFreq, docFreqs };
  let changed = false;
  const out: string[] = [];
  for (const word of words) {
    const term = source.analyzer.terms(word)[0];
    if (
      budget.left <= 0 ||
      term === undefined ||
      term.length < 3 ||
      /\d/.test(term) ||
      docFreq(term) >= RARE
    ) {
      out.push(word);
      continue;
    }
    // Shown as a word of the collection's text, preferably an edit of the typed word
    // (`athentication` → `authentication`, not `authentic` of the same stem; `kerberso` →
    // `kerberos`, not `kerbero`, an edit that stems alike but is no word).
    const close = closeCorrection(word.toLowerCase(), bounded, budget);
    const far =
      close === undefined && term.length > 4 && budget.left > 0
        ? farCorrection(term, bounded, budget)
        : undefined;
    const surface =
      close !== undefined
        ? source.surfaceOf(close.term, close.edits)
        : far === undefined
          ? undefined
          : source.surfaceOf(far, []);
    if (surface === undefined) out.push(word);
    else {
      out.push(surface);
      changed = true;
    }
  }
  if (!changed) return null;
  const suggestion = out.join(' ');
  const typed = source.count(words.join(' '));
  const corrected = source.count(suggestion);
  // With few matches any gain is worth a suggestion; with some, only far more.
  return corrected > typed && (typed < FEW_MATCHES || corrected >= FAR_MORE * typed) ? suggestion : null;
}

/** Below this many matches as typed, a correction that finds more is suggested. */
const FEW_MATCHES = 3;
/** Otherwise it must find this many times as many. */
const FAR_MORE = 10;

/**
 * The most frequent term at distance 1 (one deletion, transposition, replacement or insertion)
 * of the word as typed, with the edits that analyse to it alone: each edit is analysed first,
 * because the dictionary holds stems (`congestoin` → `congestion` → `congest`; editing the stem
 * `congestoin` finds nothing).
 */
function closeCorrection(
  word: string,
  source: Required<SpellingSource>,
  budget: { left: number },
): { term: string; edits: string[] } | undefined {
  // The edits in turn, each candidate (an edit's first term) counted once against the budget
  // when first met, up to the edit where the budget runs out; then all the candidates looked
  // up together (see SpellingSource.docFreqs).
  const edits: string[] = [];
  /** Per edit, its term when it analyses to one term alone, else null. */
  const alone: (string | null)[] = [];
  const candidates: string[] = [];
  const seen = new Set<string>();
  for (const edit of singleEdits(word)) {
    if (budget.left - candidates.length <= 0) break;
    const terms = source.analyzer.terms(edit);
    edits.push(edit);
    alone.push(terms.length === 1 ? terms[0]! : null);
    const candidate = terms[0];
    if (candidate === undefined || seen.has(candidate)) continue;
    seen.add(candidate);
    candidates.push(candidate);
  }
  const found = source.docFreqs(candidates);
  // The most frequent candidate (the first in term order among equals), with the edits that
  // analyse to it alone.
  let best: { term: string; df: number } | undefined;
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i]!;
    const df = found[i]!;
    if (df >= RARE && (best === undefined || df > best.df || (df === best.df && candidate < best.term)))
      best = { term: candidate, df };
  }
  if (best === undefined) return undefined;
  const term = best.term;
  return { term, edits: edits.filter((_, i) => alone[i] === term) };
}

/** The most frequent term at distance 2 among dictionary terms with the same first two letters. */
function farCorrection(term: string, source: SpellingSource, budget: { left: number }): string | undefined {
  let best: { term: string; df: number } | undefined;
  for (const candidate of source.termsWithPrefix(term.slice(0, 2), CANDIDATE_SCAN)) {
    if (budget.left <= 0) break;
    if (Math.abs(candidate.length - term.length) > 2 || editDistance(term, candidate, 2) > 2) continue;
    const df = source.docFreq(candidate);
    if (df >= RARE && (best === undefined || df > best.df)) best = { term: candidate, df };
  }
  return best?.term;
}

function singleEdits(term: string): Set<string> {
  const letters = new Set([...PROBE_LETTERS, ...term]);
  const edits = new Set<string>();
  for (let i = 0; i <= term.length; i++) {
    const head = term.slice(0, i);
    const tail = term.slice(i);
    if (tail.length > 0) edits.add(head + tail.slice(1));
    if (tail.length > 1) edits.add(head + tail[1]! + tail[0]! + tail.slice(2));
    for (const letter of letters) {
      if (tail.length > 0 && letter !== tail[0]) edits.add(head + letter + tail.slice(1));
      edits.add(head + letter + tail);
    }
  }
  edits.delete(term);
  return edits;
}

/** Damerau-Levenshtein (optimal string alignment) distance, giving up above `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > limit) return limit + 1;
  let previous2 = new Array<number>(m + 1).fill(0);
  let previous = Array.from({ length: m + 1 }, (_, j) => j);
  let current = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    current[0] = i;
    let rowMin = current[0];
    for (let j = 1; j <= m; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, previous2[j - 2]! + 1);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [previous2, previous, current] = [previous, current, previous2];
  }
  return previous[m]!;
}
