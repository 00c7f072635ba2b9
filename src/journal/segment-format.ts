import { crc32 } from 'node:zlib';

/**
 * On-disk format of a journal segment, version 1. This comment is the specification.
 *
 * A journal folder holds segment files named `journal-<firstSeq>.log`, `firstSeq` in 20
 * decimal digits so that names sort like numbers. A segment holds records with contiguous
 * sequence numbers starting at `firstSeq`; the next segment starts where it ends. All
 * integers are little-endian.
 *
 * ```
 * segment header (24 bytes)
 *    0  magic         8 bytes  "PSJOURNL"
 *    8  version       u32      1
 *   12  firstSeq      u64      sequence number of the segment's first record
 *   20  headerCrc     u32      crc32 of bytes 0..20
 * record (16 bytes + payload), back to back until the end of the file
 *    0  length        u32      payload byte count
 *    4  seq           u64      sequence number
 *   12  crc           u32      crc32 of bytes 0..12 of this record, then of the payload
 *   16  payload       length bytes, opaque to the journal
 * ```
 *
 * Why these choices:
 * - The record crc also covers length and seq, so a flipped bit in the framing is caught
 *   by the checksum and not only by the seq-order check.
 * - A segment is born complete: its header is written to `<name>.tmp`, synced, then renamed,
 *   so a file with a segment name always has a valid header and a bad header is corruption,
 *   never a torn write.
 * - Records are only ever appended. The only legitimately damaged place is the tail of the
 *   newest segment (a crash during a write nobody was told was durable); anything else that
 *   does not parse is corruption.
 */
export const SEGMENT_MAGIC = Buffer.from('PSJOURNL', 'latin1');
/** Format version written into every segment header. */
export const SEGMENT_FORMAT_VERSION = 1;
/** Bytes of the segment header. */
export const SEGMENT_HEADER_BYTES = 24;
/** Bytes of a record's framing before its payload. */
export const RECORD_HEADER_BYTES = 16;
/** Largest payload accepted: keeps one record far below Node's Buffer limits and u32 length. */
export const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;

const TWO_POW_32 = 2 ** 32;
const SEGMENT_NAME = /^journal-(\d{20})\.log$/;
/** Suffix of a segment being born (header written, not yet renamed into place). */
export const SEGMENT_TEMP_SUFFIX = '.tmp';

/** `journal-00000000000000000001.log` for first sequence number 1. */
export function segmentFileName(firstSeq: number): string {
  return `journal-${String(firstSeq).padStart(20, '0')}.log`;
}

/** The first sequence number in a segment's file name, or undefined when it is not a segment name. */
export function parseSegmentFileName(name: string): number | undefined {
  const match = SEGMENT_NAME.exec(name);
  if (match === null) return undefined;
  const seq = Number(match[1]);
  return Number.isSafeInteger(seq) ? seq : undefined;
}

/** Whether a file name is a segment left half-born by a crash during rollover. */
export function isSegmentTempFileName(name: string): boolean {
  return name.endsWith(SEGMENT_TEMP_SUFFIX) && SEGMENT_NAME.test(name.slice(0, -SEGMENT_TEMP_SUFFIX.length));
}

function writeU64(target: Buffer, offset: number, value: number): void {
  target.writeUInt32LE(value % TWO_POW_32, offset);
  target.writeUInt32LE(Math.floor(value / TWO_POW_32), offset + 4);
}

/** Reads a u64 that must fit a safe integer; larger values (never written) come back as -1. */
export function readU64(source: Uint8Array, offset: number): number {
  const view = Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  const low = view.readUInt32LE(offset);
  const high = view.readUInt32LE(offset + 4);
  const value = high * TWO_POW_32 + low;
  return Number.isSafeInteger(value) ? value : -1;
}

/** The 24 header bytes of a new segment. */
export function encodeSegmentHeader(firstSeq: number): Buffer {
  const header = Buffer.alloc(SEGMENT_HEADER_BYTES);
  SEGMENT_MAGIC.copy(header, 0);
  header.writeUInt32LE(SEGMENT_FORMAT_VERSION, 8);
  writeU64(header, 12, firstSeq);
  header.writeUInt32LE(crc32(header.subarray(0, 20)), 20);
  return header;
}

/** What a segment header says, or why it cannot be read. */
export type DecodedSegmentHeader =
  { ok: true; firstSeq: number } | { ok: false; problem: string; unsupportedVersion?: number };

/** Checks magic, checksum and version of a segment header. */
export function decodeSegmentHeader(header: Uint8Array): DecodedSegmentHeader {
  if (header.byteLength < SEGMENT_HEADER_BYTES)
    return { ok: false, problem: 'file is shorter than a segment header' };
  const bytes = Buffer.from(header.buffer, header.byteOffset, SEGMENT_HEADER_BYTES);
  if (!bytes.subarray(0, 8).equals(SEGMENT_MAGIC))
    return { ok: false, problem: 'bad magic (not a journal segment)' };
  if (bytes.readUInt32LE(20) !== crc32(bytes.subarray(0, 20)))
    return { ok: false, problem: 'bad header checksum' };
  const version = bytes.readUInt32LE(8);
  if (version !== SEGMENT_FORMAT_VERSION) {
    return { ok: false, problem: `format version ${version} is not supported`, unsupportedVersion: version };
  }
  const firstSeq = readU64(bytes, 12);
  if (firstSeq < 1) return { ok: false, problem: 'bad first sequence number' };
  return { ok: true, firstSeq };
}

/** The crc of one record: its first 12 framing bytes, then its payload. */
export function recordCrc(framing: Uint8Array, payload: Uint8Array): number {
  return crc32(payload, crc32(framing.subarray(0, 12)));
}

/** Encodes records with consecutive sequence numbers from `firstSeq` into one buffer (one write). */
export function encodeRecords(payloads: readonly Uint8Array[], firstSeq: number): Buffer {
  let total = 0;
  for (const payload of payloads) total += RECORD_HEADER_BYTES + payload.byteLength;
  const out = Buffer.allocUnsafe(total);
  let offset = 0;
  let seq = firstSeq;
  for (const payload of payloads) {
    out.writeUInt32LE(payload.byteLength, offset);
    writeU64(out, offset + 4, seq++);
    out.writeUInt32LE(recordCrc(out.subarray(offset, offset + 12), payload), offset + 12);
    out.set(payload, offset + RECORD_HEADER_BYTES);
    offset += RECORD_HEADER_BYTES + payload.byteLength;
  }
  return out;
}
