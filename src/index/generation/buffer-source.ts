import type { GenerationBuffer } from './generation-buffer.js';
import type { GenerationSource, PostingsData, SourceField } from './generation-writer.js';

/** Presents a filled buffer as the source of a new generation (terms sorted at flush). */
export function bufferSource(buffer: GenerationBuffer): GenerationSource {
  const docCount = buffer.docCount;
  const fields: SourceField[] = [...buffer.fields.keys()].sort().map((name) => {
    const field = buffer.fields.get(name)!;
    const isText = field.lengths.length > 0 || field.sumLength > 0 || field.positions;
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
      *terms(): Generator<[string, PostingsData]> {
        const terms = [...field.terms.keys()].sort();
        for (const term of terms) {
          const postings = field.terms.get(term)!;
          yield [
            term,
            {
              count: postings.docs.length,
              docs: postings.docs,
              freqs: postings.freqs,
              positions: field.positions ? postings.positions : null,
            },
          ];
        }
      },
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
