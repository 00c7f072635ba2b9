import type { Query } from '../../src/query/query-tree.js';

/** Counts term, phrase and prefix nodes: the clauses the clause limit is about. */
export function leafCount(q: Query | null): number {
  if (q === null) return 0;
  switch (q.kind) {
    case 'term':
    case 'phrase':
    case 'prefix':
      return 1;
    case 'bool':
      return [...(q.must ?? []), ...(q.should ?? []), ...(q.mustNot ?? []), ...(q.filter ?? [])].reduce(
        (n, c) => n + leafCount(c),
        0,
      );
    case 'boost':
      return leafCount(q.query);
    default:
      return 0;
  }
}

/** Every node of a tree, depth first. */
export function nodes(q: Query | null): Query[] {
  if (q === null) return [];
  if (q.kind === 'bool') {
    return [
      q,
      ...[...(q.must ?? []), ...(q.should ?? []), ...(q.mustNot ?? []), ...(q.filter ?? [])].flatMap(nodes),
    ];
  }
  if (q.kind === 'boost') return [q, ...nodes(q.query)];
  return [q];
}
