import { NO_MORE_DOCS } from '../index/generation-view.js';

const SCORE_SLOT = new Float64Array(1);

/**
 * A scorer iterates the matching documents of one query node in one generation, in docId
 * order (Lucene's Scorer: docId/nextDoc/advance/score), and offers upper bounds of its scores
 * for dynamic pruning:
 *
 * - {@link Scorer.maxScore}: over all its documents.
 * - {@link Scorer.advanceShallow} + {@link Scorer.getMaxScore}: over a window of docIds, from
 *   the block-max data of the postings (Lucene's impacts). `advanceShallow(target)` prepares
 *   block data for the window that starts at `target` and returns its last docId `end`
 *   (inclusive); `getMaxScore(upTo)` then bounds the scores of every document in
 *   [target, upTo]. It is tight for `upTo <= end`; for a larger `upTo` it may fall back to a
 *   looser bound (the global one), which is still safe. Targets passed to `advanceShallow`
 *   must not decrease; they may be below `docId()`.
 *
 * Every score and bound is >= 0 (idf is clamped, boosts and coordBoost are validated), which the
 * pruning logic relies on.
 */
export abstract class Scorer {
  /** Current document: -1 before the first move, {@link NO_MORE_DOCS} at the end. */
  abstract docId(): number;
  abstract nextDoc(): number;
  /** First matching document >= target; `target` must be > docId(). */
  abstract advance(target: number): number;
  /** Score of the current document; only valid while positioned on a document. */
  abstract score(): number;

  /**
   * Writes {@link score} into `out[at]`: how runners and composite scorers take scores.
   *
   * Why not `score()`: a runner (and a conjunction, a disjunction...) calls scorers of many
   * classes from one place, so V8 compiles the call as one it cannot inline, and a double
   * returned by such a call is boxed into a fresh heap number: one allocation per document
   * scored, a third of a query's garbage. Written into a Float64Array, it is never boxed.
   *
   * The scorers that are scored per document override this with the same one line, on
   * purpose: in a method of their own, `this.score()` only ever sees their class, so V8
   * inlines it (and the box with it disappears); this default's call sees every class.
   * Composite scorers compute their sum here and pass `out[at]` to their clauses as scratch:
   * a clause's last write is its score, read right after the call.
   */
  scoreTo(out: Float64Array, at: number): void {
    out[at] = this.score();
  }

  /** {@link score} for a scorer that computes its score in {@link scoreTo}. */
  protected scoreThroughScoreTo(): number {
    // One slot for every scorer: scoreTo calls no score(), and the slot is read at once.
    this.scoreTo(SCORE_SLOT, 0);
    return SCORE_SLOT[0]!;
  }
  /** Estimate (upper bound) of the number of matches: the cheapest clause leads conjunctions. */
  abstract cost(): number;
  /** Upper bound of every score this scorer can return. */
  abstract maxScore(): number;

  /**
   * Upper bound of {@link score} on the current document, cheaper to compute than the score:
   * a runner counts a document whose bound cannot enter the results without scoring it (a
   * query's matches are counted exactly up to its threshold, and most of them cannot enter
   * once the heap is full of better ones). Same discipline as every bound (see
   * {@link cannotCompete}). Default: {@link maxScore}.
   */
  boundHere(): number {
    return this.maxScore();
  }

  /** Default: one window to the end, bounded by {@link maxScore}. */
  advanceShallow(_target: number): number {
    return NO_MORE_DOCS;
  }

  getMaxScore(_upTo: number): number {
    return this.maxScore();
  }

  /**
   * Tells a top-level scorer that documents scoring `minScore` or less cannot enter the
   * results any more (Lucene's setMinCompetitiveScore): it may skip them without returning
   * them. Called with non-decreasing values, only by the runner that collects this scorer's
   * own scores. Default: ignored.
   */
  setMinCompetitiveScore(_minScore: number): void {}
}

/**
 * Lets a test count work without timing it: how many documents the executor scored and how
 * many windows of docIds block-max pruning skipped.
 */
export interface ExecutionCounters {
  /** Candidate documents whose score was (at least partly) computed. */
  docsScored: number;
  /** Windows skipped without looking at their documents because their bound could not compete. */
  windowsSkipped: number;
}

/**
 * True when a document whose score is at most `bound` cannot enter the top k: ties do not
 * compete (see `TopKCollector`), so a window whose bound equals the k-th score is skipped,
 * which matters because equal scores are common (same tf, same length).
 *
 * No rounding slack is needed because every bound is computed with the same operations, in
 * the same order, as the scores it bounds, only with larger (or extra non-negative) operands:
 * rounded addition, multiplication by a non-negative number and the saturation form of
 * `Saturation` are monotone, so the rounded bound is >= the rounded score. Scorers keep that
 * discipline (a disjunction sums its clauses in clause order, never in heap order); where
 * they cannot (MaxScore's partial sums, the frequency-ratio bound of `Bm25fScorer`), they
 * widen their bounds themselves.
 */
export function cannotCompete(bound: number, minCompetitiveScore: number): boolean {
  return bound <= minCompetitiveScore;
}
