/**
 * Writes the files of one generation (list in `generation-files.ts`). This comment is the
 * specification of the postings format, version {@link POSTINGS_FORMAT_VERSION} of `.doc` and
 * `.pos`; the term dictionary `.tim` says where each term's postings start and how long they
 * are in both files.
 *
 * Notation: vint = variable-length integer (7 bits a byte, low first); f32 = little-endian
 * float32; packed(n, w) = n unsigned integers of w bits, low bits first in little-endian
 * 32-bit words, 4 * ceil(n * w / 32) bytes (see `bit-packing.ts`; w = 0 takes no bytes).
 *
 * `.doc`, one postings list of docFreq documents in B = ceil(docFreq / 128) blocks of 128
 * (the last one holds the rest, n = 1..128 documents):
 *
 *   maxFreq vint · minLength vint · maxRatio f32          whole list (block-max pruning)
 *   if B > 1, a skip table, per block:
 *     lastDocDelta vint    last doc of the block minus the previous block's (first: + 1)
 *     byteLength vint      of the block in `.doc`
 *     posByteLength vint   of the block's run in `.pos` (0 without positions)
 *     maxFreq vint · minLength vint · maxRatio f32      the block's bounds
 *   blocks, each:
 *     docWidth u8 · freqWidth u8 · posWidth u8 · 0 u8
 *     packed(n, docWidth)  doc-id gaps minus 1 (doc - previous doc - 1; the list starts at -1)
 *     packed(n, freqWidth) freq - 1 of each document
 *
 * maxRatio is the largest freq / max(1, field length), rounded up to a float32 (a bound).
 * The lengths are the field's token counts (1 for fields without lengths).
 *
 * `.pos`, one run per block of a list with positions, in block order: packed(Σ freq,
 * posWidth), the absolute positions of every document of the block in order, ascending
 * within a document. A document's positions start at the sum of the frequencies before it
 * in its block, so a reader finds them without decoding the others. A list's runs are
 * contiguous; the dictionary gives the first one's offset, the skip table the lengths.
 *
 * Widths are the bit widths of the block's largest value (0..32), so a block of consecutive
 * documents all with freq 1 (a title's term on every page of a document) is just its header.
 */
import { ByteWriter } from '../store/byte-writer.js';
import { bitWidth, packInto } from './bit-packing.js';
import { createCodecOutput, writeCodecFile, type CodecOutput } from '../store/codec-file.js';
import type { Directory } from '../store/directory.js';
import type { StoredBlock } from './stored-record-codec.js';
import {
  CODEC_GENERATION,
  CODEC_NORMS,
  CODEC_POSITIONS,
  CODEC_POSTINGS,
  CODEC_STORED,
  CODEC_TERMS,
  FORMAT_VERSION,
  generationFile,
  POSTINGS_BLOCK_SIZE,
  POSTINGS_FORMAT_VERSION,
  STORED_FORMAT_VERSION,
  TERMS_PER_BLOCK,
  type FieldMeta,
  type GenerationMeta,
} from './generation-files.js';

/** Postings of one term, as a writer consumes them. */
export interface PostingsData {
  count: number;
  docs: ArrayLike<number>;
  freqs: ArrayLike<number>;
  /** Concatenated positions of every document in order (sum of freqs long), or null. */
  positions: ArrayLike<number> | null;
}

export interface SourceField {
  name: string;
  positions: boolean;
  /** Token count per document; null for keyword fields. */
  lengths: Uint32Array | null;
  sumLength: number;
  docCount: number;
  /** Terms in ascending JS string order. */
  terms(): Iterable<[string, PostingsData]>;
}

/** What a new generation is written from: a flushed buffer or the inputs of a merge. */
export interface GenerationSource {
  docCount: number;
  /** Sorted by name. */
  fields: SourceField[];
  numbers: [string, Float64Array][];
  /**
   * Stored records, compressed into blocks, docId order: a buffer compresses them as documents
   * arrive, a merge copies or recompresses its inputs' blocks (see `StoredBlockWriter`).
   */
  storedBlocks(): Iterable<StoredBlock>;
}

/**
 * Writes generation `generation` from `source` into `dir` and returns its metadata. Files are
 * written but not synced: the caller syncs them before publishing a manifest that names them.
 */
export function writeGeneration(
  dir: Directory,
  generation: number,
  source: GenerationSource,
): GenerationMeta {
  const opened: CodecOutput[] = [];
  try {
    return writeGenerationFiles(dir, generation, source, opened);
  } catch (error) {
    // A failed or stopped write (a full disk, a merge asked to stop) must not keep its files open.
    for (const out of opened) {
      try {
        out.abandon();
      } catch {
        // The first error is the one to report.
      }
    }
    throw error;
  }
}

