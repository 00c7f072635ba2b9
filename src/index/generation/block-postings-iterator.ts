import {
  NO_MORE_DOCS,
  type BlockFreqScan,
  type FreqRatioImpacts,
  type PostingsIterator,
} from '../generation-view.js';
import type { IndexInput } from '../store/directory.js';
import { unpack, unpackDeltas, unpackOne, unpackOneOrZero } from './bit-packing.js';
import { POSTINGS_BLOCK_SIZE } from './generation-files.js';

const EMPTY_POSITIONS = new Int32Array(0);
const NO_VIEWS: Int32Array[] = [];
const EMPTY_VIEW = new DataView(new ArrayBuffer(0));

/**
 * Decode buffers are views carved out of shared slabs: a typed array of its own costs an
 * off-heap allocation (about a microsecond, and a query opens an iterator per term, field and
 * generation), a view of a slab a few tens of nanoseconds. A slab is never handed out twice:
 * the garbage collector frees it once no iterator holds a view of it.
 */
const SLAB_BUFFERS = 64;
/** A block's docIds and, after them, a NO_MORE_DOCS sentinel that ends every scan. */
const BUFFER_SIZE = POSTINGS_BLOCK_SIZE + 1;
let slab = new Int32Array(0);
let slabAt = 0;

function blockBuffer(): Int32Array {
  if (slabAt + BUFFER_SIZE > slab.length) {
    slab = new Int32Array(BUFFER_SIZE * SLAB_BUFFERS);
    slabAt = 0;
  }
  const buffer = slab.subarray(slabAt, slabAt + BUFFER_SIZE);
  slabAt += BUFFER_SIZE;
  return buffer;
}

/** Positions views are cached for frequencies up to this (higher ones are rare). */
const CACHED_VIEWS = 64;
/**
 * The parsed header and skip table of one postings list. Immutable, so readers cache it and
 * share it between iterators: a common term's skip table is parsed once, not per query.
 * Byte offsets (`blockByteStart`) are relative to the list's first byte.
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
  readonly blockMaxFreqs: Int32Array;
  readonly blockMinLengths: Int32Array;
  readonly blockMaxRatios: Float32Array;
}

/** Parses a postings list's header and skip table (format at the top of generation-writer.ts). */
export function parsePostingsShape(
  bytes: Uint8Array,
  at: number,
  length: number,
  docFreq: number,
  posStart: number,
): PostingsShape {
  const start = at;
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
    blockMaxFreqs: new Int32Array(blocks),
    blockMinLengths: new Int32Array(blocks),
    blockMaxRatios: new Float32Array(blocks),
  };
  if (blocks === 1) {
    shape.blockMaxRatios[0] = maxFreqRatio;
    // One block: its recorded end is a bound, not a document.
    shape.blockLastDoc[0] = NO_MORE_DOCS - 1;
    shape.blockPosStart[0] = posStart;
    shape.blockMaxFreqs[0] = maxFreq;
    shape.blockMinLengths[0] = minLength;
    shape.blockByteStart[0] = at - start;
    shape.blockByteStart[1] = length;
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
    posAt += read();
    shape.blockMaxFreqs[b] = read();
    shape.blockMinLengths[b] = read();
    shape.blockMaxRatios[b] = readFloat32();
  }
  let blockStart = at - start;
  for (let b = 0; b < blocks; b++) {
    shape.blockByteStart[b] = blockStart;
    blockStart += byteLength[b]!;
  }
  shape.blockByteStart[blocks] = blockStart;
  return shape;
}

/**
 * Where the iterator reads positions: the whole `.pos` file when the reader holds it in
 * memory (no read per block), else an input read block by block.
 */
export type PositionsSource = { view: DataView } | { input: IndexInput };

/**
 * Iterates one postings list of `.doc` (and `.pos` when positions are wanted). Decoding is
 * lazy, because conjunctions and phrases look at far more documents than they score:
 *
 * - a block's doc ids are decoded only when the iterator lands in it (advancing past whole
 *   blocks, by the skip table, costs nothing);
 * - a frequency is read only when asked for, straight from its bit-packed slot;
 * - positions are read only for the documents asked for: a document's positions start at
 *   the sum of the frequencies before it in the block, and are read from there.
 */
