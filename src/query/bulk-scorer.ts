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
    const scorer = this.scorer;
    const hasKilled = view.killedCount > 0;
    let upTo = -1;
    let windowMax = Infinity;
    let told = -Infinity;
    let doc = scorer.nextDoc();
    while (doc !== NO_MORE_DOCS) {
      if (prune) {
        const minComp = collector.minCompetitiveScore();
        if (minComp !== -Infinity) {
          if (minComp !== told) {
            scorer.setMinCompetitiveScore(minComp);
            told = minComp;
          }
          if (doc > upTo) {
            upTo = scorer.advanceShallow(doc);
            windowMax = scorer.getMaxScore(upTo);
          }
          if (cannotCompete(windowMax, minComp)) {
            // The next window that can compete is found on block data alone: a window
            // skipped this way costs no block decoding (a common term skips most of them).
            let target: number;
            do {
              counters.windowsSkipped++;
              if (upTo === NO_MORE_DOCS) return;
              target = upTo + 1;
              upTo = scorer.advanceShallow(target);
              windowMax = scorer.getMaxScore(upTo);
            } while (cannotCompete(windowMax, minComp));
            doc = scorer.advance(target);
            continue;
          }
        }
      }
      if (!hasKilled || !view.isKilled(doc)) {
        // While matches are counted (up to the threshold) every one is visited; one that
        // cannot beat the heap's worst on its bound is counted without computing its score.
        const entry = collector.entryScore();
        if (entry !== -Infinity && cannotCompete(scorer.boundHere(), entry)) {
          collector.count();
        } else {
          counters.docsScored++;
          collector.collect(doc, scorer.score());
        }
      }
      doc = scorer.nextDoc();
    }
  }
}
