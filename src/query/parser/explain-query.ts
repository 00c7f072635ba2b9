/**
 * A query tree as one compact line in the syntax of the query language, for logs, debugging
 * and the results page's "searched for". What a user typed reads back close to how it was
 * typed, with the analysed terms: `+t:stemm "state ? art" [a b] prefix* -x`.
 *
 * Notation beyond the query language (trees built by code may use any node):
 * `?` a position a stop word left in a phrase, `*` everything (MatchAll), `(…)` a nested
 * boolean that is not a plain any-of, `~n` its minShouldMatch when above 1,
 * `class:min..max` a numeric range, `(…)^b` a boost. Clauses are listed must, should,
 * filter, mustNot (the tree does not keep the order typed); coordBoost is not shown.
 */
import type { BooleanQuery, PhraseQuery, Query } from '../query-tree.js';

/** Longest run of `?` shown for a gap in a phrase (a hand-built tree may have any gap). */
const MAX_SHOWN_GAP = 8;

/** The tree as one line; `''` for null (an empty query). */
export function explainQuery(tree: Query | null): string {
  return tree === null ? '' : explain(tree, true);
}

function explain(q: Query, top: boolean): string {
  switch (q.kind) {
    case 'term':
      return scope(q.field) + q.term;
    case 'phrase':
      return `${scope(q.field)}"${phraseText(q)}"`;
    case 'prefix':
      return `${scope(q.field)}${q.prefix}*`;
    case 'all':
      return '*';
    case 'range':
      return `${q.field}:${q.min ?? ''}..${q.max ?? ''}`;
    case 'boost':
      return `(${explain(q.query, true)})^${q.boost}`;
    case 'bool':
      return explainBool(q, top);
    default:
      return `<${String((q as { kind: unknown }).kind)}>`;
  }
}

function explainBool(q: BooleanQuery, top: boolean): string {
  const must = q.must ?? [];
  const should = q.should ?? [];
  const filter = q.filter ?? [];
  const mustNot = q.mustNot ?? [];
  const msm = q.minShouldMatch ?? 0;
  if (!top && must.length + filter.length + mustNot.length === 0 && msm <= 1 && should.length > 0) {
    return anyOf(should);
  }
  const parts = [
    // A MatchAll beside exclusions is how "everything but" is written: show it as `*`.
    ...must.map((c) => (c.kind === 'all' ? '*' : '+' + explain(c, false))),
    ...should.map((c) => explain(c, false)),
    ...filter.map((c) => '|' + explain(c, false)),
    ...mustNot.map((c) => '-' + explain(c, false)),
  ];
  const body = parts.join(' ');
  if (msm > 1) return `(${body})~${msm}`;
  return top ? body : `(${body})`;
}

/** `[a b]`, or `t:[a b]` when every item is a leaf of the same class. */
function anyOf(items: Query[]): string {
  const field =
    items[0].kind === 'term' || items[0].kind === 'phrase' || items[0].kind === 'prefix'
      ? items[0].field
      : undefined;
  const shared =
    field !== undefined &&
    items.every(
      (c) => (c.kind === 'term' || c.kind === 'phrase' || c.kind === 'prefix') && c.field === field,
    );
  if (!shared) return `[${items.map((c) => explain(c, false)).join(' ')}]`;
  const bare = items.map((c) => explain({ ...c, field: undefined } as Query, false));
  return `${field}:[${bare.join(' ')}]`;
}

function phraseText(q: PhraseQuery): string {
  const positions = q.positions;
  if (positions === undefined || positions.length !== q.terms.length) return q.terms.join(' ');
  const out: string[] = [];
  q.terms.forEach((term, i) => {
    if (i > 0) {
      const gap = positions[i] - positions[i - 1] - 1;
      for (let g = 0; g < Math.min(gap, MAX_SHOWN_GAP); g++) out.push('?');
    }
    out.push(term);
  });
  return out.join(' ');
}

function scope(field: string | undefined): string {
  return field === undefined ? '' : field + ':';
}
