import type { FieldBuffer, GenerationBuffer } from './generation-buffer.js';
import { recordsOfBlocks } from './stored-record-codec.js';
import type { GenerationSource, PostingsData, SourceField } from './generation-writer.js';

/** Presents a filled buffer as the source of a new generation (terms sorted at flush). */
export function bufferSource(buffer: GenerationBuffer): GenerationSource {
  const docCount = buffer.docCount;
  const fields: SourceField[] = [...buffer.fields.keys()].sort().map((name) => {
    const field = buffer.fields.get(name)!;
    const isText = field.positions;
    let lengths: Uint32Array | null = null;
    if (isText) {
      lengths = new Uint32Array(docCount);
      lengths.set(field.lengths);
    }
    return {
      name,
      positions: field.positions,
      lengths,
      sumLength: field.sumLength,
      docCount: field.docCount,
      terms: () => sortedPostings(field),
    };
  });
  const numbers: [string, Float64Array][] = [...buffer.numbers.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(
    ([name, column]) => {
      const values = new Float64Array(docCount).fill(Number.NaN);
      values.set(column);
      return [name, values];
    },
  );
  const storedBlocks = buffer.storedBlocks();
  return { docCount, fields, numbers, storedBlocks: () => storedBlocks, storedRecords: () => recordsOfBlocks(storedBlocks) };
}

/** A field's entries grouped by term: term t's entries are `starts[t]` to `starts[t + 1]`. */
interface GroupedEntries {
  starts: Int32Array;
  docs: Int32Array;
  positions: Int32Array | null;
}

/**
 * Groups a field's token stream by term with a stable counting sort: docs stay ascending and
 * positions ascending within a doc. A plain function, not part of the generator below: V8
 * optimises a long loop while it runs (on-stack replacement) only outside generators.
 */
function groupByTerm(field: FieldBuffer): GroupedEntries {
  const termCount = field.terms.length;
  const count = field.count;
  const { chunks, chunkEnds } = field;
  const last = chunks.length - 1;
  const withPositions = field.positions;
  const starts = new Int32Array(termCount + 1);
  for (let c = 0; c <= last; c++) {
    const bytes = chunks[c]!;
    const end = c === last ? field.fill : chunkEnds[c]!;
    let i = 0;
    while (i < end) {
      let b = bytes[i++]!;
      let id = b & 0x7f;
      for (let shift = 7; b > 0x7f; shift += 7) {
        b = bytes[i++]!;
        id |= (b & 0x7f) << shift;
      }
      starts[id + 1]!++;
      if (withPositions) while (bytes[i++]! > 0x7f);
    }
  }
  for (let t = 0; t < termCount; t++) starts[t + 1]! += starts[t]!;
  const next = starts.slice(0, termCount);
  const docs = new Int32Array(count);
  const positions = withPositions ? new Int32Array(count) : null;
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
        run++;
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
  return { starts, docs, positions };
}

/** Collapses one term's entries `docs[from, to)` into distinct docs and freqs; returns their number. */
function collapse(docs: Int32Array, from: number, to: number, docBuffer: Int32Array, freqBuffer: Int32Array): number {
  let n = 0;
  let last = -1;
  for (let i = from; i < to; i++) {
    const doc = docs[i]!;
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

/** Yields a field's terms in order with their docs, freqs and positions. */
function* sortedPostings(field: FieldBuffer): Generator<[string, PostingsData]> {
  const { starts, docs, positions } = groupByTerm(field);
  const terms = field.terms;
  // JS string order (terms are distinct).
  const order = Array.from({ length: terms.length }, (_, t) => t).sort((a, b) => (terms[a]! < terms[b]! ? -1 : 1));
  let docBuffer = new Int32Array(64);
  let freqBuffer = new Int32Array(64);
  for (const t of order) {
    const term = terms[t]!;
    const from = starts[t]!;
    const to = starts[t + 1]!;
    if (docBuffer.length < to - from) {
      docBuffer = new Int32Array(to - from);
      freqBuffer = new Int32Array(to - from);
    }
    const count = collapse(docs, from, to, docBuffer, freqBuffer);
    yield [term, { count, docs: docBuffer, freqs: freqBuffer, positions: positions === null ? null : positions.subarray(from, to) }];
  }
}
