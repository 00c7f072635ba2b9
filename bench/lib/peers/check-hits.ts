/**
 * Checks that the peers answer the benchmark queries for real: every top-10 hit of a single
 * word, AND, OR or phrase query must be a page that has the query's words (all of them for
 * AND, one for OR, consecutive in the title or the text for a phrase). Pages are read back
 * from the corpus and split into words by a plain rule (lower case, diacritics removed,
 * letters and digits), so a tokenizer that splits differently can show a few misses. A peer
 * that matches words as prefixes (Orama) passes with a word that starts with the query word.
 */
import { QUERY_SET, queryLabel, type BenchQuery } from '../query-set.js';
import { readRfcCorpus, type RfcPage } from '../rfc-corpus.js';
import type { PeerRun } from './peer-run.js';
import { changePage } from './run-peer.js';

/** What {@link checkHits} found for one run. */
export interface HitCheck {
  /** Hits checked (all top-10 hits of the checked queries). */
  checked: number;
  /** Hits that have the query's words. */
  ok: number;
  /** A few that did not: `query → key`. */
  misses: string[];
}

/** The words of a text as the check sees them. */
export function plainWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

interface PageWords {
  fields: string[][];
  all: Set<string>;
}

function pageWords(page: RfcPage): PageWords {
  const fields = [plainWords(page.title), plainWords(page.text)];
  return { fields, all: new Set(fields.flat()) };
}

/** Whether a page with these words answers the query. */
export function pageMatches(query: BenchQuery, words: PageWords, prefix: boolean): boolean {
  const has = (term: string, list: Iterable<string>): boolean => {
    if (!prefix) return list instanceof Set ? list.has(term) : [...list].includes(term);
    for (const w of list) if (w.startsWith(term)) return true;
    return false;
  };
  switch (query.class) {
    case 'or':
      return query.terms.some((t) => has(t, words.all));
    case 'phrase':
      return words.fields.some((field) => {
        for (let i = 0; i + query.terms.length <= field.length; i++) {
          if (query.terms.every((t, j) => field[i + j] === t)) return true;
        }
        return false;
      });
    case 'and':
    case 'single':
    case 'single-common':
      return query.terms.every((t) => has(t, words.all));
  }
}

/**
 * Checks the top-10 keys of every run (`run.topKeys`) against the pages, read from the corpus
 * up to the largest run. Keys that are neither in the corpus nor a change probe count as misses.
 */
export async function checkHits(
  runs: readonly PeerRun[],
  changeRounds: number,
): Promise<Map<PeerRun, HitCheck>> {
  const wanted = new Set(runs.flatMap((run) => Object.values(run.topKeys).flat()));
  const pages = new Map<string, PageWords>();
  for (let round = 0; round < changeRounds; round++) {
    const { page } = changePage(round);
    if (wanted.has(page.key)) pages.set(page.key, pageWords(page));
  }
  const limit = Math.max(0, ...runs.map((r) => r.docs));
  for await (const page of readRfcCorpus({ limit })) {
    if (wanted.has(page.key)) pages.set(page.key, pageWords(page));
  }
  const checks = new Map<PeerRun, HitCheck>();
  for (const run of runs) {
    const check: HitCheck = { checked: 0, ok: 0, misses: [] };
    for (const query of QUERY_SET) {
      const label = queryLabel(query);
      for (const key of run.topKeys[label] ?? []) {
        check.checked++;
        const words = pages.get(key);
        if (words !== undefined && pageMatches(query, words, run.setup.prefixMatching)) check.ok++;
        else if (check.misses.length < 5) check.misses.push(`${label} → ${key}`);
      }
    }
    checks.set(run, check);
  }
  return checks;
}