function writeGenerationFiles(
  dir: Directory,
  generation: number,
  source: GenerationSource,
  opened: CodecOutput[],
): GenerationMeta {
  const files: string[] = [];
  const open = (extension: 'tim' | 'doc' | 'pos' | 'nrm' | 'fdt', codec: string): CodecOutput => {
    const name = generationFile(generation, extension);
    files.push(name);
    const version =
      extension === 'doc' || extension === 'pos'
        ? POSTINGS_FORMAT_VERSION
        : extension === 'fdt'
          ? STORED_FORMAT_VERSION
          : FORMAT_VERSION;
    const out = createCodecOutput(dir, name, codec, version);
    opened.push(out);
    return out;
  };
  const fields: FieldMeta[] = [];
  const termsOut = open('tim', CODEC_TERMS);
  const docOut = open('doc', CODEC_POSTINGS);
  const posOut = open('pos', CODEC_POSITIONS);
  const postings = new PostingsWriter(docOut, posOut);
  const dictionary = new TermDictionaryWriter(termsOut);
  for (const field of source.fields) {
    dictionary.startField(field.name, field.positions);
    for (const [term, data] of field.terms()) {
      const entry = postings.write(data, field.lengths);
      dictionary.add(term, data.count, entry);
    }
    dictionary.finishField();
    fields.push({
      name: field.name,
      positions: field.positions,
      sumLength: field.sumLength,
      docCount: field.docCount,
      hasLengths: field.lengths !== null,
    });
  }
  dictionary.finish();
  postings.finish();
  termsOut.close();
  docOut.close();
  posOut.close();

  writeNorms(open('nrm', CODEC_NORMS), source);
  writeStored(open('fdt', CODEC_STORED), source);

  let sizeBytes = 0;
  for (const name of files) sizeBytes += dir.fileLength(name);
  const metaName = generationFile(generation, 'gen');
  files.push(metaName);
  const meta: GenerationMeta = {
    generation,
    docCount: source.docCount,
    fields,
    numericFields: source.numbers.map(([name]) => name),
    files,
    sizeBytes,
    createdAt: new Date().toISOString(),
  };
  writeCodecFile(
    dir,
    metaName,
    CODEC_GENERATION,
    FORMAT_VERSION,
    new TextEncoder().encode(JSON.stringify(meta)),
  );
  meta.sizeBytes += dir.fileLength(metaName);
  return meta;
}

interface PostingsEntry {
  docStart: number;
  docLength: number;
  posStart: number;
  posLength: number;
}

/** Bytes of `.doc` and `.pos` gathered before they are written to their files. */
const PENDING_BYTES = 1 << 16;

/**
 * Encodes postings lists into `.doc` and `.pos` (the format is specified at the top of this
 * file). Scratch arrays are reused from one term to the next.
 */
class PostingsWriter {
  /** `.doc` bytes not yet written out (see {@link PENDING_BYTES}). */
  private readonly docPending = new ByteWriter(2 * PENDING_BYTES);
  private readonly blockBuffer = new ByteWriter(1 << 12);
  private readonly skipBuffer = new ByteWriter(1 << 10);
  private readonly posBuffer = new ByteWriter(2 * PENDING_BYTES);
  private readonly deltas = new Uint32Array(POSTINGS_BLOCK_SIZE);
  private readonly freqsMinusOne = new Uint32Array(POSTINGS_BLOCK_SIZE);

  constructor(
    private readonly docOut: CodecOutput,
    private readonly posOut: CodecOutput,
  ) {}

