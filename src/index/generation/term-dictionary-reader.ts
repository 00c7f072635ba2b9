import { ByteReader } from '../store/byte-reader.js';
import type { TermFilter } from './term-filter.js';
import { hasLoneSurrogate, type TermProbes } from './term-probes.js';

/** Where a term's postings lie, as the dictionary records it. */
export interface TermInfo {
  docFreq: number;
  docStart: number;
  docLength: number;
  posStart: number;
  posLength: number;
}

interface FieldIndex {
  name: string;
  positions: boolean;
  termCount: number;
  firstTerms: string[];
  blockOffsets: number[];
  docBases: number[];
  posBases: number[];
}

/**
 * Reads `.tim` (written by TermDictionaryWriter). The block index (first term of every block)
 * is kept in memory; a lookup binary-searches it and scans one block of at most 32 terms.
 */
export class TermDictionaryReader {
  private readonly fields = new Map<string, FieldIndex>();

  /** `body` holds the file's body bytes; offsets in the file are relative to `bodyStart`. */
  constructor(
    private readonly body: Uint8Array,
    private readonly bodyStart: number,
  ) {
    const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
    const indexOffset = view.getFloat64(body.length - 8, true) - bodyStart;
    const index = new ByteReader(body, indexOffset, body.length - 8);
    const fieldCount = index.readVInt();
    for (let f = 0; f < fieldCount; f++) {
      const name = index.readString();
      const positions = index.readVInt() === 1;
      const termCount = index.readVInt();
      const blockCount = index.readVInt();
      const field: FieldIndex = {
        name,
        positions,
        termCount,
        firstTerms: [],
        blockOffsets: [],
        docBases: [],
        posBases: [],
      };
      for (let b = 0; b < blockCount; b++) {
        field.firstTerms.push(index.readString());
        field.blockOffsets.push(index.readVInt() - bodyStart);
        field.docBases.push(index.readVInt());
        field.posBases.push(index.readVInt());
      }
      this.fields.set(name, field);
    }
  }

  fieldNames(): string[] {
    return [...this.fields.keys()];
  }

  termCount(field: string): number {
    return this.fields.get(field)?.termCount ?? 0;
  }

  /**
   * Where `term`'s postings are in `field`, or undefined when it has no such term. The block's
   * terms are rebuilt as UTF-8 bytes and compared with the term's, not decoded into strings:
   * a lookup reads up to a block of 32 terms in each generation for every term a query names
   * (and "did you mean" probes hundreds of edits of an unknown word), and decoding them cost
   * several times the comparing. A term with a lone surrogate (which UTF-8 cannot hold apart
   * from U+FFFD) is compared as a string.
   */
  lookup(field: string, term: string): TermInfo | undefined {
    const index = this.fields.get(field);
    if (index === undefined) return undefined;
    if (hasLoneSurrogate(term)) return this.lookupByString(index, term);
    return this.findBytes(index, term) ? { ...FOUND } : undefined;
  }

  /** The docFreq of `term` in `field`, 0 when it has no such term: {@link lookup} without an object. */
  docFreqOf(field: string, term: string): number {
    const index = this.fields.get(field);
    if (index === undefined) return 0;
    if (hasLoneSurrogate(term)) return this.lookupByString(index, term)?.docFreq ?? 0;
    return this.findBytes(index, term) ? FOUND.docFreq : 0;
  }

  /** {@link lookup} by decoding the block's terms. */
  private lookupByString(index: FieldIndex, term: string): TermInfo | undefined {
    const block = lastBlockNotAfter(index.firstTerms, term);
    if (block < 0) return undefined;
    let found: TermInfo | undefined;
    this.scanBlock(index, block, (candidate, info) => {
      if (candidate === term) {
        found = info;
        return false;
      }
      return candidate < term;
    });
    return found;
  }

