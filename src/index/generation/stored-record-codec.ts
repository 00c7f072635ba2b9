import { brotliCompressSync, brotliDecompressSync, constants, inflateRawSync } from 'node:zlib';
import { ByteReader } from '../store/byte-reader.js';
import { ByteWriter } from '../store/byte-writer.js';
import type { StoredRecord, StoredValue } from '../document.js';
import { STORED_FORMAT_VERSION } from './generation-files.js';

/**
 * Stored records are compressed together until a block holds this many bytes. Every result
 * shown decompresses its record's whole block, and every block costs a compression call
 * with a fixed setup. Measured on the RFC corpus (a record read at random from the index; a
 * push of 20,000 pages through the server, alternated with the 32 KiB build): 32 KiB blocks
 * 130 µs a record; 16 KiB 93 µs, the same CPU per pushed page, 5% more bytes; 8 KiB 45 µs,
 * but 5-10% more CPU per pushed page (four times the calls) and 7% more bytes.
 */
export const STORED_BLOCK_BYTES = 16 * 1024;

/** A compressed block of stored records: `firstDoc` and the records after it, brotli of (length · record)*. */
export interface StoredBlock {
  firstDoc: number;
  bytes: Uint8Array;
}

/**
 * Gathers encoded stored records into blocks and compresses each block as it fills: the one
 * definition of `.fdt` blocks, used by the indexing buffer (which compresses as documents
 * arrive, so that it holds compressed text) and by the generation writer (merges).
 */
export class StoredBlockWriter {
  private readonly block = new ByteWriter(STORED_BLOCK_BYTES * 2);
  private firstDoc = 0;
  private docs = 0;

  /** `emit` receives each compressed block; its bytes may be a view into a larger buffer: copy them to keep them. */
  constructor(private readonly emit: (block: StoredBlock) => void) {}

  /** Appends the next document's record. */
  add(record: Uint8Array): void {
    this.block.writeVInt(record.length);
    this.block.writeBytes(record);
    this.docs++;
    if (this.block.length >= STORED_BLOCK_BYTES) this.finishBlock();
  }

  /** Bytes held uncompressed (the block being filled). */
  get pendingBytes(): number {
    return this.block.length;
  }

  /** Compresses the block being filled, if any; later records start a new block. */
  finishBlock(): void {
    if (this.docs === this.firstDoc) return;
    this.emit({ firstDoc: this.firstDoc, bytes: compressStoredBlock(this.block.view0()) });
    this.block.reset();
    this.firstDoc = this.docs;
  }
}

/**
 * Brotli at quality 1: compression runs on the indexing threads for every document, reading
 * back only for result pages, GETs and merges (one block per result). On RFC text it costs
 * less CPU than deflate level 1 (measured at 8 KiB blocks: 6.3 against 10.3 ms per MB of RFC records)
 * and decompresses about as fast (see {@link STORED_BLOCK_BYTES}).
 */
