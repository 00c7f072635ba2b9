import { largeArrayBuffer, type FieldBuffer, type GenerationBuffer } from './generation-buffer.js';
import type { StoredBlock } from './stored-record-codec.js';
import type { GenerationSource, PostingsData, SourceField } from './generation-writer.js';

/**
 * One field of a buffer, inverted: its entries grouped by term, terms in order. Plain arrays
 * and strings only, so that a worker can send it to another thread (the typed arrays are
 * transferred, not copied).
 */
export interface InvertedField {
  name: string;
  withPositions: boolean;
  /** Terms by the buffer's term id. */
  terms: string[];
  /** Term ids in term order (JS string order). */
  order: Int32Array;
  /** Term t's entries are `starts[t]` to `starts[t + 1]` of `docs` and `positions`. */
  starts: Int32Array;
  docs: Int32Array;
  positions: Int32Array | null;
  /** Token count per document (fields with positions), docCount long. */
  lengths: Uint32Array | null;
  sumLength: number;
  docCount: number;
}

/** A filled buffer, inverted: what a generation is written from (see {@link invertedSource}). */
export interface InvertedBuffer {
  docCount: number;
  /** Sorted by name. */
  fields: InvertedField[];
  numbers: [string, Float64Array][];
  storedBlocks: StoredBlock[];
}

/** Presents a filled buffer as the source of a new generation (terms sorted at flush). */
export function bufferSource(buffer: GenerationBuffer): GenerationSource {
  return invertedSource([invertBuffer(buffer)]);
}

/** Inverts a buffer that takes no more documents (sorts every field's entries by term). */
export function invertBuffer(buffer: GenerationBuffer): InvertedBuffer {
  const docCount = buffer.docCount;
  const names = [...buffer.fields.keys()].sort();
  // Every field's sorted postings in one allocation (a mapping of its own when large: see
  // largeArrayBuffer), handed out in order.
  let bytes = 0;
  for (const name of names)
    bytes += (buffer.fields.get(name)!.positions ? 8 : 4) * buffer.fields.get(name)!.count;
  const memory = { buffer: largeArrayBuffer(bytes), used: 0 };
  const fields = names.map((name) => invertField(name, buffer.fields.get(name)!, docCount, memory));
  const numbers: [string, Float64Array][] = [...buffer.numbers.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, column]) => {
      const values = new Float64Array(docCount).fill(Number.NaN);
      values.set(column);
      return [name, values];
    });
  return { docCount, fields, numbers, storedBlocks: buffer.storedBlocks() };
}

/** Every typed array of an inverted buffer: what to transfer when it is sent to another thread. */
export function transferablesOf(inverted: InvertedBuffer): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  const add = (array: ArrayBufferView | null) => {
    if (array !== null && array.buffer instanceof ArrayBuffer) buffers.add(array.buffer);
  };
  for (const field of inverted.fields) {
    for (const array of [field.order, field.starts, field.docs, field.positions, field.lengths]) add(array);
  }
  for (const [, values] of inverted.numbers) add(values);
  for (const block of inverted.storedBlocks) add(block.bytes);
  return [...buffers];
}

/**
 * The source of one generation written from several inverted buffers, one after the other:
 * the documents of `parts[1]` follow those of `parts[0]`, and so on (the indexing workers'
 * buffers of one commit become one generation).
 */
export function invertedSource(parts: InvertedBuffer[]): GenerationSource {
  const bases: number[] = [];
  let docCount = 0;
  for (const part of parts) {
    bases.push(docCount);
    docCount += part.docCount;
  }
  const fieldNames = [...new Set(parts.flatMap((part) => part.fields.map((field) => field.name)))].sort();
  const fields: SourceField[] = fieldNames.map((name) => {
    const own = parts.map((part) => part.fields.find((field) => field.name === name) ?? null);
    const present = own.filter((field): field is InvertedField => field !== null);
    const positions = present[0]!.withPositions;
    let lengths: Uint32Array | null = null;
    if (positions) {
      if (parts.length === 1) lengths = present[0]!.lengths;
      else {
        lengths = new Uint32Array(docCount);
        own.forEach((field, i) => {
          if (field?.lengths != null) lengths!.set(field.lengths, bases[i]);
        });
      }
    }
    return {
      name,
      positions,
      lengths,
      sumLength: present.reduce((sum, field) => sum + field.sumLength, 0),
      docCount: present.reduce((sum, field) => sum + field.docCount, 0),
      terms: () => mergedPostings(own, bases),
    };
  });
  const numberNames = [...new Set(parts.flatMap((part) => part.numbers.map(([name]) => name)))].sort();
  const numbers: [string, Float64Array][] = numberNames.map((name) => {
    if (parts.length === 1) return [name, parts[0]!.numbers.find(([n]) => n === name)![1]];
    const values = new Float64Array(docCount).fill(Number.NaN);
    parts.forEach((part, i) => {
      const column = part.numbers.find(([n]) => n === name);
      if (column !== undefined) values.set(column[1], bases[i]);
    });
    return [name, values];
  });
  const storedBlocks: StoredBlock[] = parts.flatMap((part, i) =>
    part.storedBlocks.map((block) =>
      bases[i] === 0 ? block : { firstDoc: block.firstDoc + bases[i]!, bytes: block.bytes },
    ),
  );
  return { docCount, fields, numbers, storedBlocks: () => storedBlocks };
}

/**
 * Inverts one field: groups the token stream by term with a stable counting sort (docs stay
 * ascending, positions ascending within a doc) and orders the terms. A plain function, not a
 * generator: V8 optimises a long loop while it runs (on-stack replacement) only outside
 * generators.
 */