export class BlockPostingsIterator implements PostingsIterator, FreqRatioImpacts, BlockFreqScan {
  readonly docFreq: number;
  readonly maxFreq: number;
  readonly minLength: number;
  readonly maxFreqRatio: number;
  /** The list's parsed header and skip table (readers cache it). */
  readonly shape: PostingsShape;

  /** The bytes of `.doc` that hold the list (the whole file, or the list alone). */
  private readonly view: DataView;
  /** Where the list starts in `view`. */
  private readonly base: number;
  private readonly blockCount: number;
  private readonly blockLastDoc: Int32Array;
  private readonly blockByteStart: Int32Array;
  private readonly blockPosStart: Float64Array;
  private readonly blockMaxFreqs: Int32Array;
  private readonly blockMinLengths: Int32Array;
  private readonly blockMaxRatios: Float32Array;

  private readonly docs = blockBuffer();
  private block = -1;
  /** Last docId of the current block (a bound for the last block of a list); -1 before the first. */
  private blockEnd = -1;
  private inBlock = 0;
  private index = -1;
  private current = -1;
  private shallowBlock = 0;
  /** Bit widths of the current block's deltas, frequencies and positions. */
  private freqWidth = 0;
  private positionWidth = 0;
  /** Where the current block's frequencies start in `view`. */
  private freqAt = 0;

  private readonly positionsSource: PositionsSource | null;
  /**
   * Positions of the current block: the bytes and where the block's run starts in them (NaN:
   * not read yet). The offset comes from a Float64Array, so it is a double from the start: a
   * field that starts as a small integer changes the iterator's hidden class when the first
   * double is stored, and the optimised code that knew the old class is thrown away.
   */
  private positionData: DataView = EMPTY_VIEW;
  private positionAt = NaN;
  /** Running sums of the frequencies of block `freqsBlock` (lists read with positions). */
  private freqEnds: Int32Array = EMPTY_POSITIONS;
  private freqsBlock = -1;
  private positionBuffer: Int32Array = EMPTY_POSITIONS;
  /**
   * Views of positionBuffer by length (up to CACHED_VIEWS), made once: `subarray` per call
   * cost more than decoding the positions (documents of a list share a few frequencies).
   */
  private positionViews: Int32Array[] = NO_VIEWS;
  /** Index in the block's run of the first position of the document {@link preparePositions} prepared. */
  private runFirst = 0;
  /** Index in the block whose positions are in positionBuffer (-1: none). */
  private positionsOfDoc = -1;

  constructor(view: DataView, base: number, shape: PostingsShape, positions: PositionsSource | null) {
    this.view = view;
    this.base = base;
    this.shape = shape;
    this.docFreq = shape.docFreq;
    this.maxFreq = shape.maxFreq;
    this.minLength = shape.minLength;
    this.maxFreqRatio = shape.maxFreqRatio;
    this.blockCount = shape.blockCount;
    this.blockLastDoc = shape.blockLastDoc;
    this.blockByteStart = shape.blockByteStart;
    this.blockPosStart = shape.blockPosStart;
    this.blockMaxFreqs = shape.blockMaxFreqs;
    this.blockMinLengths = shape.blockMinLengths;
    this.blockMaxRatios = shape.blockMaxRatios;
    this.positionsSource = positions;
  }

  docId(): number {
    return this.current;
  }

  // nextDoc and advance are kept small so that callers inline them: the slow paths (a new
  // block, the end of the list) are methods of their own.

  nextDoc(): number {
    if (++this.index < this.inBlock) return (this.current = this.docs[this.index]!);
    return this.nextBlock();
  }

