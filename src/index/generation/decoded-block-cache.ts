/**
 * A stored block as a search reads it: decompressed, with where each record is inside it.
 */
export interface DecodedBlock {
  readonly bytes: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

/** Bytes of decoded blocks a thread keeps (see {@link DecodedBlockCache}). */
export const DECODED_BLOCK_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * Decoded stored blocks, most recently used kept, up to a number of bytes: one per thread,
 * shared by every generation reader of the thread. A result shown needs its record's whole
 * block decompressed (Brotli, about a tenth of a query's time through HTTP before this
 * cache), and the results people see are the same few thousand documents again and again
 * (the top of frequent queries), so those are decompressed once.
 *
 * Keys are a reader's number and a block's index; a reader drops its blocks when it closes.
 */
export class DecodedBlockCache {
  /** Map order is use order: the first entry is the least recently used. */
  private readonly entries = new Map<number, DecodedBlock>();
  private held = 0;

  constructor(private readonly maxBytes: number = DECODED_BLOCK_CACHE_BYTES) {}

  /** The block of reader `reader` at `index`, or undefined; a hit becomes the most recently used. */
  get(reader: number, index: number): DecodedBlock | undefined {
    const key = keyOf(reader, index);
    const block = this.entries.get(key);
    if (block !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, block);
    }
    return block;
  }

  /** Keeps a block, evicting the least recently used ones beyond the byte budget. */
  set(reader: number, index: number, block: DecodedBlock): void {
    const key = keyOf(reader, index);
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.held -= sizeOf(old);
      this.entries.delete(key);
    }
    const size = sizeOf(block);
    if (size > this.maxBytes) return;
    this.entries.set(key, block);
    this.held += size;
    for (const [oldest, value] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.held -= sizeOf(value);
    }
  }

  /** Drops every block of a reader (it closed: its numbers are never used again). */
  forget(reader: number): void {
    for (const [key, value] of this.entries) {
      if (Math.floor(key / READER_STRIDE) !== reader) continue;
      this.entries.delete(key);
      this.held -= sizeOf(value);
    }
  }

  /** Bytes held (tests, metrics). */
  get bytes(): number {
    return this.held;
  }
}

/** Block indexes stay below this (2^26 blocks of at least 16 KiB: a petabyte generation). */
const READER_STRIDE = 2 ** 26;

function keyOf(reader: number, index: number): number {
  return reader * READER_STRIDE + index;
}

function sizeOf(block: DecodedBlock): number {
  return block.bytes.byteLength + block.starts.byteLength + block.ends.byteLength;
}

/** This thread's cache (module state is per thread). */
export const decodedBlocks = new DecodedBlockCache();
