import type { FieldBuffer, GenerationBuffer } from './generation-buffer.js';
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
  return { docCount, fields, numbers, storedRecords: () => buffer.stored };
}

/**
 * Groups a field's token stream by term (stable counting sort: docs stay ascending and
 * positions ascending within a doc), then yields terms in order with docs, freqs, positions.
 */
function* sortedPostings(field: FieldBuffer): Generator<[string, PostingsData]> {
  const termCount = field.terms.length;
  const starts = new Int32Array(termCount + 1);
  for (let i = 0; i < field.count; i++) starts[field.ids[i]! + 1]!++;
  for (let t = 0; t < termCount; t++) starts[t + 1]! += starts[t]!;
  const next = starts.slice(0, termCount);
  const docs = new Int32Array(field.count);
  const positions = field.positions ? new Int32Array(field.count) : null;
  for (let i = 0; i < field.count; i++) {
    const at = next[field.ids[i]!]!++;
    docs[at] = field.docs[i]!;
    if (positions !== null) positions[at] = field.positionsOf[i]!;
  }
  const order = Array.from({ length: termCount }, (_, t) => t).sort((a, b) =>
    field.terms[a]! < field.terms[b]! ? -1 : field.terms[a]! > field.terms[b]! ? 1 : 0,
  );
  let docBuffer = new Int32Array(64);
  let freqBuffer = new Int32Array(64);
  for (const t of order) {
    const from = starts[t]!;
    const to = starts[t + 1]!;
    if (docBuffer.length < to - from) {
      docBuffer = new Int32Array(to - from);
      freqBuffer = new Int32Array(to - from);
    }
    let count = 0;
    for (let i = from; i < to; i++) {
      const doc = docs[i]!;
      if (count > 0 && docBuffer[count - 1] === doc) freqBuffer[count - 1]!++;
      else {
        docBuffer[count] = doc;
        freqBuffer[count] = 1;
        count++;
      }
    }
    yield [
      field.terms[t]!,
      {
        count,
        docs: docBuffer,
        freqs: freqBuffer,
        positions: positions === null ? null : positions.subarray(from, to),
      },
    ];
  }
}