  advance(target: number): number {
    if (target > this.blockEnd) this.seekBlock(target);
    // The sentinel after the block's last document ends the scan.
    const docs = this.docs;
    let i = this.index + 1;
    while (docs[i]! < target) i++;
    const doc = docs[i]!;
    // Only in the last block (whose recorded end is a bound) or past the end of the list.
    if (doc === NO_MORE_DOCS) return this.exhaust();
    this.index = i;
    return (this.current = doc);
  }

  private nextBlock(): number {
    if (this.block + 1 >= this.blockCount) return this.exhaust();
    this.loadBlock(this.block + 1);
    this.index = 0;
    return (this.current = this.docs[0]!);
  }

  /** Loads the first block that may hold a document >= target (none: the list is exhausted). */
  private seekBlock(target: number): void {
    let b = this.block < 0 ? 0 : this.block + 1;
    while (b < this.blockCount && this.blockLastDoc[b]! < target) b++;
    if (b >= this.blockCount) {
      this.exhaust();
      return;
    }
    this.loadBlock(b);
    this.index = -1;
  }

  /** Past the last document: every later move answers NO_MORE_DOCS. */
  private exhaust(): number {
    this.block = this.blockCount;
    this.blockEnd = NO_MORE_DOCS;
    this.inBlock = 0;
    this.index = -1;
    this.docs[0] = NO_MORE_DOCS;
    return (this.current = NO_MORE_DOCS);
  }

  freq(): number {
    // Lists read with positions (phrases) ask for the freqs of most documents they stop at:
    // their block's freqs are decoded at once. Others read the one freq from its slot.
    if (this.positionsSource !== null && this.freqsBlock !== this.block) this.decodeFreqs();
    return this.freqInBlock(this.index);
  }

