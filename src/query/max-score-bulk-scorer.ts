import { NO_MORE_DOCS, type GenerationView } from '../index/generation-view.js';
import { plainTermScorer, type Bm25fScorer } from './bm25f-scorer.js';
import type { BulkScorer } from './bulk-scorer.js';
import { packedMap } from './packed-map.js';
import { cannotCompete, type ExecutionCounters, type Scorer } from './scorer.js';
import type { TopKCollector } from './top-k-collector.js';

/**
 * A partial sum and a bound may add the same non-negative numbers in different orders; the
 * rounded results then differ by at most (n - 1) ulps relative, far below 2^-32 for any
 * realistic number of clauses.
 */
const PARTIAL_SUM_SLACK = 1 + 2 ** -32;
/** Up to this many clauses the partition sums bounds in clause order (exact, O(n^2)). */
const EXACT_PARTITION_MAX_CLAUSES = 16;

/**
 * Block-max MaxScore for a top-level disjunction (Lucene 9's MaxScoreBulkScorer idea).
 *
 * The docId space is cut into windows that end where some clause's current block ends, so
 * that inside a window every clause has a tight bound (its block maxima). In each window the
 * clauses are sorted by bound; the longest prefix whose bounds sum to no more than the k-th
 * best score so far is *non-essential*: a document matching only those cannot compete. So
 * only the *essential* clauses produce candidates; non-essential ones are advanced to a
 * candidate only while the candidate could still compete (best bound first). A window where
 * every clause is non-essential is skipped whole.
 *
 * A clause's contribution is its score plus `coordBoost` (included in its bound). Killed and
 * excluded (`mustNot`) documents are dropped before any scoring.
 *
 * Rounding: a document's final score adds the contributions in clause order, exactly as
 * `DisjunctionScorer` does, and the partition sums the non-essential bounds in clause order
 * too, so the partition is exact (windows whose bound ties the k-th score are skipped; see
 * `cannotCompete`). Only the early exit on a partial sum (essential clauses first) adds in a
 * different order, so there the bound is widened by a relative 2^-32.
 */
export class MaxScoreBulkScorer implements BulkScorer {
  private readonly clauses: Scorer[];
  /**
   * clauses[i] when it is a plain term, else null: per-document calls go through it, to be
   * inlined (see plainTermScorer; the clauses of a query's words are terms).
   */
  private readonly terms: (Bm25fScorer | null)[];
  private readonly n: number;
  private readonly coord: number;
  private readonly excluded: Scorer | null;
  private readonly docs: Int32Array;
  private readonly windowBound: Float64Array;
  /** Clause indices by ascending window bound; [0, firstEssential) are non-essential. */
  private readonly order: Int32Array;
  /** prefixBound[j] = Σ windowBound of the clauses order[0..j], added in clause order. */
  private readonly prefixBound: Float64Array;
  private readonly inPrefix: Uint8Array;
  /** Contribution of each clause to the current candidate (0: no match). */
  private readonly contrib: Float64Array;

  constructor(clauses: readonly Scorer[], coordBoost: number, excluded: Scorer | null) {
    this.clauses = [...clauses];
    this.terms = packedMap(clauses, plainTermScorer);
    this.n = clauses.length;
    this.coord = coordBoost;
    this.excluded = excluded;
    this.docs = new Int32Array(this.n);
    this.windowBound = new Float64Array(this.n);
    this.order = new Int32Array(clauses.length);
    for (let i = 0; i < clauses.length; i++) this.order[i] = i;
    this.prefixBound = new Float64Array(this.n);
    this.inPrefix = new Uint8Array(this.n);
    this.contrib = new Float64Array(this.n);
  }

