import { NO_MORE_DOCS, type FreqRatioImpacts, type PostingsIterator } from '../generation-view.js';
import type { IndexInput } from '../store/directory.js';
import { POSTINGS_BLOCK_SIZE } from './generation-files.js';

const EMPTY_POSITIONS = new Int32Array(0);

/**
 * The parsed header and skip table of one postings list. Immutable, so readers cache it and
 * share it between iterators: a common term's skip table is parsed once, not per query.
 */
export interface PostingsShape {
  readonly docFreq: number;
  readonly maxFreq: number;
  readonly minLength: number;
  readonly maxFreqRatio: number;
  readonly blockCount: number;
  readonly blockLastDoc: Int32Array;
  readonly blockByteStart: Int32Array;
  readonly blockPosStart: Float64Array;
  readonly blockPosLength: Int32Array;
  readonly blockMaxFreqs: Int32Array;
  readonly blockMinLengths: Int32Array;
  readonly blockMaxRatios: Float32Array;
}

/** Parses a postings list's header and skip table (layout in generation-files.ts). */
export function parsePostingsShape(bytes: Uint8Array, docFreq: number, posStart: number, posLength: number): PostingsShape {
  let at = 0;
  const read = (): number => {
    let b = bytes[at++]!;
    if (b < 0x80) return b;
    let value = b & 0x7f;
    let shift = 7;
    do {
      b = bytes[at++]!;
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b >= 0x80);
    return value;
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const readFloat32 = (): number => {
    const value = view.getFloat32(at, true);
    at += 4;
    return value;
  };
  const maxFreq = read();
  const minLength = read();
  const maxFreqRatio = readFloat32();
  const blocks = Math.ceil(docFreq / POSTINGS_BLOCK_SIZE);
  const shape: PostingsShape = {
    docFreq,
    maxFreq,
    minLength,
    maxFreqRatio,
    blockCount: blocks,
    blockLastDoc: new Int32Array(blocks),
    blockByteStart: new Int32Array(blocks + 1),
    blockPosStart: new Float64Array(blocks),
    blockPosLength: new Int32Array(blocks),
    blockMaxFreqs: new Int32Array(blocks),
    blockMinLengths: new Int32Array(blocks),
    blockMaxRatios: new Float32Array(blocks),
  };
  if (blocks === 1) {
    shape.blockMaxRatios[0] = maxFreqRatio;
    // One block: its recorded end is a bound, not a document.
    shape.blockLastDoc[0] = NO_MORE_DOCS - 1;
    shape.blockPosStart[0] = posStart;
    shape.blockPosLength[0] = posLength;
    shape.blockMaxFreqs[0] = maxFreq;
    shape.blockMinLengths[0] = minLength;
    shape.blockByteStart[0] = at;
    shape.blockByteStart[1] = bytes.length;
    return shape;
  }
  let lastDoc = -1;
  let posAt = posStart;
  const byteLength = new Int32Array(blocks);
  for (let b = 0; b < blocks; b++) {
    lastDoc += read();
    shape.blockLastDoc[b] = lastDoc;
    byteLength[b] = read();
    shape.blockPosStart[b] = posAt;
    const blockPos = read();
    shape.blockPosLength[b] = blockPos;
    posAt += blockPos;
    shape.blockMaxFreqs[b] = read();
    shape.blockMinLengths[b] = read();
    shape.blockMaxRatios[b] = readFloat32();
  }
  let start = at;
  for (let b = 0; b < blocks; b++) {
    shape.blockByteStart[b] = start;
    start += byteLength[b]!;
  }
  shape.blockByteStart[blocks] = start;
  return shape;
}

/**
 * Iterates one postings list of `.doc` (and `.pos` when positions are wanted). Blocks are
 * decoded on demand, so advancing past whole blocks (dynamic pruning) costs no decoding.
 */
export class BlockPostingsIterator implements PostingsIterator, FreqRatioImpacts {
  readonly docFreq: number;
  readonly maxFreq: number;
  readonly minLength: number;
  readonly maxFreqRatio: number;

  private readonly bytes: Uint8Array;
  private readonly blockCount: number;
  private readonly blockLastDoc: Int32Array;
  private readonly blockByteStart: Int32Array;
  private readonly blockPosStart: Float64Array;
  private readonly blockPosLength: Int32Array;
  private readonly blockMaxFreqs: Int32Array;
  private readonly blockMinLengths: Int32Array;
  private readonly blockMaxRatios: Float32Array;

  private readonly docs = new Int32Array(POSTINGS_BLOCK_SIZE);
  private readonly freqs = new Int32Array(POSTINGS_BLOCK_SIZE);
  private block = -1;
  private inBlock = 0;
  private index = -1;
  private current = -1;
  private shallowBlock = 0;

  private positionBytes: Uint8Array | null = null;
  private positionCursor = 0;
  private positionDoc = 0;
  private positionBuffer = new Int32Array(16);
  /** Index in the block whose positions are in positionBuffer (-1: none). */
  private positionsOfDoc = -1;

  constructor(
    bytes: Uint8Array,
    shape: PostingsShape,
    private readonly positionsInput: IndexInput | null,
  ) {
    this.bytes = bytes;
    this.docFreq = shape.docFreq;
    this.maxFreq = shape.maxFreq;
    this.minLength = shape.minLength;
    this.maxFreqRatio = shape.maxFreqRatio;
    this.blockCount = shape.blockCount;
    this.blockLastDoc = shape.blockLastDoc;
    this.blockByteStart = shape.blockByteStart;
    this.blockPosStart = shape.blockPosStart;
    this.blockPosLength = shape.blockPosLength;
    this.blockMaxFreqs = shape.blockMaxFreqs;
    this.blockMinLengths = shape.blockMinLengths;
    this.blockMaxRatios = shape.blockMaxRatios;
  }

  docId(): number {
    return this.current;
  }

  nextDoc(): number {
    if (++this.index < this.inBlock) return (this.current = this.docs[this.index]!);
    if (this.block + 1 >= this.blockCount) return (this.current = NO_MORE_DOCS);
    this.loadBlock(this.block + 1);
    this.index = 0;
    return (this.current = this.docs[0]!);
  }

  advance(target: number): number {
    if (this.block < 0 || target > this.blockLastDoc[this.block]!) {
      let b = this.block < 0 ? 0 : this.block + 1;
      while (b < this.blockCount && this.blockLastDoc[b]! < target) b++;
      if (b >= this.blockCount) {
        this.index = this.inBlock;
        this.block = this.blockCount;
        return (this.current = NO_MORE_DOCS);
      }
      this.loadBlock(b);
      this.index = -1;
    }
    const docs = this.docs;
    let i = this.index + 1;
    while (i < this.inBlock && docs[i]! < target) i++;
    if (i >= this.inBlock) {
      // Only possible in the last block (whose recorded last doc is a bound, not a doc).
      this.index = this.inBlock;
      return (this.current = NO_MORE_DOCS);
    }
    this.index = i;
    return (this.current = docs[i]!);
  }

  freq(): number {
    return this.freqs[this.index]!;
  }

  advanceShallow(target: number): number {
    let b = this.shallowBlock;
    while (b < this.blockCount && this.blockLastDoc[b]! < target) b++;
    this.shallowBlock = b;
    return b < this.blockCount ? this.blockLastDoc[b]! : NO_MORE_DOCS;
  }

  blockMaxFreq(): number {
    return this.shallowBlock < this.blockCount ? this.blockMaxFreqs[this.shallowBlock]! : 0;
  }

  blockMaxFreqRatio(): number {
    return this.shallowBlock < this.blockCount ? this.blockMaxRatios[this.shallowBlock]! : 0;
  }

  blockMinLength(): number {
    return this.shallowBlock < this.blockCount ? this.blockMinLengths[this.shallowBlock]! : 0x7fffffff;
  }

  positions(): Int32Array {
    const input = this.positionsInput;
    if (input === null) return EMPTY_POSITIONS;
    if (this.positionBytes === null) {
      this.positionBytes = input.read(this.blockPosStart[this.block]!, this.blockPosLength[this.block]!);
      this.positionCursor = 0;
      this.positionDoc = 0;
    }
    const bytes = this.positionBytes;
    if (this.positionDoc === this.index + 1 && this.positionsOfDoc === this.index) return this.positionBuffer.subarray(0, this.freqs[this.index]!);
    let at = this.positionCursor;
    // Skip the positions of the documents of this block that were passed over.
    for (; this.positionDoc < this.index; this.positionDoc++) {
      for (let n = this.freqs[this.positionDoc]!; n > 0; n--) while (bytes[at++]! >= 0x80);
    }
    const freq = this.freqs[this.index]!;
    if (this.positionBuffer.length < freq) this.positionBuffer = new Int32Array(Math.max(freq, this.positionBuffer.length * 2));
    const out = this.positionBuffer;
    let position = 0;
    for (let p = 0; p < freq; p++) {
      let b = bytes[at++]!;
      let delta = b & 0x7f;
      let shift = 7;
      while (b >= 0x80) {
        b = bytes[at++]!;
        delta |= (b & 0x7f) << shift;
        shift += 7;
      }
      position += delta;
      out[p] = position;
    }
    this.positionCursor = at;
    this.positionDoc = this.index + 1;
    this.positionsOfDoc = this.index;
    return out.subarray(0, freq);
  }

  private loadBlock(block: number): void {
    this.block = block;
    this.positionBytes = null;
    this.positionsOfDoc = -1;
    const bytes = this.bytes;
    let at = this.blockByteStart[block]!;
    const remaining = this.docFreq - block * POSTINGS_BLOCK_SIZE;
    const count = remaining < POSTINGS_BLOCK_SIZE ? remaining : POSTINGS_BLOCK_SIZE;
    let doc = block === 0 ? -1 : this.blockLastDoc[block - 1]!;
    const docs = this.docs;
    const freqs = this.freqs;
    for (let i = 0; i < count; i++) {
      let b = bytes[at++]!;
      let code = b & 0x7f;
      if (b >= 0x80) {
        let shift = 7;
        do {
          b = bytes[at++]!;
          code += (b & 0x7f) * 2 ** shift;
          shift += 7;
        } while (b >= 0x80);
      }
      if (code % 2 === 1) {
        doc += (code - 1) / 2;
        freqs[i] = 1;
      } else {
        doc += code / 2;
        b = bytes[at++]!;
        let freq = b & 0x7f;
        let shift = 7;
        while (b >= 0x80) {
          b = bytes[at++]!;
          freq |= (b & 0x7f) << shift;
          shift += 7;
        }
        freqs[i] = freq;
      }
      docs[i] = doc;
    }
    this.inBlock = count;
  }
}
