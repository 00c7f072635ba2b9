import { NO_MORE_DOCS, type BlockFreqScan, type PostingsIterator } from '../index/generation-view.js';
import { unpack, unpackOneOrZero } from '../index/generation/bit-packing.js';
import { freqRatioImpacts, type FreqRatioImpacts } from './freq-ratio-impacts.js';
import { packedMap } from './packed-map.js';

/**
 * Positions read in place (the on-disk iterator): `preparePositions()` gives the current
 * document's number of positions; position i is then
 * `unpackOneOrZero(packedData, packedAt, packedFirst + i, packedWidth)`,
 * ascending in i. The check reads these four once per document and unpacks in its own loop.
 */
export interface PackedPositions {
  preparePositions(): number;
  readonly packedData: DataView;
  readonly packedAt: number;
  readonly packedFirst: number;
  readonly packedWidth: number;
}

function hasPackedPositions(it: PostingsIterator): it is PostingsIterator & PackedPositions {
  return 'preparePositions' in it && 'packedData' in it;
}

function hasBlockFreqScan(it: PostingsIterator): it is PostingsIterator & BlockFreqScan {
  return (
    'nextDocInBlockWithFreq' in it &&
    'currentBlockLastDoc' in it &&
    'currentBlockMinLength' in it &&
    'currentBlockMaxFreqRatio' in it
  );
}

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
  /** The rarest term's iterator when it can scan its blocks by frequency (else null). */
  readonly leadScan: (PostingsIterator & BlockFreqScan) | null;
  /** For each phrase slot: which iterator, and its relative position. */
  private readonly slotIt: Int32Array;
  private readonly slotOffset: Int32Array;
  /** Phrase slots in the order their positions are checked: by their term's rank, rarest first. */
  private readonly slotOrder: Int32Array;
  /** The same iterators when all read positions in place (else null: through `positions()`). */
  private readonly packed: (PostingsIterator & PackedPositions)[] | null;
  /** Per distinct term, its positions in the current document once read. */
  private readonly termPositions: (Int32Array | null)[];
  /** Start positions still possible while a document is checked. */
  private starts = new Int32Array(16);
  private doc = -1;
  private phraseFreq = 0;
  private shallowMaxFreq = 0;
  private shallowMinLength = 0;
  /** A double from the start (Infinity: no window yet), as the ratios it takes are. */
  private shallowMaxRatio = Infinity;

  /**
   * @param uniquePostings postings (opened with positions) of each distinct term.
   * @param slotTerm for each phrase slot, the index of its term in `uniquePostings`.
   * @param offsets for each phrase slot, its relative position.
   */
  constructor(uniquePostings: PostingsIterator[], slotTerm: readonly number[], offsets: readonly number[]) {
    const order: number[] = [];
    for (let i = 0; i < uniquePostings.length; i++) order.push(i);
    order.sort((x, y) => uniquePostings[x].docFreq - uniquePostings[y].docFreq);
    const rank = new Int32Array(order.length);
    for (let r = 0; r < order.length; r++) rank[order[r]] = r;
    this.its = packedMap(order, (i) => uniquePostings[i]);
    this.slotIt = new Int32Array(slotTerm.length);
    this.slotOffset = new Int32Array(slotTerm.length);
    for (let j = 0; j < slotTerm.length; j++) {
      this.slotIt[j] = rank[slotTerm[j]];
      this.slotOffset[j] = offsets[j];
    }
    this.termPositions = packedMap(this.its, () => null);
    this.packed = this.its.every(hasPackedPositions)
      ? (this.its as (PostingsIterator & PackedPositions)[])
      : null;
    const slots: number[] = [];
    for (let j = 0; j < slotTerm.length; j++) slots.push(j);
    slots.sort((x, y) => this.slotIt[x] - this.slotIt[y] || x - y);
    this.slotOrder = new Int32Array(slots.length);
    for (let k = 0; k < slots.length; k++) this.slotOrder[k] = slots[k];
    this.ratioIts = packedMap(this.its, freqRatioImpacts);
    this.leadScan = hasBlockFreqScan(this.its[0]) ? this.its[0] : null;
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
   * Lead-only moves, for runners that dismiss documents before the conjunction (see
   * {@link PhraseScorer}): the rarest term's next document (>= target), whose frequency
   * ({@link leadFreq}) bounds the phrase's there; {@link candidateFromLead} then finds the
   * first candidate from it. The candidate stays unchanged until then.
   */
  nextLead(): number {
    return this.its[0].nextDoc();
  }

  /** See {@link nextLead}. */
  advanceLead(target: number): number {
    return this.its[0].advance(target);
  }

  /** The rarest term's frequency in its current document (see {@link nextLead}). */
  leadFreq(): number {
    return this.its[0].freq();
  }

  /** The first candidate >= the rarest term's current document. */
  candidateFromLead(): number {
    return (this.doc = this.conjoin(this.its[0].docId()));
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

  /**
   * Occurrences in the current document: the start positions the rarest term's slot allows,
   * filtered by each other slot in turn (rarer terms first). A term's positions are read only
   * when the starts left need them, so most documents without the phrase never read the
   * positions of its most common terms.
   */
  private countOccurrences(): number {
    if (this.packed !== null) return this.countPacked(this.packed);
    const order = this.slotOrder;
    const its = this.its;
    const terms = this.termPositions;
    for (let u = 0; u < terms.length; u++) terms[u] = null;
    const leadSlot = order[0];
    const leadTerm = this.slotIt[leadSlot];
    const lead = its[leadTerm].positions();
    terms[leadTerm] = lead;
    let n = lead.length;
    if (this.starts.length < n) this.starts = new Int32Array(Math.max(n, this.starts.length * 2));
    const starts = this.starts;
    const leadOffset = this.slotOffset[leadSlot];
    for (let p = 0; p < n; p++) starts[p] = lead[p] - leadOffset;
    for (let k = 1; k < order.length && n > 0; k++) {
      const slot = order[k];
      const term = this.slotIt[slot];
      // Once per distinct term and document: a repeated term shares its list.
      let positions = terms[term];
      if (positions === null) positions = terms[term] = its[term].positions();
      const offset = this.slotOffset[slot];
      let ptr = 0;
      let kept = 0;
      for (let i = 0; i < n; i++) {
        const want = starts[i] + offset;
        while (ptr < positions.length && positions[ptr] < want) ptr++;
        // Starts only increase, so an exhausted list means no later occurrence either.
        if (ptr === positions.length) break;
        if (positions[ptr] === want) starts[kept++] = starts[i];
      }
      n = kept;
    }
    return n;
  }

  /**
   * {@link countOccurrences} on positions read in place: the starts come from the rarest
   * term's positions; each other slot reads its term's positions only as far as the starts
   * left need (a common term has tens of positions in a document, of which a phrase of a
   * rare term tests one or two), and a term repeated in the phrase is simply read again.
   */
  private countPacked(its: (PostingsIterator & PackedPositions)[]): number {
    const order = this.slotOrder;
    const leadSlot = order[0]!;
    const lead = its[this.slotIt[leadSlot]!]!;
    let n = lead.preparePositions();
    if (this.starts.length < n) this.starts = new Int32Array(Math.max(n, this.starts.length * 2));
    const starts = this.starts;
    const leadOffset = this.slotOffset[leadSlot]!;
    // The lead's positions are all read: decoded in one pass, minus the slot's offset.
    unpack(lead.packedData, lead.packedAt, lead.packedFirst, n, lead.packedWidth, -leadOffset, starts);
    for (let k = 1; k < order.length && n > 0; k++) {
      const slot = order[k]!;
      const it = its[this.slotIt[slot]!]!;
      const offset = this.slotOffset[slot]!;
      const count = it.preparePositions();
      if (count === 0) return 0;
      const width = it.packedWidth;
      n =
        width > 0 && width < 32
          ? keepStartsStreamed(starts, n, offset, it.packedData, it.packedAt, it.packedFirst, count, width)
          : keepStarts(starts, n, offset, it.packedData, it.packedAt, it.packedFirst, count, width);
    }
    return n;
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

/**
 * Keeps, in place, the starts s of starts[0 .. n) such that s + offset is one of the `count`
 * ascending positions packed at `width` bits from value `first` of the run at byte `at`;
 * returns how many are kept. The positions are read one by one, only as far as the starts
 * need them (starts ascend, so an exhausted list means no later occurrence either).
 */
function keepStarts(
  starts: Int32Array,
  n: number,
  offset: number,
  data: DataView,
  at: number,
  first: number,
  count: number,
  width: number,
): number {
  let ptr = 0;
  let value = unpackOneOrZero(data, at, first, width);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const want = starts[i]! + offset;
    while (value < want && ++ptr < count) value = unpackOneOrZero(data, at, first + ptr, width);
    if (ptr === count) break;
    if (value === want) starts[kept++] = starts[i]!;
  }
  return kept;
}

/**
 * {@link keepStarts} for widths 1..31, decoding the positions as a stream (as `unpack`
 * does: the current word's unread bits in `acc`, the next word loaded when they run out)
 * instead of locating each one from its index: a check reads most of a common term's
 * positions in a document, and this is most of a phrase's time.
 */
function keepStartsStreamed(
  starts: Int32Array,
  n: number,
  offset: number,
  data: DataView,
  at: number,
  first: number,
  count: number,
  width: number,
): number {
  const mask = (1 << width) - 1;
  const bit = first * width;
  let p = at + ((bit >>> 5) << 2);
  // The unread bits of the word at p, low first, and how many there are.
  let acc = data.getInt32(p, true) >>> (bit & 31);
  let left = 32 - (bit & 31);
  // Below every start wanted (a start may be negative: a word before the lead's slot), so the
  // loop reads the first position (ptr 0) like every next one.
  let value = -(2 ** 31);
  let ptr = -1;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const want = starts[i]! + offset;
    while (value < want) {
      if (++ptr === count) return kept;
      if (width <= left) {
        value = acc & mask;
        acc >>>= width;
        left -= width;
      } else {
        p += 4;
        const next = data.getInt32(p, true);
        value = (acc | (next << left)) & mask;
        acc = next >>> (width - left);
        left += 32 - width;
      }
    }
    if (value === want) starts[kept++] = starts[i]!;
  }
  return kept;
}