  /** Finds a term without a lone surrogate by its UTF-8 bytes; when found, {@link FOUND} holds its entry. */
  private findBytes(index: FieldIndex, term: string): boolean {
    const block = lastBlockNotAfter(index.firstTerms, term);
    if (block < 0) return false;
    if (term !== probeTerm) {
      // Encoded once for the generations that follow (a term is looked up in each in turn).
      if (probe.length < term.length * 3) probe = new Uint8Array(term.length * 3);
      probeLength = encoder.encodeInto(term, probe).written!;
      probeTerm = term;
    }
    // Terms are in UTF-16 order, which is the UTF-8 bytes' order unless a character at or above
    // U+E000 meets one past U+FFFF (written as surrogates, below it in UTF-16; above it in
    // UTF-8). A term with none of them compares with every term as its bytes do, so the scan
    // stops past it; otherwise it reads the whole block (32 terms at most).
    let bytesInOrder = true;
    for (let i = 0; i < probeLength; i++)
      if (probe[i]! >= 0xee) {
        bytesInOrder = false;
        break;
      }
    const body = this.body;
    const end = body.length;
    cursor = index.blockOffsets[block]!;
    const count = nextVInt(body);
    let currentLength = 0;
    let docStart = index.docBases[block]!;
    let posStart = index.posBases[block]!;
    for (let i = 0; i < count; i++) {
      // The shared prefix is counted in UTF-16 units (never half a surrogate pair: see the writer).
      const prefixBytes = utf8LengthOfUnits(current, currentLength, nextVInt(body));
      const suffixLength = nextVInt(body);
      const from = cursor;
      if (from + suffixLength > end) throw new RangeError('read past end');
      currentLength = prefixBytes + suffixLength;
      if (current.length < currentLength) current = grown(current, prefixBytes, currentLength);
      for (let j = 0; j < suffixLength; j++) current[prefixBytes + j] = body[from + j]!;
      cursor = from + suffixLength;
      const docFreq = nextVInt(body);
      docStart += nextVInt(body);
      const docLength = nextVInt(body);
      posStart += nextVInt(body);
      const posLength = nextVInt(body);
      const order = compareBytesAt(current, currentLength, probe, 0, probeLength);
      if (order === 0) {
        FOUND.docFreq = docFreq;
        FOUND.docStart = docStart;
        FOUND.docLength = docLength;
        FOUND.posStart = posStart;
        FOUND.posLength = posLength;
        return true;
      }
      if (order > 0 && bytesInOrder) return false;
    }
    return false;
  }

