/**
 * The summary as it was before it analysed only the text around possible matches
 * (`src/search/summary.ts` at 3c4fa5f): one pass of the analyzer over up to 20,000
 * characters of every result. `bench/summaries.ts` checks that the current summary answers
 * exactly as this one on RFC pages and measures both in the same run.
 */
import type { Analyzer, TokenSink } from '../../src/index/analysis/analyzer.js';
import { DROPPED, SpellingTable, UNKNOWN } from '../../src/index/analysis/spelling-table.js';
import { escapeHtml } from '../../src/escape-html.js';

/** How much of a document's text is searched for the best passage (long documents: the start). */
const SCAN_CHARS = 20_000;
const WINDOW_TOKENS = 32;

/**
 * Where the kept tokens of the text being summarised are: every kept token's start (a lead
 * of a few tokens before the best window is cut from it) and, for tokens that are query
 * terms only, their end and term. Reused from one summary to the next (a thread builds one
 * at a time), so a summary allocates no object per token.
 */
class TokenScan implements TokenSink {
  /** Start of every kept token, in order. */
  starts: Int32Array = new Int32Array(4096);
  kept = 0;
  /** Kept-token index, start, end and distinct-term number of every token that is a query term. */
  hitIndex: Int32Array = new Int32Array(256);
  hitStart: Int32Array = new Int32Array(256);
  hitEnd: Int32Array = new Int32Array(256);
  hitTerm: Int32Array = new Int32Array(256);
  hits = 0;
  /** Query terms met so far, numbered in the order met (`hitTerm`). */
  private readonly termNumbers = new Map<string, number>();
  private queryTerms: ReadonlySet<string> = new Set();
  private analyzer: Analyzer | null = null;
  private table: SpellingTable | null = null;
  /**
   * 1 at the table id of each query term the table held when the scan began (a term id
   * below `knownTerms` is a query term exactly when marked): one array read per token
   * instead of a set lookup. Ids the scan adds are checked by their term.
   */
  private queryIds = new Uint8Array(1024);
  private knownTerms = 0;

  run(text: string, analyzer: Analyzer, queryTerms: ReadonlySet<string>): void {
    this.kept = 0;
    this.hits = 0;
    this.termNumbers.clear();
    this.queryTerms = queryTerms;
    this.analyzer = analyzer;
    // Spellings → terms (the indexing threads' table): a word seen before costs a hash the
    // scanner already computed and one comparison, no string and no normalisation.
    const table = SpellingTable.for(analyzer);
    this.table = table;
    this.knownTerms = table.terms.length;
    if (this.queryIds.length < this.knownTerms)
      this.queryIds = new Uint8Array(Math.max(2 * this.queryIds.length, this.knownTerms));
    const marked: number[] = [];
    for (const term of queryTerms) {
      const id = table.termId(term);
      if (id !== undefined) {
        this.queryIds[id] = 1;
        marked.push(id);
      }
    }
    try {
      analyzer.forEachToken(text, 0, this);
    } finally {
      for (const id of marked) this.queryIds[id] = 0;
      this.analyzer = null;
      this.table = null;
    }
  }

  token(text: string, start: number, end: number, kind: number, hash: number): void {
    const table = this.table!;
    const id = table.lookup(text, start, end, kind, hash);
    if (id === DROPPED) return;
    let term: string | null = null;
    if (id === UNKNOWN) {
      term = this.analyzer!.termOfToken(text, start, end, kind);
      if (term === null) return;
    }
    if (this.kept === this.starts.length) this.starts = grow(this.starts);
    const index = this.kept++;
    this.starts[index] = start;
    if (term !== null) {
      if (!this.queryTerms.has(term)) return;
    } else if (id < this.knownTerms) {
      if (this.queryIds[id] === 0) return;
      term = table.terms[id]!;
    } else {
      term = table.terms[id]!;
      if (!this.queryTerms.has(term)) return;
    }
    let number = this.termNumbers.get(term);
    if (number === undefined) this.termNumbers.set(term, (number = this.termNumbers.size));
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
}

function grow(array: Int32Array): Int32Array {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

const scan = new TokenScan();
/** Distinct terms seen in one window: marks by term number, reset by a generation count. */
let seenMarks: Int32Array = new Int32Array(64);
let seenGeneration = 0;

/**
 * A query-biased summary: the passage of about `maxChars` characters holding the most
 * distinct query terms (the start of the text when none occurs), HTML-escaped, with every
 * matched word wrapped in `<b>`. Safe to insert into HTML as is.
 *
 * Windows are {@link WINDOW_TOKENS} kept tokens (stop words do not count) starting at the
 * text's first token or at a matched one; the best has the most distinct query terms, then
 * the most matches, then comes first. Only the matched tokens are kept while scanning (with
 * every kept token's start), so the cost is one pass of the analyzer's scanner over the text.
 */
export function buildSummaryFullScan(
  text: string,
  analyzer: Analyzer,
  queryTerms: ReadonlySet<string>,
  maxChars = 260,
): string {
  const scanned = text.length > SCAN_CHARS ? text.slice(0, SCAN_CHARS) : text;
  scan.run(scanned, analyzer, queryTerms);
  const { starts, kept, hitIndex, hitStart, hitEnd, hitTerm, hits } = scan;
  // The window at the first token (whether it matched or not), then one at each match.
  let best = 0;
  let bestDistinct = -1;
  let bestTotal = -1;
  const consider = (start: number, firstHit: number): void => {
    if (seenMarks.length < hits + 1) seenMarks = new Int32Array(2 * (hits + 1));
    seenGeneration++;
    let distinct = 0;
    let total = 0;
    const end = Math.min(kept, start + WINDOW_TOKENS);
    for (let h = firstHit; h < hits && hitIndex[h]! < end; h++) {
      total++;
      const term = hitTerm[h]!;
      if (seenMarks[term] !== seenGeneration) {
        seenMarks[term] = seenGeneration;
        distinct++;
      }
    }
    if (distinct > bestDistinct || (distinct === bestDistinct && total > bestTotal)) {
      best = start;
      bestDistinct = distinct;
      bestTotal = total;
    }
  };
  if (kept > 0 && (hits === 0 || hitIndex[0] !== 0)) consider(0, 0);
  for (let h = 0; h < hits; h++) consider(hitIndex[h]!, h);
  let from = kept === 0 ? 0 : starts[best]!;
  // Start a few words before the first match, at a sentence start when one is near.
  if (best > 0) {
    const lead = starts[Math.max(0, best - 4)]!;
    const sentence = scanned.lastIndexOf('. ', from);
    from = sentence >= 0 && from - sentence < 80 ? sentence + 2 : lead;
  }
  let to = Math.min(scanned.length, from + maxChars);
  // End at a word boundary.
  if (to < scanned.length) {
    const space = scanned.lastIndexOf(' ', to);
    if (space > from + maxChars / 2) to = space;
  }
  const parts: string[] = [];
  if (from > 0) parts.push('… ');
  let at = from;
  for (let h = 0; h < hits; h++) {
    const start = hitStart[h]!;
    const end = hitEnd[h]!;
    if (start < from || end > to) continue;
    parts.push(
      escapeHtml(collapse(scanned.slice(at, start))),
      '<b>',
      escapeHtml(scanned.slice(start, end)),
      '</b>',
    );
    at = end;
  }
  parts.push(escapeHtml(collapse(scanned.slice(at, to))));
  if (to < text.length) parts.push(' …');
  return parts.join('').trim();
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}
