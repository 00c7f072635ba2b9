import { CorruptIndexError } from '../../errors.js';
import { ByteReader } from '../store/byte-reader.js';
import { ByteWriter } from '../store/byte-writer.js';
import { readCodecFile, writeCodecFile } from '../store/codec-file.js';
import type { Directory } from '../store/directory.js';
import { CODEC_KILLED, FORMAT_VERSION } from './generation-files.js';

/** A bitset over a generation's docIds: bit set = document killed. Immutable once published. */
export class KilledBits {
  readonly bits: Uint8Array;
  readonly count: number;

  constructor(
    readonly docCount: number,
    bits?: Uint8Array,
  ) {
    this.bits = bits ?? sharedBytes((docCount + 7) >>> 3);
    let count = 0;
    for (const byte of this.bits) count += POPCOUNT[byte]!;
    this.count = count;
  }

  has(docId: number): boolean {
    return (this.bits[docId >>> 3]! & (1 << (docId & 7))) !== 0;
  }

  /** A copy with more documents killed (the original stays as it is: searchers may hold it). */
  with(docIds: Iterable<number>): KilledBits {
    // A copy, even when the bits are a Buffer (whose slice() would share memory with a searcher's view).
    const bits = sharedBytes(this.bits.length);
    bits.set(this.bits);
    for (const docId of docIds) bits[docId >>> 3]! |= 1 << (docId & 7);
    return new KilledBits(this.docCount, bits);
  }

  write(dir: Directory, name: string): void {
    const out = new ByteWriter(this.bits.length + 8);
    out.writeVInt(this.docCount);
    out.writeBytes(this.bits);
    writeCodecFile(dir, name, CODEC_KILLED, FORMAT_VERSION, out.view0());
  }

  static read(dir: Directory, name: string, expectedDocCount: number): KilledBits {
    const { body } = readCodecFile(dir, name, CODEC_KILLED, FORMAT_VERSION);
    const input = new ByteReader(body);
    const docCount = input.readVInt();
    if (docCount !== expectedDocCount) {
      throw new CorruptIndexError(
        name,
        `killed bits for ${docCount} documents, generation has ${expectedDocCount}`,
      );
    }
    const bits = sharedBytes((docCount + 7) >>> 3);
    bits.set(input.readBytes(bits.length));
    return new KilledBits(docCount, bits);
  }
}

/** Killed bits live in shared memory: search threads read them without a copy. */
function sharedBytes(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}

const POPCOUNT = new Uint8Array(256);
for (let i = 0; i < 256; i++) POPCOUNT[i] = (i & 1) + POPCOUNT[i >>> 1]!;
