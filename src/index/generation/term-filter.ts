/**
 * Bits per term of a {@link TermFilter}, before rounding the size up to a power of two (10 to
 * 20 bits a term): with {@link HASHES} bits set per term, about 1% of absent terms or fewer
 * pass. The RFC bench collection's 640,000 body terms in 11 generations take ~1 MB, held once
 * in shared memory for every search thread.
 */
const BITS_PER_TERM = 10;
const HASHES = 6;

/**
 * A Bloom filter of a field's terms, by their UTF-8 bytes ({@link termHash}): whether a term
 * may be in the field's dictionary, answered without reading it. "Did you mean" looks up ~500
 * edits of a word in every generation, and all but a few are no word at all: the filter turns
 * almost every lookup away before the dictionary's blocks are decoded. A term it lets pass is
 * looked up as before, so answers are the dictionary's own.
 */
export class TermFilter {
  private readonly mask: number;

  /** `words`: the filter's bits, a power of two of them (from {@link TermFilter.sized}, possibly another thread's). */
  constructor(readonly words: Uint32Array) {
    this.mask = words.length * 32 - 1;
  }

  /** An empty filter for `termCount` terms, in a SharedArrayBuffer when `shared` (to hand to search threads). */
  static sized(termCount: number, shared: boolean): TermFilter {
    let bits = 64;
    while (bits < termCount * BITS_PER_TERM && bits < 2 ** 31) bits *= 2;
    const bytes = bits / 8;
    return new TermFilter(new Uint32Array(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes)));
  }

  /** Adds the term of {@link termHash} `hash`. */
  add(hash: number): void {
    const step = stepOf(hash);
    let h = hash;
    for (let i = 0; i < HASHES; i++) {
      const bit = h & this.mask;
      this.words[bit >>> 5]! |= 1 << (bit & 31);
      h = (h + step) | 0;
    }
  }

  /** False when no term of {@link termHash} `hash` was added; true when one may have been. */
  mayContain(hash: number): boolean {
    const step = stepOf(hash);
    const words = this.words;
    const mask = this.mask;
    let h = hash;
    for (let i = 0; i < HASHES; i++) {
      const bit = h & mask;
      if ((words[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
      h = (h + step) | 0;
    }
    return true;
  }
}

/** Hash of the UTF-8 bytes `bytes[start, end)` of a term: FNV-1a, then mixed (MurmurHash3's finalizer). */
export function termHash(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return mix(h);
}

/** The odd stride between a term's bits (double hashing), from its hash. */
function stepOf(hash: number): number {
  return mix(hash ^ 0x5bd1e995) | 1;
}

function mix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
