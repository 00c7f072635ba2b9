/**
 * The query tree the executor runs. Terms in it are already analysed (the query processor
 * turns user text into this tree with the field's analyzer). A node without `field` searches
 * the default content fields together with BM25F; with `field` it searches that one field
 * (a metadata class, `t` for title, `k` for anchor text...).
 */
export type Query =
  TermQuery | PhraseQuery | PrefixQuery | BooleanQuery | MatchAllQuery | RangeQuery | BoostQuery;

export interface TermQuery {
  kind: 'term';
  field?: string;
  term: string;
}

/** Terms at consecutive positions (a removed stop word may leave a gap: `positionGaps`). */
export interface PhraseQuery {
  kind: 'phrase';
  field?: string;
  terms: string[];
  /** Relative position of each term (default 0,1,2...), so "state of the art" keeps its gaps. */
  positions?: number[];
}

/** Truncation: every term starting with `prefix`, as one pseudo-term. */
export interface PrefixQuery {
  kind: 'prefix';
  field?: string;
  prefix: string;
}

/**
 * must: all required, scored. filter: all required, not scored. mustNot: none may match.
 * should: optional, scored; with no must/filter at least `minShouldMatch` (default 1) must match.
 * `coordBoost`: added once per matching should clause, which ranks documents matching more
 * clauses first (the original's result tiers) while keeping scores a sum per clause,
 * as dynamic pruning needs.
 */
export interface BooleanQuery {
  kind: 'bool';
  must?: Query[];
  should?: Query[];
  mustNot?: Query[];
  filter?: Query[];
  minShouldMatch?: number;
  coordBoost?: number;
}

export interface MatchAllQuery {
  kind: 'all';
}

/** Numeric class between bounds (inclusive); constant score 0 (a filter). */
export interface RangeQuery {
  kind: 'range';
  field: string;
  min?: number;
  max?: number;
}

export interface BoostQuery {
  kind: 'boost';
  query: Query;
  boost: number;
}
