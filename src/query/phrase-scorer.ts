import { NO_MORE_DOCS } from '../index/generation-view.js';
import { Bm25fScorer, type FieldFrequencies } from './bm25f-scorer.js';
import { packedMap } from './packed-map.js';
import type { PhrasePostings } from './phrase-postings.js';
import type { Saturation } from './similarity.js';

/** Frequencies tested by PhraseScorer.leadFreqNeeded before it leaves the rest to the exact test. */
const LEAD_FREQ_SEARCH_LIMIT = 64;

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
 *
 * Once the results are full, most documents of the rarest term are dismissed even before the
 * conjunction (see `gate`): on the rarest term's frequency alone, which bounds the phrase's
 * too. That spares advancing the common terms of the phrase to every document of the rare
 * one, which is most of the work of a phrase such as "security considerations".
 */
export class PhraseScorer extends Bm25fScorer {
  private readonly phrases: PhrasePostings[];
  /** Phrase frequency per field in the current document (0: not verified there). */
  private readonly phraseFreqs: Int32Array;
  private minCompetitive = -Infinity;

  /** `fields[i].postings` must be the {@link PhrasePostings} of field i. */
  constructor(fields: readonly FieldFrequencies[], sat: Saturation) {
    super(fields, sat);
    this.phrases = packedMap(fields, (f) => f.postings as PhrasePostings);
    this.phraseFreqs = new Int32Array(fields.length);
  }

  override setMinCompetitiveScore(minScore: number): void {
    this.minCompetitive = minScore;
  }

  override nextDoc(): number {
    const cur = this.doc;
    const docs = this.docs;
    for (let i = 0; i < this.n; i++) if (docs[i] === cur) docs[i] = this.nextOf(i);
    return this.settle();
  }

  override advance(target: number): number {
    const docs = this.docs;
    for (let i = 0; i < this.n; i++) if (docs[i]! < target) docs[i] = this.advanceOf(i, target);
    return this.settle();
  }

  /** Field i's next candidate (dismissing, once pruning started, what cannot compete). */
  private nextOf(i: number): number {
    const phrase = this.phrases[i]!;
    return this.minCompetitive === -Infinity ? phrase.nextCandidate() : this.gate(i, phrase.nextLead());
  }

  /** Field i's first candidate >= target (dismissing, once pruning started, what cannot compete). */
  private advanceOf(i: number, target: number): number {
    const phrase = this.phrases[i]!;
    return this.minCompetitive === -Infinity
      ? phrase.advanceCandidate(target)
      : this.gate(i, phrase.advanceLead(target));
  }

  /**
   * From field i's rarest-term document `lead` on, the first candidate whose rarest term
   * does not rule it out: a document where the bound of {@link leadBound} cannot beat the
   * k-th score cannot enter the results whatever its phrase frequency, so the other terms
   * are not advanced to it.
   *
   * Within one block of the rarest term's postings, the frequency a document needs to pass
   * that test is at least {@link leadFreqNeeded} of the block: the iterator skips documents
   * below it on their frequency alone (an integer compare, no length or score), and only
   * the others get the exact test. A page that merely mentions a common phrase once is most
   * of its rarest term's documents ("security considerations": 61% of the 25,000 visited).
   */
  private gate(i: number, lead: number): number {
    const phrase = this.phrases[i]!;
    const minCompetitive = this.minCompetitive;
    const scan = phrase.leadScan;
    if (scan === null) {
      while (lead !== NO_MORE_DOCS && !(this.leadBound(i, lead) > minCompetitive)) lead = phrase.nextLead();
      return phrase.candidateFromLead();
    }
    let blockEnd = -1;
    let needed = 1;
    while (lead !== NO_MORE_DOCS) {
      if (lead > blockEnd) {
        blockEnd = scan.currentBlockLastDoc();
        needed = this.leadFreqNeeded(
          i,
          blockEnd,
          scan.currentBlockMinLength(),
          scan.currentBlockMaxFreqRatio(),
          minCompetitive,
        );
      }
      if (scan.freq() >= needed && this.leadBound(i, lead) > minCompetitive) break;
      lead = scan.nextDocInBlockWithFreq(needed);
    }
    return phrase.candidateFromLead();
  }

  /**
   * The smallest frequency of field i's rarest term that may pass {@link leadBound} in the
   * block of its postings that ends at `blockEnd`, whose documents are at least `minLength`
   * long with freq / length at most `maxRatio`; every smaller one was tested and cannot. The
   * test bounds field i with the block's data (as block-max pruning does) and counts every
   * other field whose current candidate is not past the block with its whole list's bound:
   * same operations in the same order as leadBound, with larger or extra non-negative
   * operands, so what fails here fails there for every document of the block. It stops at
   * LEAD_FREQ_SEARCH_LIMIT: documents with a higher frequency get the exact test.
   */
  private leadFreqNeeded(
    i: number,
    blockEnd: number,
    minLength: number,
    maxRatio: number,
    minCompetitive: number,
  ): number {
    const docs = this.docs;
    for (let freq = 1; freq < LEAD_FREQ_SEARCH_LIMIT; freq++) {
      let s = 0;
      for (let j = 0; j < this.n; j++) {
        if (j === i) s += this.fieldBound(i, freq, minLength, maxRatio);
        else if (docs[j]! <= blockEnd) s += this.globalBound[j]!;
      }
      if (this.sat.score(s) > minCompetitive) return freq;
    }
    return LEAD_FREQ_SEARCH_LIMIT;
  }

  /**
   * A bound of the score of document `doc` where field i's rarest term is: field i's phrase
   * frequency is at most that term's frequency; another field whose current candidate is
   * past `doc` has no occurrence there (0), one not past it is bounded by its whole list.
   * Same operations in the same field order as {@link score}, with larger or extra
   * non-negative operands, so the rounded bound is at least the rounded score. A document
   * dismissed here by one field has a real score at most the k-th one at that time (the
   * k-th score only grows), so it can never enter, even scored later from another field.
   */
  private leadBound(i: number, doc: number): number {
    const docs = this.docs;
    let s = 0;
    for (let j = 0; j < this.n; j++) {
      if (j === i) {
        const m = 3 * j;
        s +=
          (this.model[m]! * this.phrases[j]!.leadFreq()) /
          (this.model[m + 1]! + this.model[m + 2]! * this.lengths[j]![doc]!);
      } else if (docs[j]! <= doc) {
        s += this.globalBound[j]!;
      }
    }
    return this.sat.score(s);
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
      for (let i = 0; i < n; i++) if (docs[i] === doc) docs[i] = this.nextOf(i);
    }
  }

  /** The score of the current candidate `doc` with every field's frequency bound. */
  private candidateBound(doc: number): number {
    const docs = this.docs;
    let s = 0;
    for (let i = 0; i < this.n; i++) {
      if (docs[i] === doc) {
        const m = 3 * i;
        s +=
          (this.model[m]! * this.phrases[i]!.freqBound()) /
          (this.model[m + 1]! + this.model[m + 2]! * this.lengths[i]![doc]!);
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
        const m = 3 * i;
        s +=
          (this.model[m]! * this.phraseFreqs[i]!) /
          (this.model[m + 1]! + this.model[m + 2]! * this.lengths[i]![doc]!);
      }
    }
    return this.sat.score(s);
  }

  // See Scorer.scoreTo: this body, repeated per class, is what lets V8 inline score().
  override scoreTo(out: Float64Array, at: number): void {
    out[at] = this.score();
  }
}
