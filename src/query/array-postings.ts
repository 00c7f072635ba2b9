import { NO_MORE_DOCS, type PostingsIterator } from '../index/generation-view.js';
import type { FreqRatioImpacts } from './freq-ratio-impacts.js';

/** Positions of every document of a list: document i has `data[starts[i] .. starts[i+1]]`. */
export interface ArrayPositions {
  starts: Int32Array;
  data: Int32Array;
}

/**
 * A postings list held in typed arrays, with block-max data over blocks of `blockSize`
 * postings. Immutable: {@link ArrayPostingsList.iterator} opens cheap iterators over it. The
 * executor builds one per field for a prefix query (the union of its expansions); the
 * in-memory test generation keeps one per term.
 */
export class ArrayPostingsList {
  readonly docs: Int32Array;
  readonly freqs: Int32Array;
  readonly positions: ArrayPositions | null;
  readonly blockLast: Int32Array;
  readonly blockMaxFreqs: Int32Array;
  readonly blockMinLengths: Uint32Array;
  readonly blockMaxRatios: Float64Array;
  readonly maxFreq: number;
  readonly minLength: number;
  readonly maxFreqRatio: number;

  /**
   * @param docs ascending docIds; @param freqs term frequency of each (>= 1);
   * @param lengths the field's per-document lengths (block minimum lengths come from it; null: 0).
   */
  constructor(
    docs: Int32Array,
    freqs: Int32Array,
    lengths: Uint32Array | null,
    blockSize = 128,
    positions: ArrayPositions | null = null,
  ) {
    if (docs.length !== freqs.length) throw new RangeError('docs and freqs must have the same length');
    if (!(blockSize >= 1)) throw new RangeError('blockSize must be >= 1');
    this.docs = docs;
    this.freqs = freqs;
    this.positions = positions;
    const n = docs.length;
    const nBlocks = Math.ceil(n / blockSize);
    this.blockLast = new Int32Array(nBlocks);
    this.blockMaxFreqs = new Int32Array(nBlocks);
    this.blockMinLengths = new Uint32Array(nBlocks);
    this.blockMaxRatios = new Float64Array(nBlocks);
    let maxFreq = 0;
    let minLength = 0xffffffff;
    let maxRatio = 0;
    for (let b = 0; b < nBlocks; b++) {
      const from = b * blockSize;
      const to = Math.min(n, from + blockSize);
      let bf = 0;
      let bl = 0xffffffff;
      let br = 0;
      for (let i = from; i < to; i++) {
        if (freqs[i] > bf) bf = freqs[i];
        const len = lengths === null ? 0 : lengths[docs[i]];
        if (len < bl) bl = len;
        // Zero or unknown length: no density information.
        const r = len > 0 ? freqs[i] / len : Infinity;
        if (r > br) br = r;
      }
      this.blockLast[b] = docs[to - 1];
      this.blockMaxFreqs[b] = bf;
      this.blockMinLengths[b] = bl;
      this.blockMaxRatios[b] = br;
      if (br > maxRatio) maxRatio = br;
      if (bf > maxFreq) maxFreq = bf;
      if (bl < minLength) minLength = bl;
    }
    this.maxFreq = maxFreq;
    this.minLength = n === 0 ? 0 : minLength;
    this.maxFreqRatio = maxRatio;
  }

  /** A new iterator, positioned before the first document. */
  iterator(): ArrayPostings {
    return new ArrayPostings(this);
  }
}

/** An iterator over an {@link ArrayPostingsList}. */
export class ArrayPostings implements PostingsIterator, FreqRatioImpacts {
  readonly docFreq: number;
  readonly maxFreq: number;
  readonly minLength: number;
  readonly maxFreqRatio: number;
  private readonly docs: Int32Array;
  private readonly freqs: Int32Array;
  private readonly pos: ArrayPositions | null;
  private readonly blockLast: Int32Array;
  private readonly blockMaxFreqs: Int32Array;
  private readonly blockMinLengths: Uint32Array;
  private readonly blockMaxRatios: Float64Array;
  private idx = -1;
  private doc = -1;
  private shallowBlock = 0;

  constructor(list: ArrayPostingsList) {
    this.docs = list.docs;
    this.freqs = list.freqs;
    this.pos = list.positions;
    this.blockLast = list.blockLast;
    this.blockMaxFreqs = list.blockMaxFreqs;
    this.blockMinLengths = list.blockMinLengths;
    this.blockMaxRatios = list.blockMaxRatios;
    this.maxFreqRatio = list.maxFreqRatio;
    this.docFreq = list.docs.length;
    this.maxFreq = list.maxFreq;
    this.minLength = list.minLength;
  }

  docId(): number {
    return this.doc;
  }

  nextDoc(): number {
    const i = this.idx + 1;
    if (i >= this.docs.length) {
      this.idx = this.docs.length;
      return (this.doc = NO_MORE_DOCS);
    }
    this.idx = i;
    return (this.doc = this.docs[i]);
  }

  advance(target: number): number {
    const docs = this.docs;
    const n = docs.length;
    let lo = this.idx + 1;
    if (lo >= n) {
      this.idx = n;
      return (this.doc = NO_MORE_DOCS);
    }
    if (docs[lo] < target) {
      // Gallop: targets are usually near, sometimes far; both stay O(log distance).
      let step = 1;
      let hi = lo + 1;
      while (hi < n && docs[hi] < target) {
        lo = hi;
        step <<= 1;
        hi = lo + step;
      }
      if (hi >= n) {
        hi = n - 1;
        if (docs[hi] < target) {
          this.idx = n;
          return (this.doc = NO_MORE_DOCS);
        }
      }
      // docs[lo] < target <= docs[hi]
      while (hi - lo > 1) {
        const mid = (lo + hi) >>> 1;
        if (docs[mid] < target) lo = mid;
        else hi = mid;
      }
      lo = hi;
    }
    this.idx = lo;
    return (this.doc = docs[lo]);
  }

  freq(): number {
    return this.freqs[this.idx];
  }

  positions(): Int32Array {
    if (this.pos === null) throw new Error('postings were opened without positions');
    return this.pos.data.subarray(this.pos.starts[this.idx], this.pos.starts[this.idx + 1]);
  }

  advanceShallow(target: number): number {
    const last = this.blockLast;
    let b = this.shallowBlock;
    while (b < last.length && last[b] < target) b++;
    this.shallowBlock = b;
    return b < last.length ? last[b] : NO_MORE_DOCS;
  }

  blockMaxFreq(): number {
    return this.shallowBlock < this.blockLast.length ? this.blockMaxFreqs[this.shallowBlock] : 0;
  }

  blockMinLength(): number {
    return this.shallowBlock < this.blockLast.length ? this.blockMinLengths[this.shallowBlock] : 0;
  }

  blockMaxFreqRatio(): number {
    return this.shallowBlock < this.blockLast.length ? this.blockMaxRatios[this.shallowBlock] : 0;
  }
}
