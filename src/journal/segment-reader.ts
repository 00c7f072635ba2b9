import type { JournalFile } from './journal-io.js';
import {
  MAX_PAYLOAD_BYTES,
  RECORD_HEADER_BYTES,
  SEGMENT_HEADER_BYTES,
  decodeSegmentHeader,
  readU64,
  recordCrc,
  type DecodedSegmentHeader,
} from './segment-format.js';

/** Read-ahead size: one positional read serves hundreds of small records. */
const CHUNK_BYTES = 1024 * 1024;

/** Where a scan of records stopped, and why. */
export interface ScanResult {
  /** Byte offset just after the last valid record read. */
  endOffset: number;
  /** Sequence number of the last valid record read (firstSeq - 1 when none). */
  lastSeq: number;
  /** The first record that does not parse, when the scan did not reach the end cleanly. */
  bad?: { offset: number; problem: string };
}

/**
 * Sequential reader of one segment file through a read-ahead buffer. It knows the record
 * framing and checksums, nothing about which damage is acceptable: the caller decides
 * whether a bad record is a torn tail or corruption.
 */
export class SegmentReader {
  private buffer = Buffer.alloc(0);
  private bufferStart = 0;
  private bufferLength = 0;

  constructor(
    private readonly file: JournalFile,
    /** Bytes of the file that may be read. */
    readonly size: number,
  ) {}

  /** Reads and checks the segment header. */
  async readHeader(): Promise<DecodedSegmentHeader> {
    const bytes = await this.bytesAt(0, SEGMENT_HEADER_BYTES);
    if (bytes === undefined) return { ok: false, problem: 'file is shorter than a segment header' };
    return decodeSegmentHeader(bytes);
  }

  /**
   * Reads records from `offset`, which must carry `expectedSeq`, until the end of the file,
   * the first bad record, or the record `stopAfterSeq`. `onRecord` gets a copy of each payload.
   */
  async scan(
    offset: number,
    expectedSeq: number,
    stopAfterSeq: number,
    onRecord?: (seq: number, payload: Uint8Array) => void,
  ): Promise<ScanResult> {
    let position = offset;
    let seq = expectedSeq;
    while (position < this.size && seq <= stopAfterSeq) {
      const framing = await this.bytesAt(position, RECORD_HEADER_BYTES);
      if (framing === undefined) return this.stopped(position, seq, 'record header cut short');
      const length = framing.readUInt32LE(0);
      const recordSeq = readU64(framing, 4);
      const crc = framing.readUInt32LE(12);
      if (recordSeq !== seq)
        return this.stopped(position, seq, `expected sequence number ${seq}, found ${recordSeq}`);
      if (length > MAX_PAYLOAD_BYTES || position + RECORD_HEADER_BYTES + length > this.size) {
        return this.stopped(position, seq, 'record runs past the end of the file');
      }
      // The framing view is invalidated by the next read: copy what the checksum needs.
      const framingCopy = Buffer.from(framing.subarray(0, 12));
      const payload = await this.bytesAt(position + RECORD_HEADER_BYTES, length);
      if (payload === undefined) return this.stopped(position, seq, 'record cut short');
      if (recordCrc(framingCopy, payload) !== crc)
        return this.stopped(position, seq, 'record checksum mismatch');
      onRecord?.(seq, new Uint8Array(payload));
      position += RECORD_HEADER_BYTES + length;
      seq++;
    }
    return { endOffset: position, lastSeq: seq - 1 };
  }

  /**
   * Looks for any valid record that starts after `from` (a bad record) and continues the
   * sequence after `lastGoodSeq`. Finding one means the damage is in the middle of the log,
   * not a torn tail. Reads the rest of the file at once: this runs only on a damaged tail.
   */
  async findValidRecordAfter(from: number, lastGoodSeq: number): Promise<number | undefined> {
    const rest = await this.bytesAt(from, this.size - from);
    if (rest === undefined) return undefined;
    const tail = Buffer.from(rest);
    // Every record takes at least RECORD_HEADER_BYTES, which bounds the plausible seqs.
    const maxSeq = lastGoodSeq + Math.ceil(tail.length / RECORD_HEADER_BYTES) + 1;
    for (let at = 1; at + RECORD_HEADER_BYTES <= tail.length; at++) {
      const seq = readU64(tail, at + 4);
      if (seq <= lastGoodSeq || seq > maxSeq) continue;
      const length = tail.readUInt32LE(at);
      if (at + RECORD_HEADER_BYTES + length > tail.length) continue;
      const payload = tail.subarray(at + RECORD_HEADER_BYTES, at + RECORD_HEADER_BYTES + length);
      if (recordCrc(tail.subarray(at, at + 12), payload) === tail.readUInt32LE(at + 12)) return from + at;
    }
    return undefined;
  }

  private stopped(offset: number, seq: number, problem: string): ScanResult {
    return { endOffset: offset, lastSeq: seq - 1, bad: { offset, problem } };
  }

  /** A view of `length` bytes at `position`, valid until the next call; undefined past the end. */
  private async bytesAt(position: number, length: number): Promise<Buffer | undefined> {
    if (position + length > this.size) return undefined;
    const start = position - this.bufferStart;
    if (start >= 0 && start + length <= this.bufferLength) return this.buffer.subarray(start, start + length);
    const want = Math.max(length, Math.min(CHUNK_BYTES, this.size - position));
    if (want > this.buffer.length) this.buffer = Buffer.allocUnsafe(want);
    let done = 0;
    while (done < want) {
      const read = await this.file.read(this.buffer, done, want - done, position + done);
      if (read === 0) {
        // The file shrank under us; nothing the journal does shrinks a file being read.
        this.bufferLength = 0;
        return undefined;
      }
      done += read;
    }
    this.bufferStart = position;
    this.bufferLength = want;
    return this.buffer.subarray(0, length);
  }
}
