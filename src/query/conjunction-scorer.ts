import { NO_MORE_DOCS } from '../index/generation-view.js';
import { Scorer } from './scorer.js';

/**
 * Documents matching every required clause (`must` and `filter`); the score is the sum of the
 * scoring ones (`must`). The cheapest clause leads and the others are advanced to its
 * candidates (leapfrog), so the work follows the rarest clause.
 */
export class ConjunctionScorer extends Scorer {
  private readonly all: Scorer[];
  private readonly scoring: Scorer[];
  private readonly maxScoreValue: number;
  private doc = -1;

  /** @param required every clause; @param scoring the subset whose scores add up (the others are filters). */
  constructor(required: readonly Scorer[], scoring: readonly Scorer[]) {
    super();
    this.all = [...required].sort((x, y) => x.cost() - y.cost());
    this.scoring = [...scoring];
    let max = 0;
    for (const s of this.scoring) max += s.maxScore();
    this.maxScoreValue = max;
  }

  docId(): number {
    return this.doc;
  }

  nextDoc(): number {
    return this.doNext(this.all[0].nextDoc());
  }

  advance(target: number): number {
    return this.doNext(this.all[0].advance(target));
  }

  private doNext(candidate: number): number {
    const all = this.all;
    const lead = all[0];
    let doc = candidate;
    outer: while (doc !== NO_MORE_DOCS) {
      for (let i = 1; i < all.length; i++) {
        let d = all[i].docId();
        if (d < doc) d = all[i].advance(doc);
        if (d > doc) {
          doc = lead.advance(d);
          continue outer;
        }
      }
      return (this.doc = doc);
    }
    return (this.doc = NO_MORE_DOCS);
  }

  score(): number {
    return this.scoreThroughScoreTo();
  }

  /** The sum of the scoring clauses' scores, in clause order (see Scorer.scoreTo). */
  override scoreTo(out: Float64Array, at: number): void {
    const scoring = this.scoring;
    let s = 0;
    for (let i = 0; i < scoring.length; i++) {
      scoring[i].scoreTo(out, at);
      s += out[at]!;
    }
    out[at] = s;
  }

  override boundHere(): number {
    let s = 0;
    for (const c of this.scoring) s += c.boundHere();
    return s;
  }

  cost(): number {
    return this.all[0].cost();
  }

  maxScore(): number {
    return this.maxScoreValue;
  }

  override advanceShallow(target: number): number {
    // Filters score 0 everywhere and need no window; a document matches every scoring clause,
    // so inside the intersection of their windows the sum of their bounds is a bound.
    let end = NO_MORE_DOCS;
    for (const c of this.scoring) {
      const e = c.advanceShallow(target);
      if (e < end) end = e;
    }
    return end;
  }

  override getMaxScore(upTo: number): number {
    let s = 0;
    for (const c of this.scoring) s += c.getMaxScore(upTo);
    return s;
  }
}