  write(data: PostingsData, lengths: Uint32Array | null): PostingsEntry {
    const { count, docs, freqs, positions } = data;
    const docStart = this.docOut.position + this.docPending.length;
    const posStart = this.posOut.position + this.posBuffer.length;
    const blocks = Math.ceil(count / POSTINGS_BLOCK_SIZE);
    let maxFreq = 0;
    let minLength = 0x7fffffff;
    let maxRatio = 0;
    const skip = this.skipBuffer;
    const blockBytes = this.blockBuffer;
    const deltas = this.deltas;
    const freqsMinusOne = this.freqsMinusOne;
    skip.reset();
    blockBytes.reset();
    let positionAt = 0;
    let lastDoc = -1;
    for (let block = 0; block < blocks; block++) {
      const from = block * POSTINGS_BLOCK_SIZE;
      const to = Math.min(count, from + POSTINGS_BLOCK_SIZE);
      const blockStart = blockBytes.length;
      const posBlockStart = this.posBuffer.length;
      let blockMaxFreq = 0;
      let blockMinLength = 0x7fffffff;
      let blockMaxRatio = 0;
      const previousLastDoc = lastDoc;
      // OR of the values: its bit width is the width of the largest.
      let deltaBits = 0;
      let freqBits = 0;
      let positionBits = 0;
      let positionCount = 0;
      for (let i = from; i < to; i++) {
        const doc = docs[i]!;
        const freq = freqs[i]!;
        if (!(doc > lastDoc) || !(freq >= 1)) {
          throw new RangeError(
            `postings must have ascending docIds and freqs >= 1 (doc ${doc} after ${lastDoc}, freq ${freq})`,
          );
        }
        const delta = doc - lastDoc - 1;
        lastDoc = doc;
        deltas[i - from] = delta;
        deltaBits |= delta;
        freqsMinusOne[i - from] = freq - 1;
        freqBits |= freq - 1;
        if (freq > blockMaxFreq) blockMaxFreq = freq;
        const length = lengths === null ? 1 : lengths[doc]!;
        if (length < blockMinLength) blockMinLength = length;
        const ratio = freq / Math.max(1, length);
        if (ratio > blockMaxRatio) blockMaxRatio = ratio;
        if (positions !== null) {
          // The block's positions are packed from where they are (no copy): only their width is needed here.
          for (const end = positionAt + freq; positionAt < end; positionAt++)
            positionBits |= positions[positionAt]!;
          positionCount += freq;
        }
      }
      const n = to - from;
      const docWidth = bitWidth(deltaBits >>> 0);
      const freqWidth = bitWidth(freqBits >>> 0);
      const positionWidth = bitWidth(positionBits >>> 0);
      blockBytes.writeByte(docWidth);
      blockBytes.writeByte(freqWidth);
      blockBytes.writeByte(positionWidth);
      blockBytes.writeByte(0);
      packInto(blockBytes, deltas, 0, n, docWidth);
      packInto(blockBytes, freqsMinusOne, 0, n, freqWidth);
      if (positions !== null)
        packInto(this.posBuffer, positions, positionAt - positionCount, positionCount, positionWidth);
      if (blockMaxFreq > maxFreq) maxFreq = blockMaxFreq;
      if (blockMinLength < minLength) minLength = blockMinLength;
      if (blockMaxRatio > maxRatio) maxRatio = blockMaxRatio;
      skip.writeVInt(lastDoc - previousLastDoc);
      skip.writeVInt(blockBytes.length - blockStart);
      skip.writeVInt(this.posBuffer.length - posBlockStart);
      skip.writeVInt(blockMaxFreq);
      skip.writeVInt(blockMinLength);
      skip.writeFloat32(float32AtLeast(blockMaxRatio));
    }
    const doc = this.docPending;
    const docFrom = doc.length;
    doc.writeVInt(maxFreq);
    doc.writeVInt(minLength);
    doc.writeFloat32(float32AtLeast(maxRatio));
    if (blocks > 1) doc.writeBytes(skip.view0());
    doc.writeBytes(blockBytes.view0());
    const docLength = doc.length - docFrom;
    const posLength = this.posOut.position + this.posBuffer.length - posStart;
    // Written out in large pieces: most terms take a few bytes, and every write to a file
    // costs a checksum update and a call into the runtime.
    if (doc.length >= PENDING_BYTES) this.flushDocs();
    if (this.posBuffer.length >= PENDING_BYTES) this.flushPositions();
    return { docStart, docLength, posStart, posLength };
  }

  finish(): void {
    this.flushDocs();
    this.flushPositions();
  }

  private flushDocs(): void {
    if (this.docPending.length === 0) return;
    this.docOut.write(this.docPending.view0());
    this.docPending.reset();
  }

  private flushPositions(): void {
    if (this.posBuffer.length === 0) return;
    this.posOut.write(this.posBuffer.view0());
    this.posBuffer.reset();
  }
}

interface DictionaryField {
  name: string;
  positions: boolean;
  termCount: number;
  blocks: { firstTerm: string; offset: number; docBase: number; posBase: number }[];
}

/** Writes `.tim`: blocks of prefix-compressed terms, then the block index, then its offset. */
class TermDictionaryWriter {
  private readonly fields: DictionaryField[] = [];
  private current: DictionaryField | undefined;
  private readonly block = new ByteWriter(1 << 12);
  private blockTerms = 0;
  private previousTerm = '';
  private previousDocStart = 0;
  private previousPosStart = 0;

  constructor(private readonly out: CodecOutput) {}

  startField(name: string, positions: boolean): void {
    this.current = { name, positions, termCount: 0, blocks: [] };
    this.fields.push(this.current);
  }

