import type { ByteWriter } from '../store/byte-writer.js';

/**
 * Frame-of-reference bit packing of the postings format (Lucene's ForUtil, tantivy's
 * bitpacker): `count` unsigned integers of `width` bits each (0..32), written low bits first
 * into little-endian 32-bit words, so a run of them takes `4 * ceil(count * width / 32)`
 * bytes. Width 0 stores nothing (every value is 0).
 *
 * Why not varints: a fixed width decodes without a branch per byte, and value i of a run is
 * at a known bit offset, so one value (a term frequency) can be read without decoding the
 * ones before it. Runs need no alignment in the file.
 */

/** Bits needed to store `value` (0 for 0), for 0 <= value < 2^32. */
export function bitWidth(value: number): number {
  return value === 0 ? 0 : 32 - Math.clz32(value);
}

/** Appends values[from .. from + count) at `width` bits each (values must fit). */
export function packInto(
  out: ByteWriter,
  values: ArrayLike<number>,
  from: number,
  count: number,
  width: number,
): void {
  if (width === 0 || count === 0) return;
  let acc = 0;
  let used = 0;
  for (let i = from; i < from + count; i++) {
    const value = values[i]!;
    acc |= value << used;
    used += width;
    if (used >= 32) {
      out.writeUint32(acc >>> 0);
      used -= 32;
      // The bits of `value` that did not fit start the next word (none when used is 0).
      acc = used === 0 ? 0 : value >>> (width - used);
    }
  }
  if (used > 0) out.writeUint32(acc >>> 0);
}

/**
 * The little-endian 32-bit word at byte `at` (as a signed int32: only bit operations use it).
 * Readers decode through a DataView: V8 compiles its reads to single loads, aligned or not
 * (a third faster than assembling words from bytes, measured).
 */
function word(view: DataView, at: number): number {
  return view.getInt32(at, true);
}

/** Like {@link unpackOne} for any width: a run of width 0 takes no bytes and every value is 0. */
export function unpackOneOrZero(view: DataView, at: number, index: number, width: number): number {
  return width === 0 ? 0 : unpackOne(view, at, index, width);
}

/** Value `index` of the run of `width`-bit values that starts at byte `at` (width > 0). */
export function unpackOne(view: DataView, at: number, index: number, width: number): number {
  const bit = index * width;
  const p = at + ((bit >>> 5) << 2);
  const shift = bit & 31;
  let value = word(view, p) >>> shift;
  if (shift + width > 32) value |= word(view, p + 4) << (32 - shift);
  return width === 32 ? value >>> 0 : value & ((1 << width) - 1);
}

/**
 * Decodes values[start .. start + count) of the run at byte `at` into out[0 .. count),
 * each plus `add`. Width 32 only comes with huge gaps or positions: it takes a plain path.
 */
export function unpack(
  view: DataView,
  at: number,
  start: number,
  count: number,
  width: number,
  add: number,
  out: Int32Array,
): void {
  if (width === 0) {
    out.fill(add, 0, count);
    return;
  }
  if (width === 32) {
    for (let i = 0; i < count; i++) out[i] = (word(view, at + ((start + i) << 2)) >>> 0) + add;
    return;
  }
  const mask = (1 << width) - 1;
  const bit = start * width;
  let p = at + ((bit >>> 5) << 2);
  let acc = word(view, p) >>> (bit & 31);
  let left = 32 - (bit & 31);
  for (let i = 0; i < count; i++) {
    if (width <= left) {
      out[i] = (acc & mask) + add;
      acc >>>= width;
      left -= width;
    } else {
      p += 4;
      const next = word(view, p);
      out[i] = ((acc | (next << left)) & mask) + add;
      acc = next >>> (width - left);
      left += 32 - width;
    }
  }
}

/**
 * Decodes a run of `count` gaps minus one (the doc-id deltas of a block) into ascending
 * doc ids after `base`: out[i] = base + Σ_{j <= i} (value_j + 1).
 */
export function unpackDeltas(
  view: DataView,
  at: number,
  count: number,
  width: number,
  base: number,
  out: Int32Array,
): void {
  if (count === FULL_RUN && width > 0 && width < 32) {
    (FULL_RUN_DECODERS[width] ??= fullRunDecoder(width))(view, at, base, out);
    return;
  }
  let doc = base;
  if (width === 0) {
    for (let i = 0; i < count; i++) out[i] = ++doc;
    return;
  }
  if (width === 32) {
    for (let i = 0; i < count; i++) out[i] = doc += (word(view, at + (i << 2)) >>> 0) + 1;
    return;
  }
  const mask = (1 << width) - 1;
  let p = at;
  let acc = word(view, p);
  let left = 32;
  for (let i = 0; i < count; i++) {
    if (width <= left) {
      doc += (acc & mask) + 1;
      acc >>>= width;
      left -= width;
    } else {
      p += 4;
      const next = word(view, p);
      doc += ((acc | (next << left)) & mask) + 1;
      acc = next >>> (width - left);
      left += 32 - width;
    }
    out[i] = doc;
  }
}

/** Values in a full block of postings: the runs that get straight-line decoders. */
const FULL_RUN = 128;

type FullRunDecoder = (view: DataView, at: number, base: number, out: Int32Array) => void;

/**
 * Straight-line decoders of a full run of gaps, one per width 1..31, as Lucene generates its
 * ForUtil: with every shift and word index a constant, decoding is about four times faster
 * than the loop of {@link unpackDeltas} (measured), and conjunctions and phrases spend most of
 * their time decoding blocks. They are built from source text once, at load: a generated
 * source file would hold thousands of lines for the same thing. Nothing but the constants
 * computed here goes into the text. Each is built on its first use: building all 31 at load
 * was most of this module's load time (about 25 ms of CPU), paid again by every worker thread
 * at its start, though most threads (indexing ones) never decode a full run.
 */
const FULL_RUN_DECODERS: (FullRunDecoder | undefined)[] = Array.from({ length: 32 }, () => undefined);

function fullRunDecoder(width: number): FullRunDecoder {
  const lines = ['let doc = base;'];
  const mask = (2 ** width - 1) >>> 0;
  // 32 values take exactly `width` words: the same shifts repeat in every group of 32.
  for (let group = 0; group < FULL_RUN / 32; group++) {
    for (let k = 0; k < width; k++)
      lines.push(`const w${group}_${k} = view.getInt32(at + ${(group * width + k) * 4}, true);`);
    for (let j = 0; j < 32; j++) {
      const bit = j * width;
      const k = bit >>> 5;
      const shift = bit & 31;
      let value = shift === 0 ? `w${group}_${k}` : `(w${group}_${k} >>> ${shift})`;
      if (shift + width > 32) value = `(${value} | (w${group}_${k + 1} << ${32 - shift}))`;
      lines.push(`out[${group * 32 + j}] = doc += (${value} & ${mask}) + 1;`);
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from constants only (see above)
  return new Function('view', 'at', 'base', 'out', lines.join('\n')) as FullRunDecoder;
}