  score(view: GenerationView, collector: TopKCollector, counters: ExecutionCounters, prune: boolean): void {
    const n = this.n;
    const docs = this.docs;
    let windowMin = NO_MORE_DOCS;
    for (let i = 0; i < n; i++) {
      docs[i] = this.clauses[i].nextDoc();
      if (docs[i] < windowMin) windowMin = docs[i];
    }
    while (windowMin < NO_MORE_DOCS) {
      const minComp = prune ? collector.minCompetitiveScore() : -Infinity;
      if (minComp === -Infinity) {
        // Nothing to prune against yet: one window to the end, every clause essential, and
        // the window is cut short as soon as the collector has a threshold.
        for (let i = 0; i < n; i++) this.order[i] = i;
        windowMin = this.scoreWindow(view, collector, counters, prune, windowMin, NO_MORE_DOCS, 0, -Infinity);
        continue;
      }
      const windowMax = this.computeWindowMax(windowMin);
      const firstEssential = this.partition(windowMax, minComp);
      if (firstEssential === n) {
        counters.windowsSkipped++;
        windowMin = windowMax;
        continue;
      }
      windowMin = this.scoreWindow(
        view,
        collector,
        counters,
        prune,
        windowMin,
        windowMax,
        firstEssential,
        minComp,
      );
    }
  }

  /**
   * End (exclusive) of the window starting at windowMin: the first block end among the
   * clauses, so every clause's bound over the window comes from a single block.
   */
  private computeWindowMax(windowMin: number): number {
    let windowMax = NO_MORE_DOCS;
    for (let i = 0; i < this.n; i++) {
      const d = this.docs[i];
      if (d === NO_MORE_DOCS) continue;
      // A clause lagging behind windowMin (non-essential, advanced lazily) has nothing to
      // offer before windowMin; a clause ahead of it nothing before its own docId.
      const e = this.clauses[i].advanceShallow(d > windowMin ? d : windowMin);
      if (e < NO_MORE_DOCS && e + 1 < windowMax) windowMax = e + 1;
    }
    return windowMax;
  }

  /** Sorts the clauses by window bound and returns how many are non-essential. */
  private partition(windowMax: number, minComp: number): number {
    const n = this.n;
    const bound = this.windowBound;
    const order = this.order;
    for (let i = 0; i < n; i++) {
      // A clause positioned at or after windowMax has no document in the window.
      bound[i] = this.docs[i] < windowMax ? this.clauses[i].getMaxScore(windowMax - 1) + this.coord : 0;
      // Insertion sort: few clauses, and the order changes little from window to window.
      let j = i - 1;
      while (j >= 0 && bound[order[j]] > bound[i]) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = i;
    }
    const inPrefix = this.inPrefix;
    inPrefix.fill(0);
    let firstEssential = 0;
    let acc = 0;
    for (let j = 0; j < n; j++) {
      if (n <= EXACT_PARTITION_MAX_CLAUSES) {
        // Each prefix summed in clause order, like the scores: O(n^2) per window, for few
        // clauses. A larger prefix only adds non-negative terms, so it never sums lower.
        inPrefix[order[j]] = 1;
        let sum = 0;
        for (let i = 0; i < n; i++) if (inPrefix[i] === 1) sum += bound[i];
        this.prefixBound[j] = sum;
      } else {
        // Many clauses: bound order, widened for the different order (ties are not skipped).
        acc += bound[order[j]];
        this.prefixBound[j] = acc * PARTIAL_SUM_SLACK;
      }
      if (firstEssential === j && cannotCompete(this.prefixBound[j], minComp)) firstEssential = j + 1;
    }
    return firstEssential;
  }

  /**
   * While matches are counted (no threshold yet, every clause essential and on `d` or past
   * it): true, with the clauses on `d` moved past it, when `d` cannot enter the heap on the
   * bounds of its matching clauses (summed in clause order, as its score would be).
   */
  private countsOnly(d: number, collector: TopKCollector): boolean {
    const entry = collector.entryScore();
    if (entry === -Infinity) return false;
    const docs = this.docs;
    const clauses = this.clauses;
    const terms = this.terms;
    // k = 0 (a count alone): nothing enters, whatever the bound, so none is computed.
    if (entry !== Infinity) {
      let bound = 0;
      for (let i = 0; i < this.n; i++) {
        if (docs[i] === d) {
          const t = terms[i];
          bound += (t !== null ? t.boundHere() : clauses[i].boundHere()) + this.coord;
        }
      }
      if (!cannotCompete(bound, entry)) return false;
    }
    for (let i = 0; i < this.n; i++) {
      if (docs[i] === d) {
        const t = terms[i];
        docs[i] = t !== null ? t.nextDoc() : clauses[i].nextDoc();
      }
    }
    return true;
  }