  add(term: string, docFreq: number, entry: PostingsEntry): void {
    const field = this.current!;
    if (this.blockTerms === 0) {
      field.blocks.push({ firstTerm: term, offset: 0, docBase: entry.docStart, posBase: entry.posStart });
      this.previousTerm = '';
      this.previousDocStart = entry.docStart;
      this.previousPosStart = entry.posStart;
    }
    const prefix = commonPrefixLength(this.previousTerm, term);
    this.block.writeVInt(prefix);
    this.block.writeString(term.slice(prefix));
    this.block.writeVInt(docFreq);
    this.block.writeVInt(entry.docStart - this.previousDocStart);
    this.block.writeVInt(entry.docLength);
    this.block.writeVInt(entry.posStart - this.previousPosStart);
    this.block.writeVInt(entry.posLength);
    this.previousTerm = term;
    this.previousDocStart = entry.docStart;
    this.previousPosStart = entry.posStart;
    field.termCount++;
    if (++this.blockTerms === TERMS_PER_BLOCK) this.flushBlock();
  }

  finishField(): void {
    this.flushBlock();
  }

  finish(): void {
    const index = new ByteWriter(1 << 12);
    index.writeVInt(this.fields.length);
    for (const field of this.fields) {
      index.writeString(field.name);
      index.writeVInt(field.positions ? 1 : 0);
      index.writeVInt(field.termCount);
      index.writeVInt(field.blocks.length);
      for (const block of field.blocks) {
        index.writeString(block.firstTerm);
        index.writeVInt(block.offset);
        index.writeVInt(block.docBase);
        index.writeVInt(block.posBase);
      }
    }
    const indexOffset = this.out.position;
    index.writeFloat64(indexOffset);
    this.out.write(index.view0());
  }

  private flushBlock(): void {
    if (this.blockTerms === 0) return;
    const field = this.current!;
    const header = new ByteWriter(8);
    header.writeVInt(this.blockTerms);
    field.blocks[field.blocks.length - 1]!.offset = this.out.position;
    this.out.write(header.view0());
    this.out.write(this.block.view0());
    this.block.reset();
    this.blockTerms = 0;
  }
}

const F32 = new Float32Array(1);
const F32_BITS = new Uint32Array(F32.buffer);

/** The smallest float32 >= value (block-max ratios are upper bounds: they round up, never down). */
function float32AtLeast(value: number): number {
  F32[0] = value;
  if (F32[0]! < value) F32_BITS[0]!++;
  return F32[0]!;
}

function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // Never split a surrogate pair: the suffix is written as UTF-8 on its own.
  if (i > 0 && i < b.length && (b.charCodeAt(i) & 0xfc00) === 0xdc00) i--;
  return i;
}

/** `.nrm`: field count · (name · uint32 × docCount)* · numeric count · (name · float64 × docCount)*. */
function writeNorms(out: CodecOutput, source: GenerationSource): void {
  const withLengths = source.fields.filter((field) => field.lengths !== null);
  const header = new ByteWriter(256);
  header.writeVInt(source.docCount);
  header.writeVInt(withLengths.length);
  out.write(header.view0());
  for (const field of withLengths) {
    const name = new ByteWriter(64);
    name.writeString(field.name);
    out.write(name.view0());
    out.write(toLittleEndianBytes(field.lengths!));
  }
  const numbersHeader = new ByteWriter(64);
  numbersHeader.writeVInt(source.numbers.length);
  out.write(numbersHeader.view0());
  for (const [fieldName, values] of source.numbers) {
    const name = new ByteWriter(64);
    name.writeString(fieldName);
    out.write(name.view0());
    out.write(toLittleEndianBytes(values));
  }
  out.close();
}

function toLittleEndianBytes(values: Uint32Array | Float64Array): Uint8Array {
  // Every platform Node runs on here is little-endian; the reader checks the same way.
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

/** `.fdt` (version STORED_FORMAT_VERSION): compressed blocks of records; then block count · (firstDoc · offset · length)* · index offset. */
function writeStored(out: CodecOutput, source: GenerationSource): void {
  const index = new ByteWriter(1 << 12);
  let count = 0;
  const writeBlock = (block: StoredBlock) => {
    index.writeVInt(block.firstDoc);
    index.writeVInt(out.position);
    index.writeVInt(block.bytes.length);
    out.write(block.bytes);
    count++;
  };
  for (const block of source.storedBlocks()) writeBlock(block);
  const trailer = new ByteWriter(index.length + 16);
  const indexOffset = out.position;
  trailer.writeVInt(count);
  trailer.writeBytes(index.view0());
  trailer.writeFloat64(indexOffset);
  out.write(trailer.view0());
  out.close();
}