  /** The freq of document i of the current block (lists read with positions: decoded first). */
  private freqInBlock(i: number): number {
    if (this.positionsSource !== null) {
      const ends = this.freqEnds;
      return i === 0 ? ends[0]! : ends[i]! - ends[i - 1]!;
    }
    return this.freqWidth === 0 ? 1 : unpackOne(this.view, this.freqAt, i, this.freqWidth) + 1;
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

  currentBlockLastDoc(): number {
    return this.blockEnd;
  }

  currentBlockMinLength(): number {
    const block = this.block;
    return block >= 0 && block < this.blockCount ? this.blockMinLengths[block]! : 0;
  }

  currentBlockMaxFreqRatio(): number {
    const block = this.block;
    return block >= 0 && block < this.blockCount ? this.blockMaxRatios[block]! : Infinity;
  }

  nextDocInBlockWithFreq(minFreq: number): number {
    const n = this.inBlock;
    let i = this.index + 1;
    // Before the block's first document (or outside any block) it is an ordinary step.
    if (minFreq <= 1 || i === 0 || i >= n) return this.nextDoc();
    if (this.positionsSource !== null && this.freqsBlock !== this.block) this.decodeFreqs();
    while (i < n && this.freqInBlock(i) < minFreq) i++;
    if (i === n) return this.nextBlock();
    this.index = i;
    return (this.current = this.docs[i]!);
  }

  /**
   * Reading positions in place, for phrase checks: prepares the current document's positions
   * and returns how many there are; `packedData` and the rest then say where they are. A
   * phrase check reads the positions of a common term only up to the last start it tests,
   * and copies none.
   */
  preparePositions(): number {
    const source = this.positionsSource;
    if (source === null) return 0;
    if (Number.isNaN(this.positionAt)) this.readPositionBlock(source);
    const ends = this.freqEnds;
    const index = this.index;
    const first = index === 0 ? 0 : ends[index - 1]!;
    this.runFirst = first;
    return ends[index]! - first;
  }

  // Where the positions preparePositions prepared are: position i of the document is
  // unpackOneOrZero(packedData, packedAt, packedFirst + i, packedWidth).
  // Read once per document by the phrase check, which then unpacks in its own loop.

  get packedData(): DataView {
    return this.positionData;
  }

  get packedAt(): number {
    return this.positionAt;
  }

  get packedFirst(): number {
    return this.runFirst;
  }

  get packedWidth(): number {
    return this.positionWidth;
  }

  positions(): Int32Array {
    const source = this.positionsSource;
    if (source === null) return EMPTY_POSITIONS;
    const index = this.index;
    if (Number.isNaN(this.positionAt)) this.readPositionBlock(source);
    // The documents before this one in the block hold the positions before its own.
    const ends = this.freqEnds;
    const start = index === 0 ? 0 : ends[index - 1]!;
    const freq = ends[index]! - start;
    if (this.positionsOfDoc !== index) {
      if (this.positionBuffer.length < freq) {
        this.positionBuffer =
          freq <= BUFFER_SIZE
            ? blockBuffer()
            : new Int32Array(Math.max(freq, this.positionBuffer.length * 2));
        this.positionViews = new Array<Int32Array>(CACHED_VIEWS + 1).fill(EMPTY_POSITIONS);
      }
      const width = this.positionWidth;
      // One position (the usual case of mid-frequency terms) is one slot read.
      if (freq === 1)
        this.positionBuffer[0] = unpackOneOrZero(this.positionData, this.positionAt, start, width);
      else unpack(this.positionData, this.positionAt, start, freq, width, 0, this.positionBuffer);
      this.positionsOfDoc = index;
    }
    if (freq <= CACHED_VIEWS) {
      const view = this.positionViews[freq]!;
      if (view.length === freq) return view;
    }
    return this.positionView(freq);
  }

  private positionView(length: number): Int32Array {
    const view = this.positionBuffer.subarray(0, length);
    if (length <= CACHED_VIEWS) this.positionViews[length] = view;
    return view;
  }

  /**
   * Prepares reading positions in the current block: where its `.pos` run is, and the running
   * sums of its frequencies (a document's positions end where its sum does). Decoding the
   * whole run of frequencies once is cheaper than summing the ones skipped at every call.
   */
  private readPositionBlock(source: PositionsSource): void {
    if (this.freqsBlock !== this.block) this.decodeFreqs();
    const start = this.blockPosStart[this.block]!;
    if ('view' in source) {
      this.positionData = source.view;
      this.positionAt = start;
    } else {
      // Only the run of this block: its length follows from the frequencies and the width.
      const total = this.freqEnds[this.inBlock - 1]!;
      const bytes = source.input.read(start, ((total * this.positionWidth + 31) >>> 5) << 2);
      this.positionData = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      this.positionAt = 0;
    }
  }

  /** The running sums of the current block's freqs into freqEnds. */
  private decodeFreqs(): void {
    if (this.freqEnds.length === 0) this.freqEnds = blockBuffer();
    // freq - 1 is packed: decoded as gaps from 0, the values are the running sums.
    unpackDeltas(this.view, this.freqAt, this.inBlock, this.freqWidth, 0, this.freqEnds);
    this.freqsBlock = this.block;
  }

  private loadBlock(block: number): void {
    this.block = block;
    this.positionAt = NaN;
    this.positionsOfDoc = -1;
    const view = this.view;
    const at = this.base + this.blockByteStart[block]!;
    const remaining = this.docFreq - block * POSTINGS_BLOCK_SIZE;
    const count = remaining < POSTINGS_BLOCK_SIZE ? remaining : POSTINGS_BLOCK_SIZE;
    // The header: docWidth, freqWidth, posWidth, 0 (bytes, low first).
    const header = view.getUint32(at, true);
    const docWidth = header & 0xff;
    const freqWidth = (header >>> 8) & 0xff;
    this.freqWidth = freqWidth;
    this.positionWidth = (header >>> 16) & 0xff;
    const docsAt = at + 4;
    this.freqAt = docsAt + (((count * docWidth + 31) >>> 5) << 2);
    unpackDeltas(view, docsAt, count, docWidth, block === 0 ? -1 : this.blockLastDoc[block - 1]!, this.docs);
    this.docs[count] = NO_MORE_DOCS;
    this.inBlock = count;
    this.blockEnd = this.blockLastDoc[block]!;
  }
}
