import { NO_MORE_DOCS } from '../index/generation-view.js';
import { Scorer } from './scorer.js';

/**
 * The documents of `required` that `excluded` does not match (`mustNot`). Scores and bounds
 * are the required scorer's: exclusion only removes documents, so its bounds stay valid.
 */
export class ReqExclScorer extends Scorer {
  private readonly req: Scorer;
  private readonly excl: Scorer;
  private doc = -1;

  constructor(required: Scorer, excluded: Scorer) {
    super();
    this.req = required;
    this.excl = excluded;
  }

  docId(): number {
    return this.doc;
  }

  nextDoc(): number {
    return this.skipExcluded(this.req.nextDoc());
  }

  advance(target: number): number {
    return this.skipExcluded(this.req.advance(target));
  }

  private skipExcluded(candidate: number): number {
    let doc = candidate;
    while (doc !== NO_MORE_DOCS) {
      let e = this.excl.docId();
      if (e < doc) e = this.excl.advance(doc);
      if (e !== doc) break;
      doc = this.req.nextDoc();
    }
    return (this.doc = doc);
  }

  score(): number {
    return this.req.score();
  }

  override scoreTo(out: Float64Array, at: number): void {
    this.req.scoreTo(out, at);
  }

  override boundHere(): number {
    return this.req.boundHere();
  }

  cost(): number {
    return this.req.cost();
  }

  maxScore(): number {
    return this.req.maxScore();
  }

  override advanceShallow(target: number): number {
    return this.req.advanceShallow(target);
  }

  override getMaxScore(upTo: number): number {
    return this.req.getMaxScore(upTo);
  }

  override setMinCompetitiveScore(minScore: number): void {
    // The scores are the required scorer's own.
    this.req.setMinCompetitiveScore(minScore);
  }
}
