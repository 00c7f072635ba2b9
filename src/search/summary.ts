import type { Analyzer } from '../index/analysis/analyzer.js';
import { escapeHtml } from '../escape-html.js';

/** How much of a document's text is searched for the best passage (long documents: the start). */
const SCAN_CHARS = 20_000;
const WINDOW_TOKENS = 32;

/**
 * A query-biased summary: the passage of about `maxChars` characters holding the most
 * distinct query terms (the start of the text when none occurs), HTML-escaped, with every
 * matched word wrapped in `<b>`. Safe to insert into HTML as is.
 */
export function buildSummary(
  text: string,
  analyzer: Analyzer,
  queryTerms: ReadonlySet<string>,
  maxChars = 260,
): string {
  const scanned = text.length > SCAN_CHARS ? text.slice(0, SCAN_CHARS) : text;
  const tokens = analyzer.tokens(scanned);
  const hits = tokens.map((t) => queryTerms.has(t.term));
  // Sliding window over tokens maximising distinct matched terms (then total matches).
  let best = 0;
  let bestDistinct = -1;
  let bestTotal = -1;
  for (let start = 0; start < tokens.length; start++) {
    if (!hits[start] && start !== 0) continue;
    const seen = new Set<string>();
    let total = 0;
    const end = Math.min(tokens.length, start + WINDOW_TOKENS);
    for (let i = start; i < end; i++) {
      if (hits[i]) {
        seen.add(tokens[i]!.term);
        total++;
      }
    }
    if (seen.size > bestDistinct || (seen.size === bestDistinct && total > bestTotal)) {
      best = start;
      bestDistinct = seen.size;
      bestTotal = total;
    }
  }
  let from = tokens.length === 0 ? 0 : tokens[best]!.start;
  // Start a few words before the first match, at a sentence start when one is near.
  if (best > 0) {
    const lead = tokens[Math.max(0, best - 4)]!.start;
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
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.start < from || token.end > to) continue;
    if (!hits[i]) continue;
    parts.push(
      escapeHtml(collapse(scanned.slice(at, token.start))),
      '<b>',
      escapeHtml(scanned.slice(token.start, token.end)),
      '</b>',
    );
    at = token.end;
  }
  parts.push(escapeHtml(collapse(scanned.slice(at, to))));
  if (to < text.length) parts.push(' …');
  return parts.join('').trim();
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}