function invertField(
  name: string,
  field: FieldBuffer,
  docCount: number,
  memory: { buffer: ArrayBuffer; used: number },
): InvertedField {
  const terms = field.terms;
  const termCount = terms.length;
  const count = field.count;
  const { chunks, chunkEnds } = field;
  const last = chunks.length - 1;
  const withPositions = field.positions;
  // The counting sort's counts were kept as tokens arrived (FieldBuffer.termCounts).
  const starts = new Int32Array(termCount + 1);
  starts.set(field.termCounts.subarray(0, termCount), 1);
  for (let t = 0; t < termCount; t++) starts[t + 1]! += starts[t]!;
  const next = starts.slice(0, termCount);
  const docs = new Int32Array(memory.buffer, memory.used, count);
  const positions = withPositions ? new Int32Array(memory.buffer, memory.used + 4 * count, count) : null;
  memory.used += (withPositions ? 8 : 4) * count;
  // Entries in arrival order; `doc` is the document of entry number `at`, `position` its position.
  const { runDocs, runStarts, runCount } = field;
  let run = -1;
  let doc = 0;
  let runEnd = 0;
  let at = 0;
  let position = 0;
  for (let c = 0; c <= last; c++) {
    const bytes = chunks[c]!;
    const end = c === last ? field.fill : chunkEnds[c]!;
    let i = 0;
    while (i < end) {
      while (at >= runEnd) {
        // More entries than tokens counted would loop here for ever: a broken buffer must fail its flush, not hang it.
        if (++run >= runCount)
          throw new Error(`field ${name}: the token stream holds more than its ${count} tokens`);
        doc = runDocs[run]!;
        runEnd = run + 1 < runCount ? runStarts[run + 1]! : count;
        position = 0;
      }
      let b = bytes[i++]!;
      let id = b & 0x7f;
      for (let shift = 7; b > 0x7f; shift += 7) {
        b = bytes[i++]!;
        id |= (b & 0x7f) << shift;
      }
      const to = next[id]!++;
      docs[to] = doc;
      if (positions !== null) {
        b = bytes[i++]!;
        let delta = b & 0x7f;
        for (let shift = 7; b > 0x7f; shift += 7) {
          b = bytes[i++]!;
          delta |= (b & 0x7f) << shift;
        }
        position += delta;
        positions[to] = position;
      }
      at++;
    }
  }
  // JS string order (terms are distinct).
  const order = Int32Array.from(
    Array.from({ length: termCount }, (_, t) => t).sort((a, b) => (terms[a]! < terms[b]! ? -1 : 1)),
  );
  let lengths: Uint32Array | null = null;
  if (withPositions) {
    lengths = new Uint32Array(docCount);
    lengths.set(field.lengths);
  }
  return {
    name,
    withPositions,
    terms,
    order,
    starts,
    docs,
    positions,
    lengths,
    sumLength: field.sumLength,
    docCount: field.docCount,
  };
}

/**
 * Collapses entries `docs[from, to)` into distinct docs (plus `base`) and freqs, written from
 * `into`; returns the new count.
 */
function collapse(
  docs: Int32Array,
  from: number,
  to: number,
  base: number,
  docBuffer: Int32Array,
  freqBuffer: Int32Array,
  into: number,
): number {
  let n = into;
  let last = -1;
  for (let i = from; i < to; i++) {
    const doc = docs[i]! + base;
    if (doc === last) freqBuffer[n - 1]!++;
    else {
      docBuffer[n] = doc;
      freqBuffer[n] = 1;
      n++;
      last = doc;
    }
  }
  return n;
}

/** Yields a field's terms in order with their docs, freqs and positions, over every part that has the field. */
function* mergedPostings(
  parts: (InvertedField | null)[],
  bases: number[],
): Generator<[string, PostingsData]> {
  const cursors = parts.map(() => 0);
  let docBuffer = new Int32Array(64);
  let freqBuffer = new Int32Array(64);
  let positionBuffer = new Int32Array(64);
  for (;;) {
    // The smallest next term over the parts (usually one or two parts).
    let term: string | undefined;
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p];
      if (!part || cursors[p]! >= part.order.length) continue;
      const candidate = part.terms[part.order[cursors[p]!]!]!;
      if (term === undefined || candidate < term) term = candidate;
    }
    if (term === undefined) return;
    let entries = 0;
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p];
      if (!part || cursors[p]! >= part.order.length) continue;
      const t = part.order[cursors[p]!]!;
      if (part.terms[t] === term) entries += part.starts[t + 1]! - part.starts[t]!;
    }
    if (docBuffer.length < entries) {
      docBuffer = new Int32Array(entries);
      freqBuffer = new Int32Array(entries);
    }
    let count = 0;
    let positions: Int32Array | null = null;
    let filled = 0;
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p];
      if (!part || cursors[p]! >= part.order.length) continue;
      const t = part.order[cursors[p]!]!;
      if (part.terms[t] !== term) continue;
      cursors[p]!++;
      const from = part.starts[t]!;
      const to = part.starts[t + 1]!;
      count = collapse(part.docs, from, to, bases[p]!, docBuffer, freqBuffer, count);
      if (part.positions !== null) {
        if (filled === 0 && to - from === entries) positions = part.positions.subarray(from, to);
        else {
          // The term is in several parts: their positions one after the other.
          if (positionBuffer.length < entries) positionBuffer = new Int32Array(entries);
          if (positions !== null && positions !== positionBuffer) positionBuffer.set(positions, 0);
          positionBuffer.set(part.positions.subarray(from, to), filled);
          positions = positionBuffer;
        }
        filled += to - from;
      }
    }
    yield [
      term,
      {
        count,
        docs: docBuffer,
        freqs: freqBuffer,
        positions: positions === null ? null : positions.subarray(0, filled),
      },
    ];
  }
}
