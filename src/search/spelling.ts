import type { Analyzer } from '../index/analysis/analyzer.js';

export interface SpellingSource {
  analyzer: Analyzer;
  /** Documents containing an (analysed) term of the body. */
  docFreq(term: string): number;
  /** Body terms starting with a prefix, in order. */
  termsWithPrefix(prefix: string, limit: number): string[];
  /** A word of the collection's own text that analyses to `term` (terms may be stems). */
  surfaceOf(term: string): string | undefined;
  /** Matches of an alternative query text. */
  count(text: string): number;
}

/** A word occurring in fewer documents than this is a candidate for correction. */
const RARE = 2;
const CANDIDATE_SCAN = 50_000;

/**
 * "Did you mean": replaces rare or unknown words by the most frequent word of the
 * collection's own vocabulary within a small edit distance (1 for short words, 2 otherwise),
 * and proposes the result only when it finds more documents than the query as typed.
 */
export function suggestSpelling(words: readonly string[], source: SpellingSource): string | null {
  let changed = false;
  const out: string[] = [];
  for (const word of words) {
    const term = source.analyzer.terms(word)[0];
    if (term === undefined || term.length < 3 || /\d/.test(term) || source.docFreq(term) >= RARE) {
      out.push(word);
      continue;
    }
    const maxDistance = term.length <= 4 ? 1 : 2;
    let best: { term: string; df: number; distance: number } | undefined;
    for (const candidate of source.termsWithPrefix(term[0]!, CANDIDATE_SCAN)) {
      if (candidate === term || Math.abs(candidate.length - term.length) > maxDistance) continue;
      const distance = editDistance(term, candidate, maxDistance);
      if (distance > maxDistance) continue;
      const df = source.docFreq(candidate);
      if (df < RARE) continue;
      if (best === undefined || distance < best.distance || (distance === best.distance && df > best.df)) {
        best = { term: candidate, df, distance };
      }
    }
    const surface = best === undefined ? undefined : source.surfaceOf(best.term);
    if (surface === undefined) out.push(word);
    else {
      out.push(surface);
      changed = true;
    }
  }
  if (!changed) return null;
  const suggestion = out.join(' ');
  return source.count(suggestion) > source.count(words.join(' ')) ? suggestion : null;
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
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, previous2[j - 2]! + 1);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [previous2, previous, current] = [previous, current, previous2];
  }
  return previous[m]!;
}