  /**
   * Scores the candidates of [windowMin, windowMax) produced by the essential clauses.
   * Returns where the next window starts: windowMax, or just after the current document
   * when the threshold rose enough to change the partition.
   */
  private scoreWindow(
    view: GenerationView,
    collector: TopKCollector,
    counters: ExecutionCounters,
    prune: boolean,
    windowMin: number,
    windowMax: number,
    firstEssential: number,
    startMinComp: number,
  ): number {
    const n = this.n;
    const docs = this.docs;
    const order = this.order;
    const clauses = this.clauses;
    const terms = this.terms;
    const coord = this.coord;
    const prefixBound = this.prefixBound;
    const contrib = this.contrib;
    const excluded = this.excluded;
    const hasKilled = view.killedCount > 0;
    let minComp = startMinComp;
    // Non-essential clauses are advanced lazily and may sit before windowMin, even on a
    // document already collected when a window was cut short: bring the essential ones up.
    for (let j = firstEssential; j < n; j++) {
      const i = order[j];
      if (docs[i] < windowMin) docs[i] = clauses[i].advance(windowMin);
    }
    for (;;) {
      let d = NO_MORE_DOCS;
      for (let j = firstEssential; j < n; j++) {
        const c = docs[order[j]];
        if (c < d) d = c;
      }
      if (d >= windowMax) return windowMax;
      let skip = hasKilled && view.isKilled(d);
      if (!skip && excluded !== null) {
        let e = excluded.docId();
        if (e < d) e = excluded.advance(d);
        skip = e === d;
      }
      if (skip) {
        for (let j = firstEssential; j < n; j++) {
          const i = order[j];
          if (docs[i] === d) {
            const t = terms[i];
            docs[i] = t !== null ? t.nextDoc() : clauses[i].nextDoc();
          }
        }
        continue;
      }
      if (minComp === -Infinity && this.countsOnly(d, collector)) {
        collector.count();
      } else {
        counters.docsScored++;
        let partial = 0;
        for (let j = firstEssential; j < n; j++) {
          const i = order[j];
          if (docs[i] === d) {
            const t = terms[i];
            if (t !== null) t.scoreTo(contrib, i);
            else clauses[i].scoreTo(contrib, i);
            const v = contrib[i]! + coord;
            contrib[i] = v;
            partial += v;
            docs[i] = t !== null ? t.nextDoc() : clauses[i].nextDoc();
          }
        }
        let competitive = true;
        for (let j = firstEssential - 1; j >= 0; j--) {
          if ((partial + prefixBound[j]) * PARTIAL_SUM_SLACK <= minComp) {
            competitive = false;
            break;
          }
          const i = order[j];
          const t = terms[i];
          if (docs[i] < d) docs[i] = t !== null ? t.advance(d) : clauses[i].advance(d);
          if (docs[i] === d) {
            if (t !== null) t.scoreTo(contrib, i);
            else clauses[i].scoreTo(contrib, i);
            const v = contrib[i]! + coord;
            contrib[i] = v;
            partial += v;
          }
        }
        let score = 0;
        for (let i = 0; i < n; i++) {
          score += contrib[i];
          contrib[i] = 0;
        }
        if (!competitive) continue;
        // A score that does not enter is only counted, which is all collect() would do with
        // it; the double crosses no call (a call it is not inlined into boxes it).
        const entry = collector.entryScore();
        if (entry === -Infinity || score > entry) collector.collect(d, score);
        else collector.count();
      }
      if (prune) {
        const newMin = collector.minCompetitiveScore();
        if (newMin > minComp) {
          // First threshold, or one high enough to make another clause non-essential:
          // recompute windows and partition from the next document on.
          if (
            minComp === -Infinity ||
            (firstEssential < n && cannotCompete(prefixBound[firstEssential], newMin))
          ) {
            return d + 1;
          }
          minComp = newMin;
        }
      }
    }
  }
}
