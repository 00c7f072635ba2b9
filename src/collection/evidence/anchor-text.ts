import type { GraphLink, InboundAnchor } from './link-graph.js';
import { canonicalizeKey } from '../key.js';

/** Distinct anchor texts kept per target (the most frequent first). */
export const MAX_ANCHOR_TEXTS = 100;
/** Repetitions of one anchor text in the `k` field, however many pages use it. */
export const MAX_ANCHOR_REPEAT = 8;
/** Longer link texts are cut (a link around a whole paragraph says little more than its start). */
export const MAX_ANCHOR_TEXT_LENGTH = 200;

/**
 * The values of a document's anchor-text class (`k`) from the links aimed at it. The same
 * text from many pages is strong evidence: a text used by `n` distinct pages is repeated `n`
 * times, at most {@link MAX_ANCHOR_REPEAT} (ranking's term-frequency saturation supplies the
 * diminishing returns), so that thousands of "[RFC2119]" links do not bury every other word
 * of the field. Texts are grouped ignoring case; the order is deterministic (count, then
 * text), so the same links always give the same field.
 */
export function anchorFieldValues(anchors: readonly InboundAnchor[]): string[] {
  const groups = new Map<string, { text: string; sources: Set<string> }>();
  for (const { source, text } of anchors) {
    const id = text.toLowerCase();
    let group = groups.get(id);
    if (group === undefined) groups.set(id, (group = { text, sources: new Set() }));
    else if (text < group.text) group.text = text;
    group.sources.add(source);
  }
  const ranked = [...groups.entries()]
    .sort((a, b) => b[1].sources.size - a[1].sources.size || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, MAX_ANCHOR_TEXTS);
  const values: string[] = [];
  for (const [, { text, sources }] of ranked) {
    const repeat = Math.min(MAX_ANCHOR_REPEAT, sources.size);
    for (let i = 0; i < repeat; i++) values.push(text);
  }
  return values;
}

/**
 * The links of a stored document (`STORED.links`: JSON `[[href, text], ...]`, hrefs already
 * absolute and without fragment) as graph links: targets canonicalised like keys (so that a
 * link and the key of the page it names compare equal), texts whitespace-collapsed and cut,
 * empty texts and links to the document itself dropped, duplicates removed. Hrefs that are
 * no valid key are skipped.
 */
export function linksOfStored(source: string, storedLinks: unknown): GraphLink[] {
  if (typeof storedLinks !== 'string' || storedLinks === '' || storedLinks === '[]') return [];
  let pairs: unknown;
  try {
    pairs = JSON.parse(storedLinks);
  } catch {
    return [];
  }
  if (!Array.isArray(pairs)) return [];
  const seen = new Set<string>();
  const out: GraphLink[] = [];
  for (const pair of pairs) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') continue;
    let text = pair[1].replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    if (text.length > MAX_ANCHOR_TEXT_LENGTH) text = text.slice(0, MAX_ANCHOR_TEXT_LENGTH);
    let target: string;
    try {
      target = canonicalizeKey(pair[0]);
    } catch {
      continue;
    }
    if (target === source) continue;
    const id = target + '\n' + text;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ target, text });
  }
  return out;
}
