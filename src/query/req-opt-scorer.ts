import { Scorer } from './scorer.js';

/**
 * Required clauses with optional ones (`must`/`filter` with `should`, minShouldMatch 0): the
 * documents of `required`; the optional scorer is advanced lazily to each of them and adds
 * its score where it matches.
 */
export class ReqOptScorer extends Scorer {
  private readonly req: Scorer;
  private readonly opt: Scorer;
  private readonly maxScoreValue: number;

  constructor(required: Scorer, optional: Scorer) {
    super();
    this.req = required;
    this.opt = optional;
    this.maxScoreValue = required.maxScore() + optional.maxScore();
  }

  docId(): number {
    return this.req.docId();
  }

  nextDoc(): number {
    return this.req.nextDoc();
  }

  advance(target: number): number {
    return this.req.advance(target);
  }

  score(): number {
    return this.scoreThroughScoreTo();
  }

  /** The required score, plus the optional one where it matches (see Scorer.scoreTo). */
  override scoreTo(out: Float64Array, at: number): void {
    const doc = this.req.docId();
    this.req.scoreTo(out, at);
    let o = this.opt.docId();
    if (o < doc) o = this.opt.advance(doc);
    if (o === doc) {
      const s = out[at]!;
      this.opt.scoreTo(out, at);
      out[at] = s + out[at]!;
    }
  }

  /**
   * The optional clause's bound is added only where it matches: it is advanced here, as the
   * score would advance it. (Its whole bound, added everywhere, let no document be counted
   * unscored: a word's bound plus coordBoost is above any document having only the other.)
   * Same operations in the same order as the score, with larger operands.
   */
  override boundHere(): number {
    const doc = this.req.docId();
    let o = this.opt.docId();
    if (o < doc) o = this.opt.advance(doc);
    return o === doc ? this.req.boundHere() + this.opt.boundHere() : this.req.boundHere();
  }

  cost(): number {
    return this.req.cost();
  }

  maxScore(): number {
    return this.maxScoreValue;
  }

  override advanceShallow(target: number): number {
    return Math.min(this.req.advanceShallow(target), this.opt.advanceShallow(target));
  }

  override getMaxScore(upTo: number): number {
    return this.req.getMaxScore(upTo) + this.opt.getMaxScore(upTo);
  }
}
