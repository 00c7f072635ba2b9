import { NO_MORE_DOCS, type PostingsIterator } from '../index/generation-view.js';
import { freqRatioImpacts, type FreqRatioImpacts } from './freq-ratio-impacts.js';
import { packedMap } from './packed-map.js';
import { Scorer } from './scorer.js';
import type { FieldModel, Saturation } from './similarity.js';

/** The frequencies of one pseudo-term in one field of one generation. */
export interface FieldFrequencies {
  /** Term postings, phrase matches or a prefix union: anything with freq() and block-max data. */
  postings: PostingsIterator;
  model: FieldModel;
  /** The field's per-document lengths. */
  lengths: Uint32Array;
}

/** Widening of the frequency-ratio bound (see Bm25fScorer). */
const RATIO_BOUND_SLACK = 1 + 2 ** -40;

/**
 * Scores one BM25F pseudo-term (a term, a phrase or a prefix) over one or more fields: the
 * union of its per-field frequency lists, whose weighted normalised frequencies are summed
 * before saturation (see `similarity.ts`).
 *
 * Why the bounds are safe. Per field, `w * tf / (a + c * len)` (a = 1 - b >= 0, c = b / avgLen
 * >= 0) grows with tf and shrinks with len, so the largest tf and the smallest length of a
 * block (or of the whole list) bound it from above, even when no single document has both.
 * A document's S is a sum over the fields it has; the bound sums every field's bound, and
 * all terms are >= 0, so it is never smaller. Saturation `S -> scale * S / (k1 + S)` is
 * increasing (derivative scale * k1 / (k1 + S)^2 >= 0), so saturating the bound of S bounds
 * the score. (We must bound the sum then saturate: saturating per field and adding would
 * also be an upper bound, since saturation is concave with sat(0) = 0 and so
 * sat(a + b) <= sat(a) + sat(b), but a looser one.) Every step is a monotone rounded
 * operation done in the same order as for real scores, so this also holds in floating point.
 *
 * A second per-field bound caps frequency and shortness together: every document has
 * tf <= R * len, R being the block's largest tf / len ({@link FreqRatioImpacts}; 1 when the
 * postings do not say, since a term occurs at most once per token). So len >= max(L, tf / R)
 * with L the smallest length, and w * tf / (a + c * max(L, tf / R)) is non-decreasing in tf
 * (on each piece: tf / const, and tf / (a + c * tf / R) with derivative a / (...)^2 >= 0),
 * hence at most its value at the largest tf F. Numerator and denominator both grow with tf
 * there, so rounding could break the order by a few ulps: that bound is widened by 2^-40.
 * The smaller of the two bounds is used.
 */
export class Bm25fScorer extends Scorer {
  protected readonly n: number;
  // Per-field values in plain arrays, not typed ones: as fast to read, and far cheaper to
  // allocate (scorers are built per term, field and generation of every query: their arrays
  // were a quarter of a query's garbage, hence the model's constants in one array).
  protected readonly its: PostingsIterator[];
  private readonly ratioIts: ((PostingsIterator & FreqRatioImpacts) | null)[];
  protected readonly lengths: Uint32Array[];
  /**
   * Field i's model: `model[3 * i]` = weight, `model[3 * i + 1]` = a (1 - b),
   * `model[3 * i + 2]` = b / avgLen (see {@link FieldModel}).
   */
  protected readonly model: number[] = [];
  /** Current docId of each field's list (saves calls in the hot loop). */
  protected readonly docs: number[] = [];
  /** Per field, the bound of its weighted normalised frequency over the whole list. */
  protected readonly globalBound: number[] = [];
  private readonly blockBound: number[] = [];
  /** -1: no shallow window yet, getMaxScore falls back to the global bounds. */
  private readonly blockEnd: number[] = [];
  protected readonly sat: Saturation;
  private readonly costValue: number;
  private readonly maxScoreValue: number;
  protected doc = -1;

  constructor(fields: readonly FieldFrequencies[], sat: Saturation) {
    super();
    const n = fields.length;
    this.n = n;
    this.its = packedMap(fields, (f) => f.postings);
    this.ratioIts = packedMap(this.its, freqRatioImpacts);
    this.lengths = packedMap(fields, (f) => f.lengths);
    for (let i = 0; i < n; i++) {
      const model = fields[i]!.model;
      this.model.push(model.weight, model.a, model.bOverAvg);
      this.docs.push(-1);
      this.blockBound.push(0);
      this.blockEnd.push(-1);
    }
    this.sat = sat;
    let cost = 0;
    let s = 0;
    for (let i = 0; i < n; i++) {
      const it = this.its[i];
      cost += it.docFreq;
      const bound = this.fieldBound(i, it.maxFreq, it.minLength, this.ratioIts[i]?.maxFreqRatio ?? 1);
      this.globalBound.push(bound);
      s += bound;
    }
    this.costValue = cost;
    this.maxScoreValue = sat.score(s);
  }

