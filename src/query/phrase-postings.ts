import { NO_MORE_DOCS, type PostingsIterator } from '../index/generation-view.js';
import { freqRatioImpacts, type FreqRatioImpacts } from './freq-ratio-impacts.js';

const NO_POSITIONS = new Int32Array(0);

/**
 * The documents of one field where a phrase occurs, with `freq()` = the number of its
 * occurrences, shaped like a postings list so that {@link Bm25fScorer} scores a phrase as a
 * pseudo-term. A conjunction of the terms' postings, then a positions check.
 *
 * An occurrence is a start position P such that every phrase term i is at P + offsets[i]
 * (offsets are the phrase's relative positions, so a removed stop word keeps its gap).
 */
export class PhrasePostings implements PostingsIterator, FreqRatioImpacts {
  readonly docFreq: number;
  readonly maxFreq: number;
  readonly minLength: number;
  readonly maxFreqRatio: number;
  /** One iterator per distinct term, rarest first (it leads the conjunction). */
  private readonly its: PostingsIterator[];
  private readonly ratioIts: ((PostingsIterator & FreqRatioImpacts) | null)[];
  /** For each phrase slot: which iterator, and its relative position. */
  private readonly slotIt: Int32Array;
  private readonly slotOffset: Int32Array;
  private readonly termPositions: Int32Array[];
  private readonly slotPositions: Int32Array[];
  private readonly pointers: Int32Array;
  private doc = -1;
  private phraseFreq = 0;
  private shallowMaxFreq = 0;
  private shallowMinLength = 0;
  private shallowMaxRatio = 0;

  /**
   * @param uniquePostings postings (opened with positions) of each distinct term.
   * @param slotTerm for each phrase slot, the index of its term in `uniquePostings`.
   * @param offsets for each phrase slot, its relative position.
   */
  constructor(uniquePostings: PostingsIterator[], slotTerm: readonly number[], offsets: readonly number[]) {
    const order = uniquePostings
      .map((_, i) => i)
      .sort((x, y) => uniquePostings[x].docFreq - uniquePostings[y].docFreq);
    const rank = new Int32Array(order.length);
    order.forEach((orig, r) => (rank[orig] = r));
    this.its = order.map((i) => uniquePostings[i]);
    this.slotIt = new Int32Array(slotTerm.length);
    this.slotOffset = new Int32Array(slotTerm.length);
    for (let j = 0; j < slotTerm.length; j++) {
      this.slotIt[j] = rank[slotTerm[j]];
      this.slotOffset[j] = offsets[j];
    }
    this.termPositions = this.its.map(() => NO_POSITIONS);
    this.slotPositions = slotTerm.map(() => NO_POSITIONS);
    this.pointers = new Int32Array(slotTerm.length);
    this.ratioIts = this.its.map(freqRatioImpacts);
    // A phrase occurrence needs an occurrence of every term: its count is at most the
    // smallest tf (so its density at most the smallest density), and its document's length
    // is at least every term list's minimum.
    let maxFreq = Infinity;
    let minLength = 0;
    let maxRatio = Infinity;
    for (let i = 0; i < this.its.length; i++) {
      const it = this.its[i];
      maxFreq = Math.min(maxFreq, it.maxFreq);
      minLength = Math.max(minLength, it.minLength);
      maxRatio = Math.min(maxRatio, this.ratioIts[i]?.maxFreqRatio ?? Infinity);
    }
    this.maxFreq = maxFreq;
    this.minLength = minLength;
    this.maxFreqRatio = maxRatio;
    this.docFreq = this.its[0].docFreq;
  }

  docId(): number {
    return this.doc;
  }

  nextDoc(): number {
    return this.doNext(this.its[0].nextDoc());
  }

  advance(target: number): number {
    return this.doNext(this.its[0].advance(target));
  }

  /**
   * Two-phase iteration (see {@link PhraseScorer}): the next document holding every term,
   * the phrase not checked yet. Until {@link verify}, `freq()` is undefined and
   * {@link freqBound} bounds it.
   */
  nextCandidate(): number {
    return (this.doc = this.conjoin(this.its[0].nextDoc()));
  }

  /** Like {@link nextCandidate}, for the first candidate >= target. */
  advanceCandidate(target: number): number {
    return (this.doc = this.conjoin(this.its[0].advance(target)));
  }

