import { NO_MORE_DOCS, type GenerationView } from '../index/generation-view.js';
import { plainTermScorer } from './bm25f-scorer.js';
import { cannotCompete, type ExecutionCounters, type Scorer } from './scorer.js';
import type { TopKCollector } from './top-k-collector.js';

/** The current document's score (see Scorer.scoreTo); runners run one at a time. */
const SCORE = new Float64Array(1);

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
    const scoreTo = scorer.scoreTo.bind(scorer);
    const boundHere = scorer.boundHere.bind(scorer);
    const advanceShallow = scorer.advanceShallow.bind(scorer);
    const getMaxScore = scorer.getMaxScore.bind(scorer);
    // A plain term's per-document calls go through `term` instead: inlined (see plainTermScorer).
    const term = plainTermScorer(scorer);
    const hasKilled = view.killedCount > 0;
    let upTo = -1;
    let windowMax = Infinity;
    let told = -Infinity;
    let doc = term !== null ? term.nextDoc() : nextDoc();
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
        // k = 0 (a count alone): nothing enters, whatever the bound, so none is computed.
        const entry = collector.entryScore();
        if (
          entry === Infinity ||
          (entry !== -Infinity && cannotCompete(term !== null ? term.boundHere() : boundHere(), entry))
        ) {
          collector.count();
        } else {
          counters.docsScored++;
          if (term !== null) term.scoreTo(SCORE, 0);
          else scoreTo(SCORE, 0);
          const s = SCORE[0]!;
          // A score that does not enter is only counted, which is all collect() would do with
          // it; the double crosses no call (a call it is not inlined into boxes it).
          if (entry === -Infinity || s > entry) collector.collect(doc, s);
          else collector.count();
        }
      }
      doc = term !== null ? term.nextDoc() : nextDoc();
    }
  }
}