  /**
   * Adds the docFreq in `field` of each of `probes`' terms to `out` (at the term's index; 0
   * for a term it lacks): {@link docFreqOf} of many terms in one forward pass. "Did you mean"
   * looks up ~700 edits of a word in every generation; one at a time, each cost a binary
   * search of the block index and the decoding of half a block on average, and edits sharing
   * their first letters fall in the same few blocks. In order, a block is decoded once for all
   * the probes falling in it, a probe continues from the term the previous one stopped at, and
   * the block index is searched only when a probe reaches the next block's first term.
   * With `filter` (the field's terms, {@link forEachTermBytes}), a probe it turns away is
   * absent without reading the dictionary.
   */
  addDocFreqs(field: string, probes: TermProbes, out: Int32Array, filter?: TermFilter): void {
    const index = this.fields.get(field);
    if (index === undefined) return;
    const { terms, bytes, starts, inByteOrder, hashes } = probes;
    const firstTerms = index.firstTerms;
    const blockCount = firstTerms.length;
    const body = this.body;
    const end = body.length;
    /** The block being read (-1: none); its terms not decoded yet. */
    let block = -1;
    let left = 0;
    /** Whether `current` holds the block's term the last probe stopped at (not below it). */
    let held = false;
    let heldDocFreq = 0;
    let currentLength = 0;
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t]!;
      if (inByteOrder[t] === 0) {
        // Rare (characters at or above U+E000): looked up alone, with the shared buffers and
        // cursor, so the pass starts its block again after it.
        out[t]! += this.docFreqOf(field, term);
        block = -1;
        continue;
      }
      // Turned away: the pass stays where it is, the next probe (after this one) continues from there.
      if (filter !== undefined && !filter.mayContain(hashes[t]!)) continue;
      if (block < 0 || (block + 1 < blockCount && firstTerms[block + 1]! <= term)) {
        const found = lastBlockNotAfter(firstTerms, term, block + 1);
        if (found < 0) continue; // before the first term
        block = found;
        cursor = index.blockOffsets[block]!;
        left = nextVInt(body);
        held = false;
        currentLength = 0;
      }
      const probeStart = starts[t]!;
      const probeEnd = starts[t + 1]!;
      for (;;) {
        if (!held) {
          // Past the block's last term and before the next block's first: absent.
          if (left === 0) break;
          left--;
          // As in findBytes: only the docFreq is kept, the postings' places are skipped.
          const prefixBytes = utf8LengthOfUnits(current, currentLength, nextVInt(body));
          const suffixLength = nextVInt(body);
          const from = cursor;
          if (from + suffixLength > end) throw new RangeError('read past end');
          currentLength = prefixBytes + suffixLength;
          if (current.length < currentLength) current = grown(current, prefixBytes, currentLength);
          for (let j = 0; j < suffixLength; j++) current[prefixBytes + j] = body[from + j]!;
          cursor = from + suffixLength;
          heldDocFreq = nextVInt(body);
          nextVInt(body);
          nextVInt(body);
          nextVInt(body);
          nextVInt(body);
          held = true;
        }
        const order = compareBytesAt(current, currentLength, bytes, probeStart, probeEnd);
        if (order < 0) {
          held = false;
          continue;
        }
        if (order === 0) out[t]! += heldDocFreq;
        break;
      }
    }
  }

  /**
   * Calls `visit` with the UTF-8 bytes of every term of `field` in turn (`bytes[0, length)`,
   * valid until the next call): a term filter is built from them without decoding strings.
   */
  forEachTermBytes(field: string, visit: (bytes: Uint8Array, length: number) => void): void {
    const index = this.fields.get(field);
    if (index === undefined) return;
    const body = this.body;
    const end = body.length;
    let term: Uint8Array = new Uint8Array(256);
    for (let block = 0; block < index.blockOffsets.length; block++) {
      cursor = index.blockOffsets[block]!;
      const count = nextVInt(body);
      let termLength = 0;
      for (let i = 0; i < count; i++) {
        const prefixBytes = utf8LengthOfUnits(term, termLength, nextVInt(body));
        const suffixLength = nextVInt(body);
        let at = cursor;
        if (at + suffixLength > end) throw new RangeError('read past end');
        termLength = prefixBytes + suffixLength;
        if (term.length < termLength) term = grown(term, prefixBytes, termLength);
        for (let j = 0; j < suffixLength; j++) term[prefixBytes + j] = body[at++]!;
        // The docFreq and the postings' places: five VInts skipped (each ends at a byte below 0x80).
        for (let skipped = 0; skipped < 5; skipped++) while (body[at++]! >= 0x80);
        if (at > end) throw new RangeError('read past end');
        cursor = at;
        visit(term, termLength);
      }
    }
  }

  /** Calls `visit` for terms >= `from` in order until it returns false. */
  forEachTermFrom(field: string, from: string, visit: (term: string, info: TermInfo) => boolean): void {
    const index = this.fields.get(field);
    if (index === undefined) return;
    let block = Math.max(0, lastBlockNotAfter(index.firstTerms, from));
    let going = true;
    for (; going && block < index.firstTerms.length; block++) {
      this.scanBlock(index, block, (term, info) => {
        if (term < from) return true;
        going = visit(term, info);
        return going;
      });
    }
  }

  /** Every term of a field in order (merges). */
  *terms(field: string): Generator<[string, TermInfo]> {
    const index = this.fields.get(field);
    if (index === undefined) return;
    for (let block = 0; block < index.firstTerms.length; block++) {
      const entries: [string, TermInfo][] = [];
      this.scanBlock(index, block, (term, info) => {
        entries.push([term, info]);
        return true;
      });
      yield* entries;
    }
  }

  private scanBlock(
    index: FieldIndex,
    block: number,
    visit: (term: string, info: TermInfo) => boolean,
  ): void {
    const input = new ByteReader(this.body, index.blockOffsets[block]!);
    const count = input.readVInt();
    let term = '';
    let docStart = index.docBases[block]!;
    let posStart = index.posBases[block]!;
    for (let i = 0; i < count; i++) {
      const prefix = input.readVInt();
      term = term.slice(0, prefix) + input.readString();
      const docFreq = input.readVInt();
      docStart += input.readVInt();
      const docLength = input.readVInt();
      posStart += input.readVInt();
      const posLength = input.readVInt();
      if (!visit(term, { docFreq, docStart, docLength, posStart, posLength })) return;
    }
  }
}

