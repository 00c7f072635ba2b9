import { NO_MORE_DOCS } from '../index/generation-view.js';
import { Bm25fScorer, type FieldFrequencies } from './bm25f-scorer.js';
import type { PhrasePostings } from './phrase-postings.js';
import type { Saturation } from './similarity.js';

/**
 * A phrase scored as a BM25F pseudo-term, like {@link Bm25fScorer}, but in two phases: a
 * document where every term occurs (in some field) is a candidate, and its positions are
 * checked only when it can still enter the results. Reading positions is the expensive part
 * of a phrase; once the results are full (see `setMinCompetitiveScore`), most candidates of
 * a common phrase are dismissed on their term frequencies alone.
 *
 * Why the dismissal is safe: a phrase occurs in a field at most as often as its rarest term
 * ({@link PhrasePostings.freqBound}), and the score grows with every field's frequency, so
 * the score computed with those bounds (same operations in the same order, larger or extra
 * non-negative operands, see `cannotCompete`) is at least the real one.
 */
export class PhraseScorer extends Bm25fScorer {
  private readonly phrases: PhrasePostings[];
  /** Phrase frequency per field in the current document (0: not verified there). */
  private readonly phraseFreqs: Int32Array;
  private minCompetitive = -Infinity;

  /** `fields[i].postings` must be the {@link PhrasePostings} of field i. */
  constructor(fields: readonly FieldFrequencies[], sat: Saturation) {
    super(fields, sat);
    this.phrases = fields.map((f) => f.postings as PhrasePostings);
    this.phraseFreqs = new Int32Array(fields.length);
  }

  override setMinCompetitiveScore(minScore: number): void {
    this.minCompetitive = minScore;
  }

  override nextDoc(): number {
    const cur = this.doc;
    const docs = this.docs;
    for (let i = 0; i < this.n; i++) if (docs[i] === cur) docs[i] = this.phrases[i]!.nextCandidate();
    return this.settle();
  }

  override advance(target: number): number {
    const docs = this.docs;
    for (let i = 0; i < this.n; i++) if (docs[i]! < target) docs[i] = this.phrases[i]!.advanceCandidate(target);
    return this.settle();
  }

  /** From the fields' current candidates, the first document that is a competitive match. */
  private settle(): number {
    const docs = this.docs;
    const n = this.n;
    for (;;) {
      let doc = NO_MORE_DOCS;
      for (let i = 0; i < n; i++) if (docs[i]! < doc) doc = docs[i]!;
      if (doc === NO_MORE_DOCS) return (this.doc = NO_MORE_DOCS);
      if (this.minCompetitive === -Infinity || this.candidateBound(doc) > this.minCompetitive) {
        let matched = false;
        for (let i = 0; i < n; i++) {
          const pf = docs[i] === doc ? this.phrases[i]!.verify() : 0;
          this.phraseFreqs[i] = pf;
          if (pf > 0) matched = true;
        }
        if (matched) return (this.doc = doc);
      }
      for (let i = 0; i < n; i++) if (docs[i] === doc) docs[i] = this.phrases[i]!.nextCandidate();
    }
  }

  /** The score of the current candidate `doc` with every field's frequency bound. */
  private candidateBound(doc: number): number {
    const docs = this.docs;
    let s = 0;
    for (let i = 0; i < this.n; i++) {
      if (docs[i] === doc) {
        s += (this.weight[i]! * this.phrases[i]!.freqBound()) / (this.a[i]! + this.bOverAvg[i]! * this.lengths[i]![doc]!);
      }
    }
    return this.sat.score(s);
  }

  override score(): number {
    const doc = this.doc;
    const docs = this.docs;
    let s = 0;
    for (let i = 0; i < this.n; i++) {
      // Same sum as Bm25fScorer.score over the fields where the phrase occurs.
      if (docs[i] === doc && this.phraseFreqs[i]! > 0) {
        s += (this.weight[i]! * this.phraseFreqs[i]!) / (this.a[i]! + this.bOverAvg[i]! * this.lengths[i]![doc]!);
      }
    }
    return this.sat.score(s);
  }
}
