import { NO_MORE_DOCS } from '../index/generation-view.js';
import { Scorer } from './scorer.js';

/**
 * Documents whose numeric value lies in [min, max] (documents without a value never match:
 * NaN fails both comparisons). A filter: score 0. It scans the value column, so its cost is
 * the generation size and a conjunction lets any term clause lead it; over a whole query the
 * scan is at most one pass because positions only move forward.
 */
export class RangeScorer extends Scorer {
  private readonly values: Float64Array;
  private readonly min: number;
  private readonly max: number;
  private doc = -1;

  constructor(values: Float64Array, min: number, max: number) {
    super();
    this.values = values;
    this.min = min;
    this.max = max;
  }

  docId(): number {
    return this.doc;
  }

  nextDoc(): number {
    return this.advance(this.doc + 1);
  }

  advance(target: number): number {
    const v = this.values;
    const n = v.length;
    let d = target;
    while (d < n && !(v[d] >= this.min && v[d] <= this.max)) d++;
    return (this.doc = d < n ? d : NO_MORE_DOCS);
  }

  score(): number {
    return 0;
  }

  cost(): number {
    return this.values.length;
  }

  maxScore(): number {
    return 0;
  }
}