const encoder = new TextEncoder();
/** The entry {@link TermDictionaryReader.findBytes} found last (copied before it is handed out). */
const FOUND: TermInfo = { docFreq: 0, docStart: 0, docLength: 0, posStart: 0, posLength: 0 };
/** The UTF-8 bytes of the term {@link TermDictionaryReader.findBytes} looks for (`probeTerm`), `probeLength` of them. */
let probe: Uint8Array = new Uint8Array(256);
let probeTerm = '';
let probeLength = 0;
/** The UTF-8 bytes of the block's term it is at. */
let current: Uint8Array = new Uint8Array(256);

/** Where {@link nextVInt} reads next (one lookup at a time: lookups run to the end without yielding). */
let cursor = 0;

/**
 * The variable-length integer at {@link cursor} in `bytes` (as ByteReader reads them), moving
 * the cursor past it. A function of its own, not a closure over the position: V8 inlines it
 * into the lookup's loop, which is the whole cost of a lookup.
 */
function nextVInt(bytes: Uint8Array): number {
  let b = bytes[cursor++];
  if (b === undefined) throw new RangeError('read past end');
  if (b < 0x80) return b;
  let value = b & 0x7f;
  for (let shift = 7; ; shift += 7) {
    b = bytes[cursor++];
    if (b === undefined || shift > 63) throw new RangeError('malformed term block');
    value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return value;
  }
}

/** Bytes of the first `units` UTF-16 units of the UTF-8 text `bytes[0, length)`. */
function utf8LengthOfUnits(bytes: Uint8Array, length: number, units: number): number {
  let at = 0;
  while (units > 0) {
    if (at >= length) throw new RangeError('term prefix longer than the previous term');
    const lead = bytes[at]!;
    if (lead < 0x80) at += 1;
    else if (lead < 0xe0) at += 2;
    else if (lead < 0xf0) at += 3;
    else {
      // Past U+FFFF: two UTF-16 units.
      at += 4;
      units--;
    }
    units--;
  }
  return at;
}

/** A larger copy of `bytes[0, used)`, holding at least `atLeast` bytes. */
function grown(bytes: Uint8Array, used: number, atLeast: number): Uint8Array {
  const larger = new Uint8Array(Math.max(2 * bytes.length, atLeast));
  larger.set(bytes.subarray(0, used));
  return larger;
}

/** Sign of `a[0, aLength)` compared with `b[bStart, bEnd)` byte by byte. */
function compareBytesAt(a: Uint8Array, aLength: number, b: Uint8Array, bStart: number, bEnd: number): number {
  const bLength = bEnd - bStart;
  const common = aLength < bLength ? aLength : bLength;
  for (let i = 0; i < common; i++) {
    const d = a[i]! - b[bStart + i]!;
    if (d !== 0) return d;
  }
  return aLength - bLength;
}

/** Index of the last block from `low` on whose first term is <= term, or `low - 1`. */
function lastBlockNotAfter(firstTerms: string[], term: string, low = 0): number {
  let high = firstTerms.length - 1;
  let answer = low - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (firstTerms[mid]! <= term) {
      answer = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return answer;
}