  docId(): number {
    return this.doc;
  }

  nextDoc(): number {
    const cur = this.doc;
    const docs = this.docs;
    let min = NO_MORE_DOCS;
    for (let i = 0; i < this.n; i++) {
      let d = docs[i];
      if (d === cur) docs[i] = d = this.its[i].nextDoc();
      if (d < min) min = d;
    }
    return (this.doc = min);
  }

  advance(target: number): number {
    const docs = this.docs;
    let min = NO_MORE_DOCS;
    for (let i = 0; i < this.n; i++) {
      let d = docs[i];
      if (d < target) docs[i] = d = this.its[i].advance(target);
      if (d < min) min = d;
    }
    return (this.doc = min);
  }

  score(): number {
    const doc = this.doc;
    const docs = this.docs;
    const model = this.model;
    let s = 0;
    for (let i = 0; i < this.n; i++) {
      if (docs[i] === doc) {
        const m = 3 * i;
        s += (model[m] * this.its[i].freq()) / (model[m + 1] + model[m + 2] * this.lengths[i][doc]);
      }
    }
    return this.sat.score(s);
  }

  // See Scorer.scoreTo: this body, repeated per class, is what lets V8 inline score().
  override scoreTo(out: Float64Array, at: number): void {
    out[at] = this.score();
  }

  cost(): number {
    return this.costValue;
  }

  maxScore(): number {
    return this.maxScoreValue;
  }

  override advanceShallow(target: number): number {
    let end = NO_MORE_DOCS;
    for (let i = 0; i < this.n; i++) {
      const it = this.its[i];
      const e = it.advanceShallow(target);
      this.blockEnd[i] = e;
      // NO_MORE_DOCS: no block at or after target, so nothing to bound (0).
      this.blockBound[i] =
        e === NO_MORE_DOCS
          ? 0
          : this.fieldBound(
              i,
              it.blockMaxFreq(),
              it.blockMinLength(),
              this.ratioIts[i]?.blockMaxFreqRatio() ?? 1,
            );
      if (e < end) end = e;
    }
    return end;
  }

  /** Bound of field i's weighted normalised frequency (see the class comment). */
  protected fieldBound(i: number, maxFreq: number, minLength: number, maxRatio: number): number {
    const w = this.model[3 * i];
    const a = this.model[3 * i + 1];
    const c = this.model[3 * i + 2];
    // Same operations, same order as score(): exact in floating point.
    const plain = (w * maxFreq) / (a + c * minLength);
    // tf <= len holds anyway (the contract's lengths count tokens): never use a ratio above 1.
    const lengthFloor = maxFreq / (maxRatio < 1 ? maxRatio : 1);
    if (!(lengthFloor > minLength)) return plain;
    const dense = ((w * maxFreq) / (a + c * lengthFloor)) * RATIO_BOUND_SLACK;
    return dense < plain ? dense : plain;
  }

  override getMaxScore(upTo: number): number {
    let s = 0;
    const docs = this.docs;
    for (let i = 0; i < this.n; i++) {
      // A field whose next document is past the window has nothing left in it (lists only
      // move forward): "the" in titles spans windows of thousands of docIds but is in few
      // of their documents, and its bound would keep every window of the body competitive.
      if (docs[i] > upTo) continue;
      // A block covers [target, blockEnd]; past it only the whole-list bound is known.
      s += upTo <= this.blockEnd[i] ? this.blockBound[i] : this.globalBound[i];
    }
    return this.sat.score(s);
  }
}

/**
 * `scorer` itself when it is a plain {@link Bm25fScorer} (a term or a prefix; not a subclass
 * such as `PhraseScorer`), else null.
 *
 * Why runners want it: a runner serves every kind of query, so its calls `scorer.score()`
 * see many classes and V8 compiles them as calls it cannot inline. A score returned by such a
 * call is a double, which a call boundary boxes into a fresh heap number (a sixth of a
 * query's allocation, for term queries that score thousands of documents). Called through a
 * variable that only ever holds a plain Bm25fScorer, the same methods are inlined: no call,
 * no box. The methods are the same ones, so scores are the same doubles.
 */
export function plainTermScorer(scorer: Scorer): Bm25fScorer | null {
  return scorer.constructor === Bm25fScorer ? (scorer as Bm25fScorer) : null;
}