function compressStoredBlock(bytes: Uint8Array): Uint8Array {
  return brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 1,
      // A 64 KiB window covers a whole block (and a record's content and its text, which
      // repeat each other); the default 4 MiB one only makes each call set up more: 12% less
      // CPU to compress an 8 KiB block, 15% less to decompress it (measured), the same size.
      [constants.BROTLI_PARAM_LGWIN]: 16,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

/** Decompresses a block of a `.fdt` file of format `version` (see STORED_FORMAT_VERSION). */
export function decompressStoredBlock(bytes: Uint8Array, version: number): Buffer {
  return version >= 2 ? brotliDecompressSync(bytes) : inflateRawSync(bytes);
}

/** The records of compressed blocks, in order (the inverse of {@link StoredBlockWriter}). */
export function* recordsOfBlocks(blocks: Iterable<StoredBlock>): Generator<Uint8Array> {
  for (const block of blocks) {
    const bytes = decompressStoredBlock(block.bytes, STORED_FORMAT_VERSION);
    const reader = new ByteReader(bytes);
    while (reader.remaining > 0) {
      const length = reader.readVInt();
      yield bytes.subarray(reader.pos, reader.pos + length);
      reader.pos += length;
    }
  }
}

const TAG_STRING = 0;
const TAG_STRINGS = 1;
const TAG_BYTES = 2;
const TAG_NUMBER = 3;

/** Stored record layout: count · (name · tag · value)*. */
export function writeStoredRecord(out: ByteWriter, record: StoredRecord): void {
  const names = Object.keys(record);
  out.writeVInt(names.length);
  for (const name of names) {
    const value = record[name]!;
    out.writeString(name);
    if (typeof value === 'string') {
      out.writeByte(TAG_STRING);
      out.writeString(value);
    } else if (typeof value === 'number') {
      out.writeByte(TAG_NUMBER);
      out.writeFloat64(value);
    } else if (value instanceof Uint8Array) {
      out.writeByte(TAG_BYTES);
      out.writeVInt(value.length);
      out.writeBytes(value);
    } else {
      out.writeByte(TAG_STRINGS);
      out.writeVInt(value.length);
      for (const item of value) out.writeString(item);
    }
  }
}

/**
 * Decodes a stored record; with `fields`, only those fields (the others are skipped over,
 * never decoded: a result shown needs its title, text and a few more, not the original
 * content, which is most of a record's bytes). With `maxChars`, a string value (not a list)
 * of a field named there comes back as its first that many UTF-16 units, `value.slice(0, n)`,
 * decoded from the first of its bytes only: a summary reads the start of a text, which may be
 * a few times longer. The bytes not decoded are not checked to be UTF-8.
 */
export function readStoredRecord(
  input: ByteReader,
  fields?: ReadonlySet<string>,
  maxChars?: ReadonlyMap<string, number>,
): StoredRecord {
  const record: StoredRecord = {};
  const count = input.readVInt();
  for (let i = 0; i < count; i++) {
    const name = readText(input);
    const tag = input.readByte();
    if (fields !== undefined && !fields.has(name)) {
      skipValue(input, tag);
      continue;
    }
    let value: StoredValue;
    switch (tag) {
      case TAG_STRING: {
        const limit = maxChars?.get(name);
        value = limit === undefined ? readText(input) : readTextPrefix(input, limit);
        break;
      }
      case TAG_NUMBER:
        value = input.readFloat64();
        break;
      case TAG_BYTES:
        value = new Uint8Array(input.readBytes(input.readVInt())); // a copy, not a view of the block
        break;
      case TAG_STRINGS: {
        const n = input.readVInt();
        const items: string[] = [];
        for (let j = 0; j < n; j++) items.push(readText(input));
        value = items;
        break;
      }
      default:
        throw new RangeError(`unknown stored value tag ${tag}`);
    }
    record[name] = value;
  }
  return record;
}

function skipValue(input: ByteReader, tag: number): void {
  switch (tag) {
    case TAG_STRING:
    case TAG_BYTES:
      input.readBytes(input.readVInt());
      return;
    case TAG_NUMBER:
      input.readBytes(8);
      return;
    case TAG_STRINGS:
      for (let n = input.readVInt(); n > 0; n--) input.readBytes(input.readVInt());
      return;
    default:
      throw new RangeError(`unknown stored value tag ${tag}`);
  }
}

/** Longest string {@link readText} keeps in {@link recentTexts}; slots of it (a power of two). */
const RECENT_TEXT_MAX = 32;
const RECENT_TEXT_SLOTS = 1024;
/**
 * Short ASCII strings read lately, by a hash of their bytes: every record repeats the same
 * field names (and values such as a file type), which are then compared in place rather
 * than made into a new string each time.
 */
const recentTexts: string[] = new Array<string>(RECENT_TEXT_SLOTS).fill('');

/** `input.readString()`, giving short ASCII strings read before from {@link recentTexts}. */
function readText(input: ByteReader): string {
  const start = input.pos;
  const length = input.readVInt();
  if (length > RECENT_TEXT_MAX) {
    input.pos = start;
    return input.readString();
  }
  const bytes = input.bytes;
  const from = input.pos;
  const to = from + length;
  if (to > input.end) throw new RangeError('read past end');
  let hash = length;
  for (let i = from; i < to; i++) {
    const b = bytes[i]!;
    if (b > 0x7f) {
      input.pos = start;
      return input.readString();
    }
    hash = (Math.imul(hash, 31) + b) | 0;
  }
  input.pos = to;
  const slot = (hash ^ (hash >>> 10)) & (RECENT_TEXT_SLOTS - 1);
  const recent = recentTexts[slot]!;
  if (recent.length === length && sameAscii(recent, bytes, from)) return recent;
  const text = String.fromCharCode.apply(null, bytes.subarray(from, to) as unknown as number[]);
  recentTexts[slot] = text;
  return text;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `readText(input).slice(0, maxChars)`, decoding only as many of the string's bytes as its
 * first `maxChars` units can take: that many when they are ASCII (most text), else three per
 * unit (a character of the Basic Multilingual Plane is at most 3 bytes, a pair of surrogates
 * 4), plus a byte-order mark's 3 (the decoder drops a leading one, as it does reading all)
 * and one more for the last unit when it is the first of a pair (its character is decoded
 * whole). A prefix always ends before a character's first byte, never inside one.
 */
function readTextPrefix(input: ByteReader, maxChars: number): string {
  const start = input.pos;
  const length = input.readVInt();
  if (length <= maxChars) {
    // No more units than bytes: the whole string is wanted.
    input.pos = start;
    return readText(input);
  }
  const bytes = input.bytes;
  const from = input.pos;
  const to = from + length;
  if (to > input.end) throw new RangeError('read past end');
  input.pos = to;
  let text = utf8.decode(bytes.subarray(from, characterStart(bytes, from, from + maxChars, to)));
  if (text.length < maxChars) {
    const end = characterStart(bytes, from, Math.min(to, from + 3 * maxChars + 4), to);
    text = utf8.decode(bytes.subarray(from, end));
  }
  return text.length > maxChars ? text.slice(0, maxChars) : text;
}

/** `at`, or the start of the UTF-8 character `at` is inside of (the string is `bytes[from, to)`). */
function characterStart(bytes: Uint8Array, from: number, at: number, to: number): number {
  // Continuation bytes are 10xxxxxx.
  while (at > from && at < to && (bytes[at]! & 0xc0) === 0x80) at--;
  return at;
}

function sameAscii(text: string, bytes: Uint8Array, from: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== bytes[from + i]) return false;
  return true;
}
