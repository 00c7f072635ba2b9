import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bitWidth, packInto, unpackDeltas } from '../../src/index/generation/bit-packing.js';
import { ByteWriter } from '../../src/index/store/byte-writer.js';
import { seededRandom } from '../support/seeded-random.js';

/** Doc-id gaps minus one, packed at `width` bits, decoded back into ascending doc ids after `base`. */
function roundTrip(gaps: number[], width: number, base: number): Int32Array {
  const writer = new ByteWriter();
  writer.writeByte(0xa5); // The run starts unaligned, as it may in a file.
  packInto(writer, gaps, 0, gaps.length, width);
  const bytes = writer.toBytes();
  const out = new Int32Array(gaps.length);
  unpackDeltas(
    new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    1,
    gaps.length,
    width,
    base,
    out,
  );
  return out;
}

/** The doc ids as the reader stores them (an Int32Array: wide gaps summed wrap around, as they do there). */
function expectedDocs(gaps: number[], base: number): Int32Array {
  const docs = new Int32Array(gaps.length);
  let doc = base;
  gaps.forEach((gap, i) => (docs[i] = doc += gap + 1));
  return docs;
}

describe('bit packing of doc-id gaps', () => {
  // A full run of 128 goes through a decoder built for its width on first use; other counts
  // through the general loop. Every width, both ways, with the widest values each width holds.
  for (const count of [128, 127]) {
    it(`decodes a run of ${count} gaps at every width 0..31 as written`, () => {
      const random = seededRandom(count);
      for (let width = 0; width < 32; width++) {
        const max = 2 ** width - 1;
        const gaps = Array.from({ length: count }, (_, i) =>
          i % 5 === 0 ? max : Math.floor(random() * (max + 1)),
        );
        const base = 1000;
        assert.equal(bitWidth(Math.max(...gaps)), width, `width ${width}`);
        assert.deepEqual(roundTrip(gaps, width, base), expectedDocs(gaps, base), `width ${width}`);
      }
    });
  }
});
