import { NO_MORE_DOCS } from '../index/generation-view.js';
import { Scorer } from './scorer.js';

/** Every docId of a generation, score 0 (killed ones are skipped by the collector, as everywhere). */
export class MatchAllScorer extends Scorer {
  private readonly maxDoc: number;
  private doc = -1;

  constructor(maxDoc: number) {
    super();
    this.maxDoc = maxDoc;
  }

  docId(): number {
    return this.doc;
  }

  nextDoc(): number {
    return this.advance(this.doc + 1);
  }

  advance(target: number): number {
    return (this.doc = target < this.maxDoc ? target : NO_MORE_DOCS);
  }

  score(): number {
    return 0;
  }

  cost(): number {
    return this.maxDoc;
  }

  maxScore(): number {
    return 0;
  }
}
