import { NO_MORE_DOCS, type GenerationView } from '../index/generation-view.js';
import { statisticsFromGenerations, type CollectionStatistics } from './collection-statistics.js';
import { createWeight } from './create-weight.js';
import type { Query } from './query-tree.js';
import { resolveScoringOptions, type ScoringOptionsInput } from './scoring-options.js';
import type { WorkBudget } from './work-budget.js';

/**
 * Every live document matching a query, as one bitset per generation (facet counts need the
 * whole match set, not the top k). Scores are not computed. Throws `BudgetExhausted` when
 * the budget's deadline passes (a partial match set would give wrong counts).
 */
export function matchSet(
  generations: readonly GenerationView[],
  query: Query,
  options: { scoring?: ScoringOptionsInput; stats?: CollectionStatistics; budget?: WorkBudget } = {},
): Uint8Array[] {
  const budget = options.budget;
  const weight = createWeight(
    {
      options: resolveScoringOptions(options.scoring),
      stats: options.stats ?? statisticsFromGenerations(generations),
      generations,
      ...(budget !== undefined ? { budget } : {}),
    },
    query,
  );
  return generations.map((view) => {
    const bits = new Uint8Array((view.maxDoc + 7) >>> 3);
    budget?.check();
    const scorer = weight.scorer(view);
    if (scorer === null) return bits;
    for (let doc = scorer.nextDoc(); doc !== NO_MORE_DOCS; doc = scorer.nextDoc()) {
      budget?.tick();
      if (!view.isKilled(doc)) bits[doc >>> 3]! |= 1 << (doc & 7);
    }
    return bits;
  });
}

export function inSet(bits: Uint8Array, doc: number): boolean {
  return (bits[doc >>> 3]! & (1 << (doc & 7))) !== 0;
}
