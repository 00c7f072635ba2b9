import { SearchError } from '../errors.js';
import { NO_MORE_DOCS, type GenerationView } from '../index/generation-view.js';
import { statisticsFromGenerations, type CollectionStatistics } from './collection-statistics.js';
import { createWeight, type Weight } from './create-weight.js';
import type { Query } from './query-tree.js';
import type { ExecutionCounters } from './scorer.js';
import { resolveScoringOptions, type ScoringOptionsInput } from './scoring-options.js';
import { TopKCollector } from './top-k-collector.js';
import { BudgetExhausted, type WorkBudget } from './work-budget.js';

export interface ExecuteOptions {
  /** Number of hits wanted (>= 0). */
  k: number;
  /** Merged over `DEFAULT_SCORING`. */
  scoring?: ScoringOptionsInput;
  /** Corpus statistics; default: summed over `generations`. A meta collection passes combined ones. */
  stats?: CollectionStatistics;
  /**
   * Matches are counted exactly up to this number; beyond it dynamic pruning may skip
   * documents and `totalHits` becomes a lower bound. Default 1000; Infinity: always exact.
   */
  totalHitsThreshold?: number;
  /** Disables every pruning: each match is scored and counted (tests, oracle). */
  exhaustive?: boolean;
  /**
   * The query's deadline and prefix cap. Past the deadline the executor stops and answers the
   * best hits found so far, with `timedOut` set (and `totalHitsExact` false).
   */
  budget?: WorkBudget;
}

export interface Hit {
  /** Index into the `generations` array given to {@link executeQuery}. */
  generationIndex: number;
  docId: number;
  score: number;
}

export interface ExecuteResult {
  /** Best first: score descending, then generationIndex ascending, then docId ascending. */
  hits: Hit[];
  /** Number of live matching documents; a lower bound when `totalHitsExact` is false. */
  totalHits: number;
  totalHitsExact: boolean;
  /** True when the budget's deadline stopped the run before it saw every generation. */
  timedOut: boolean;
  /** Work done, for tests and the admin statistics. */
  counters: ExecutionCounters;
}

export const DEFAULT_TOTAL_HITS_THRESHOLD = 1000;

/**
 * Runs a query over the generations of a searcher and returns the k best live documents.
 *
 * Generations run one after the other into one top-k heap, so a high k-th score found in
 * one generation lets block-max pruning skip more of the next. Killed documents are never
 * scored, counted or returned. Scores are BM25F (see `similarity.ts`); statistics include
 * killed documents. Throws `QUERY_INVALID` / `SCORING_OPTIONS_INVALID` on bad input.
 */
export function executeQuery(
  generations: readonly GenerationView[],
  query: Query,
  options: ExecuteOptions,
): ExecuteResult {
  const { k } = options;
  if (!Number.isInteger(k) || k < 0)
    throw new SearchError('QUERY_INVALID', `k must be an integer >= 0, got ${k}`);
  const threshold = options.totalHitsThreshold ?? DEFAULT_TOTAL_HITS_THRESHOLD;
  if (!(threshold >= 0)) {
    throw new SearchError('QUERY_INVALID', `totalHitsThreshold must be a number >= 0, got ${threshold}`);
  }
  const exhaustive = options.exhaustive === true;
  const budget = options.budget;
  const collector = new TopKCollector(k, threshold, !exhaustive);
  const counters: ExecutionCounters = { docsScored: 0, windowsSkipped: 0 };
  if (budget?.expired() === true) return timedOutResult(collector, counters);
  let weight;
  try {
    weight = createWeight(
      {
        options: resolveScoringOptions(options.scoring),
        stats: options.stats ?? statisticsFromGenerations(generations),
        generations,
        ...(budget !== undefined ? { budget } : {}),
      },
      query,
    );
  } catch (error) {
    if (error instanceof BudgetExhausted) return timedOutResult(collector, counters);
    throw error;
  }
  if (budget !== undefined) collector.budget = budget;
  let knownCount: number;
  try {
    knownCount = runGenerations(generations, weight, collector, counters, exhaustive, budget);
  } catch (error) {
    if (error instanceof BudgetExhausted) return timedOutResult(collector, counters);
    throw error;
  }
  // A query whose count is known without iterating (match-all) reports it exactly even when
  // pruning stopped the iteration early.
  const exactCount = knownCount >= 0;
  return {
    hits: collector.hits(),
    totalHits: exactCount ? knownCount : collector.totalHits,
    totalHitsExact: exactCount || !collector.pruningStarted,
    timedOut: false,
    counters,
  };
}

/** What a run stopped by its deadline found: the best hits so far, a lower-bound count. */
function timedOutResult(collector: TopKCollector, counters: ExecutionCounters): ExecuteResult {
  return {
    hits: collector.hits(),
    totalHits: collector.totalHits,
    totalHitsExact: false,
    timedOut: true,
    counters,
  };
}

function runGenerations(
  generations: readonly GenerationView[],
  weight: Weight,
  collector: TopKCollector,
  counters: ExecutionCounters,
  exhaustive: boolean,
  budget: WorkBudget | undefined,
): number {
  let knownCount = 0;
  for (let gi = 0; gi < generations.length; gi++) {
    budget?.check();
    const view = generations[gi];
    collector.generationIndex = gi;
    if (knownCount >= 0) {
      const c = weight.count(view);
      knownCount = c < 0 ? -1 : knownCount + c;
    }
    // Nothing can enter the results any more (a count alone, k = 0, past its exact-count
    // threshold: pruning skips every window from then on, and counts nothing it skips). The
    // generations left would only be opened, their first match found, and skipped.
    if (collector.minCompetitiveScore() === Infinity) {
      if (knownCount < 0) break;
      continue;
    }
    if (exhaustive) {
      // The oracle path: plain iteration, no block data, no bulk scorer.
      const scorer = weight.scorer(view);
      if (scorer === null) continue;
      const hasKilled = view.killedCount > 0;
      for (let doc = scorer.nextDoc(); doc !== NO_MORE_DOCS; doc = scorer.nextDoc()) {
        if (hasKilled && view.isKilled(doc)) continue;
        counters.docsScored++;
        collector.collect(doc, scorer.score());
      }
    } else {
      weight.bulkScorer(view)?.score(view, collector, counters, true);
    }
  }
  return knownCount;
}
