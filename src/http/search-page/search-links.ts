import type { SearchParams } from '../../search/search-service.js';
import { formatSortMode } from '../../search/result-order.js';

/** The page's own address, relative to `/s/`. */
const PAGE = 'search.html';
const DEFAULT_NUM_RANKS = 10;

/**
 * Builds the links of the results page from the search that produced it: the same search
 * on another page, with a facet value toggled, or with another query. Every link names its
 * parameters in one canonical order and leaves out defaults, so equal searches have equal
 * URLs (browser history and caches see one page, not several). The returned URLs are raw:
 * escape them (`escapeHtml`) when putting them in an attribute.
 */
export class SearchLinks {
  private readonly params: SearchParams;

  constructor(params: SearchParams) {
    this.params = params;
  }

  /** The first page of a search of `query` in the same collection and scope, keeping filters. */
  withQuery(query: string): string {
    return this.build({ query, startRank: 1 });
  }

  /** The same search from `startRank`. */
  page(startRank: number): string {
    return this.build({ startRank });
  }

  /** The same search with one value of a facet selected or, when it was selected, not; back to page 1. */
  toggleFacet(name: string, className: string, value: string): string {
    const selections = this.params.facetSelections.map((s) => ({ ...s, values: [...s.values] }));
    let selection = selections.find((s) => s.name === name && s.className === className);
    if (selection === undefined) {
      selection = { name, className, values: [] };
      selections.push(selection);
    }
    const at = selection.values.indexOf(value);
    if (at >= 0) selection.values.splice(at, 1);
    else selection.values.push(value);
    return this.build({ startRank: 1, facetSelections: selections });
  }

  /** The same search without any value of one facet; back to page 1. */
  clearFacet(name: string, className: string): string {
    const selections = this.params.facetSelections.filter(
      (s) => !(s.name === name && s.className === className),
    );
    return this.build({ startRank: 1, facetSelections: selections });
  }

  /** The same query with no facet selection, range or scope. */
  withoutFilters(): string {
    return this.build({ startRank: 1, facetSelections: [], ranges: [], gscope: undefined });
  }

  /** True when the search has a facet selection, a range or a scope. */
  get filtered(): boolean {
    const p = this.params;
    return (
      p.facetSelections.some((s) => s.values.length > 0) || p.ranges.length > 0 || (p.gscope ?? '') !== ''
    );
  }

  private build(change: Partial<SearchParams>): string {
    const p = { ...this.params, ...change };
    const out = new URLSearchParams();
    out.set('collection', p.collection);
    out.set('query', p.query);
    if (p.startRank > 1) out.set('start_rank', String(p.startRank));
    if (p.numRanks !== DEFAULT_NUM_RANKS) out.set('num_ranks', String(p.numRanks));
    if (p.fmo) out.set('fmo', 'on');
    if (p.gscope !== undefined && p.gscope !== '') out.set('gscope1', p.gscope);
    for (const selection of p.facetSelections) {
      for (const value of selection.values) out.append(`f.${selection.name}|${selection.className}`, value);
    }
    for (const range of p.ranges) {
      if (range.min !== undefined) out.set(`ge_${range.className}`, String(range.min));
      if (range.max !== undefined) out.set(`le_${range.className}`, String(range.max));
    }
    // Sorting and the distance filter stay the same on every page (pagination is consistent).
    if (p.sort !== undefined) out.set('sort', formatSortMode(p.sort));
    if (p.origin !== undefined) out.set('origin', `${p.origin.lat},${p.origin.lon}`);
    if (p.maxdist !== undefined) out.set('maxdist', String(p.maxdist));
    return `${PAGE}?${out.toString()}`;
  }
}