  /**
   * An upper bound of the phrase's frequency in the current candidate: an occurrence takes
   * one position of every term, so there are at most as many as the rarest term has.
   */
  freqBound(): number {
    let bound = this.its[0].freq();
    for (let i = 1; i < this.its.length; i++) {
      const f = this.its[i].freq();
      if (f < bound) bound = f;
    }
    return bound;
  }

  /** Checks the positions of the current candidate: its phrase frequency (0: no occurrence). */
  verify(): number {
    return (this.phraseFreq = this.countOccurrences());
  }

  /** The first document >= candidate (the lead's current one) where every term occurs. */
  private conjoin(candidate: number): number {
    const its = this.its;
    const lead = its[0];
    let doc = candidate;
    outer: while (doc !== NO_MORE_DOCS) {
      for (let i = 1; i < its.length; i++) {
        let d = its[i].docId();
        if (d < doc) d = its[i].advance(doc);
        if (d > doc) {
          doc = lead.advance(d);
          continue outer;
        }
      }
      return doc;
    }
    return NO_MORE_DOCS;
  }

  private doNext(candidate: number): number {
    let doc = this.conjoin(candidate);
    while (doc !== NO_MORE_DOCS) {
      const pf = this.countOccurrences();
      if (pf > 0) {
        this.phraseFreq = pf;
        return (this.doc = doc);
      }
      doc = this.conjoin(this.its[0].nextDoc());
    }
    this.phraseFreq = 0;
    return (this.doc = NO_MORE_DOCS);
  }

  /** Occurrences in the current document: one merge pass over the positions of every slot. */
  private countOccurrences(): number {
    const m = this.slotIt.length;
    // Once per distinct term: a reader may decode positions as it goes (a second call in the
    // same document is not guaranteed to repeat them), and a repeated term shares its list.
    for (let u = 0; u < this.its.length; u++) this.termPositions[u] = this.its[u].positions();
    const positions = this.slotPositions;
    for (let j = 0; j < m; j++) {
      positions[j] = this.termPositions[this.slotIt[j]];
      this.pointers[j] = 0;
    }
    const first = positions[0];
    const off0 = this.slotOffset[0];
    let count = 0;
    for (let p = 0; p < first.length; p++) {
      const start = first[p] - off0;
      let all = true;
      for (let j = 1; j < m; j++) {
        const arr = positions[j];
        const want = start + this.slotOffset[j];
        let ptr = this.pointers[j];
        while (ptr < arr.length && arr[ptr] < want) ptr++;
        this.pointers[j] = ptr;
        // Starts only increase, so an exhausted slot means no later occurrence either.
        if (ptr === arr.length) return count;
        if (arr[ptr] !== want) {
          all = false;
          break;
        }
      }
      if (all) count++;
    }
    return count;
  }

  freq(): number {
    return this.phraseFreq;
  }

  positions(): Int32Array {
    throw new Error('phrase matches have no positions');
  }

  advanceShallow(target: number): number {
    // The window is the intersection of the terms' current blocks: inside it, each term's
    // block data bounds its tf and length, so their min / max bound the phrase's.
    let end = NO_MORE_DOCS;
    let maxFreq = Infinity;
    let minLength = 0;
    let maxRatio = Infinity;
    for (let i = 0; i < this.its.length; i++) {
      const it = this.its[i];
      const e = it.advanceShallow(target);
      if (e < end) end = e;
      if (e === NO_MORE_DOCS) {
        // One term has no document at or after target: neither has the phrase.
        this.shallowMaxFreq = 0;
        this.shallowMinLength = 0;
        this.shallowMaxRatio = 0;
        return NO_MORE_DOCS;
      }
      maxFreq = Math.min(maxFreq, it.blockMaxFreq());
      minLength = Math.max(minLength, it.blockMinLength());
      maxRatio = Math.min(maxRatio, this.ratioIts[i]?.blockMaxFreqRatio() ?? Infinity);
    }
    this.shallowMaxFreq = maxFreq;
    this.shallowMinLength = minLength;
    this.shallowMaxRatio = maxRatio;
    return end;
  }

  blockMaxFreq(): number {
    return this.shallowMaxFreq;
  }

  blockMinLength(): number {
    return this.shallowMinLength;
  }

  blockMaxFreqRatio(): number {
    return this.shallowMaxRatio;
  }
}
