import { NO_MORE_DOCS, type GenerationView } from '../index/generation-view.js';
import { cannotCompete, type ExecutionCounters, type Scorer } from './scorer.js';
import type { TopKCollector } from './top-k-collector.js';

/** Runs one query node over a whole generation into the collector (Lucene's BulkScorer). */
export interface BulkScorer {
  /** `prune`: false disables every skip (exhaustive runs); live documents only are collected. */
  score(view: GenerationView, collector: TopKCollector, counters: ExecutionCounters, prune: boolean): void;
}

/**
 * The default runner: iterates the scorer and, once the collector has a competitive score,
 * skips every window (from `advanceShallow`) whose `getMaxScore` cannot beat it. This is
 * what makes a single common term cheap: only blocks holding a competitive document are
 * scored.
 */
export class BlockMaxBulkScorer implements BulkScorer {
  private readonly scorer: Scorer;

  constructor(scorer: Scorer) {
    this.scorer = scorer;
  }

  score(view: GenerationView, collector: TopKCollector, counters: ExecutionCounters, prune: boolean): void {
    // The scorer's class depends on the query (a term, a phrase, a conjunction, an exclusion...),
    // so a call here sees more classes than V8 dispatches on inline: each call would look its
    // method up in the megamorphic cache, at every document (a tenth of a query's instructions).
    // Looked up once per generation, they are plain calls.
    const scorer = this.scorer;
    const nextDoc = scorer.nextDoc.bind(scorer);
    const advance = scorer.advance.bind(scorer);
    const score = scorer.score.bind(scorer);
    const boundHere = scorer.boundHere.bind(scorer);
    const advanceShallow = scorer.advanceShallow.bind(scorer);
    const getMaxScore = scorer.getMaxScore.bind(scorer);
    const hasKilled = view.killedCount > 0;
    let upTo = -1;
    let windowMax = Infinity;
    let told = -Infinity;
    let doc = nextDoc();
    while (doc !== NO_MORE_DOCS) {
      if (prune) {
        const minComp = collector.minCompetitiveScore();
        if (minComp !== -Infinity) {
          if (minComp !== told) {
            scorer.setMinCompetitiveScore(minComp);
            told = minComp;
          }
          if (doc > upTo) {
            upTo = advanceShallow(doc);
            windowMax = getMaxScore(upTo);
          }
          if (cannotCompete(windowMax, minComp)) {
            // The next window that can compete is found on block data alone: a window
            // skipped this way costs no block decoding (a common term skips most of them).
            let target: number;
            do {
              counters.windowsSkipped++;
              if (upTo === NO_MORE_DOCS) return;
              target = upTo + 1;
              upTo = advanceShallow(target);
              windowMax = getMaxScore(upTo);
            } while (cannotCompete(windowMax, minComp));
            doc = advance(target);
            continue;
          }
        }
      }
      if (!hasKilled || !view.isKilled(doc)) {
        // While matches are counted (up to the threshold) every one is visited; one that
        // cannot beat the heap's worst on its bound is counted without computing its score.
        const entry = collector.entryScore();
        if (entry !== -Infinity && cannotCompete(boundHere(), entry)) {
          collector.count();
        } else {
          counters.docsScored++;
          collector.collect(doc, score());
        }
      }
      doc = nextDoc();
    }
  }
}
