import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CorruptIndexError } from '../../src/errors.js';
import {
  NO_MORE_DOCS,
  type BlockFreqScan,
  type FreqRatioImpacts,
  type PostingsIterator,
} from '../../src/index/generation-view.js';
import { CODEC_POSTINGS, POSTINGS_BLOCK_SIZE } from '../../src/index/generation/generation-files.js';
import { GenerationReader } from '../../src/index/generation/generation-reader.js';
import {
  writeGeneration,
  type GenerationSource,
  type PostingsData,
} from '../../src/index/generation/generation-writer.js';
import { createCodecOutput } from '../../src/index/store/codec-file.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';

/**
 * Round trips of the postings format (`.doc` / `.pos`, spec at the top of
 * generation-writer.ts) through the writer and the public reader: every document, frequency
 * and position comes back, whether read in order, by `advance`, or skipping positions; the
 * block-max data bounds what the blocks hold. Both ways of reading run: files held in memory
 * and files read with pread.
 */

interface ListSpec {
  docs: number[];
  freqs: number[];
  /** Per document, ascending positions (freqs[i] of them); absent: a field without positions. */
  positions?: number[][];
}

const READ_MODES = [
  { name: 'in memory', options: {} },
  { name: 'pread', options: { postingsInMemoryUpTo: 0 } },
] as const;

/** Writes one generation holding `list` as term "t" of field "f" (and "g" with lengths when given). */
function writeList(list: ListSpec, docCount: number, lengths: Uint32Array | null = null): MemoryDirectory {
  const dir = new MemoryDirectory();
  const positions = list.positions !== undefined;
  const data: PostingsData = {
    count: list.docs.length,
    docs: list.docs,
    freqs: list.freqs,
    positions: positions ? list.positions!.flat() : null,
  };
  const source: GenerationSource = {
    docCount,
    fields: [
      {
        name: 'f',
        positions,
        lengths,
        sumLength: lengths === null ? 0 : lengths.reduce((a, b) => a + b, 0),
        docCount: list.docs.length,
        terms: () => [['t', data]],
      },
    ],
    numbers: [],
    storedBlocks: () => [],
  };
  writeGeneration(dir, 1, source);
  return dir;
}

function open(
  dir: MemoryDirectory,
  options: { postingsInMemoryUpTo?: number },
): PostingsIterator & FreqRatioImpacts & BlockFreqScan {
  const reader = GenerationReader.open(dir, 1, options);
  const postings = reader.postings('f', 't', true);
  assert.ok(postings !== null);
  return postings as PostingsIterator & FreqRatioImpacts & BlockFreqScan;
}

/** Reads the whole list in order, with positions. */
function readAll(it: PostingsIterator): ListSpec {
  const out: ListSpec = { docs: [], freqs: [], positions: [] };
  for (let doc = it.nextDoc(); doc !== NO_MORE_DOCS; doc = it.nextDoc()) {
    out.docs.push(doc);
    out.freqs.push(it.freq());
    out.positions!.push([...it.positions()]);
  }
  assert.equal(it.docId(), NO_MORE_DOCS);
  return out;
}

function checkRoundTrip(list: ListSpec, docCount: number, lengths: Uint32Array | null = null): void {
  const dir = writeList(list, docCount, lengths);
  for (const mode of READ_MODES) {
    const it = open(dir, mode.options);
    assert.equal(it.docFreq, list.docs.length, mode.name);
    assert.equal(it.maxFreq, Math.max(...list.freqs), mode.name);
    const read = readAll(it);
    assert.deepEqual(read.docs, list.docs, mode.name);
    assert.deepEqual(read.freqs, list.freqs, mode.name);
    assert.deepEqual(read.positions, list.positions ?? list.docs.map(() => []), mode.name);
  }
}

/** `count` documents from `first`, every `gap` apart, freq 1, one position each. */
function evenList(count: number, first = 0, gap = 1): ListSpec {
  const docs = Array.from({ length: count }, (_, i) => first + i * gap);
  return { docs, freqs: docs.map(() => 1), positions: docs.map((d) => [d % 7]) };
}

describe('postings format round trips', () => {
  it('one document', () => {
    checkRoundTrip({ docs: [0], freqs: [1], positions: [[0]] }, 1);
    checkRoundTrip({ docs: [41], freqs: [3], positions: [[2, 9, 1000]] }, 42);
  });

  it('exactly one full block, and a block plus one document', () => {
    checkRoundTrip(evenList(POSTINGS_BLOCK_SIZE), POSTINGS_BLOCK_SIZE);
    checkRoundTrip(evenList(POSTINGS_BLOCK_SIZE + 1, 5, 3), 5 + 3 * (POSTINGS_BLOCK_SIZE + 1));
    checkRoundTrip(evenList(3 * POSTINGS_BLOCK_SIZE - 1, 0, 2), 6 * POSTINGS_BLOCK_SIZE);
  });

  it('consecutive documents with freq 1 (blocks of headers only)', () => {
    const docs = Array.from({ length: 2 * POSTINGS_BLOCK_SIZE + 10 }, (_, i) => 100 + i);
    checkRoundTrip({ docs, freqs: docs.map(() => 1) }, 400);
  });

  it('huge gaps, up to the largest docId', () => {
    const last = NO_MORE_DOCS - 1;
    const docCount = last + 1;
    checkRoundTrip({ docs: [0, last], freqs: [1, 2] }, docCount);
    checkRoundTrip({ docs: [last], freqs: [1] }, docCount);
    // A full block whose gaps need 31 bits, then a tail.
    const docs = [
      0,
      ...Array.from({ length: POSTINGS_BLOCK_SIZE }, (_, i) => last - POSTINGS_BLOCK_SIZE + i + 1),
    ];
    docs[1] = 1_500_000_000;
    checkRoundTrip({ docs, freqs: docs.map((_, i) => (i % 5) + 1) }, docCount);
  });

  it('the largest frequencies and positions', () => {
    const maxFreq = 2 ** 31 - 1;
    checkRoundTrip({ docs: [3, 4, 9], freqs: [maxFreq, 1, maxFreq - 1] }, 10);
    const many = Array.from({ length: 70_000 }, (_, i) => i * 3);
    const positions = [[0], many, [5, 2 ** 31 - 1]];
    checkRoundTrip({ docs: [0, 1, 2], freqs: positions.map((p) => p.length), positions }, 3);
  });

  it('positions across blocks, read for every document or only some', () => {
    const count = 3 * POSTINGS_BLOCK_SIZE + 17;
    const docs = Array.from({ length: count }, (_, i) => i * 3 + (i % 3));
    const positions = docs.map((d, i) =>
      Array.from({ length: (i * 7) % 11 || 1 }, (_, p) => d + p * (1 + (i % 4))),
    );
    const list = { docs, freqs: positions.map((p) => p.length), positions };
    checkRoundTrip(list, docs.at(-1)! + 1);
    const dir = writeList(list, docs.at(-1)! + 1);
    for (const mode of READ_MODES) {
      // Positions of every 5th document only, and twice for some: the skipped documents'
      // positions must not shift those that are read.
      const it = open(dir, mode.options);
      for (let i = 0, doc = it.nextDoc(); doc !== NO_MORE_DOCS; i++, doc = it.nextDoc()) {
        assert.equal(doc, docs[i]);
        if (i % 5 !== 0) continue;
        assert.deepEqual([...it.positions()], positions[i], `${mode.name} doc ${doc}`);
        if (i % 10 === 0) assert.deepEqual([...it.positions()], positions[i]);
      }
    }
  });

  it('advance lands on the first document at or after the target, across blocks', () => {
    const count = 4 * POSTINGS_BLOCK_SIZE + 3;
    const docs = Array.from({ length: count }, (_, i) => i * 10 + (i % 7));
    const positions = docs.map((d, i) => [i % 3, 50 + (d % 13)]);
    const list = { docs, freqs: positions.map((p) => p.length), positions };
    const dir = writeList(list, docs.at(-1)! + 1);
    const targets = [0, 1, 9, 10, 11, 640, 1279, 1280, 1281, 2500, 4000, docs.at(-1)!];
    for (const mode of READ_MODES) {
      const it = open(dir, mode.options);
      for (const target of targets) {
        // advance() only moves forward: a target at or before the current document is skipped.
        if (target <= it.docId()) continue;
        const expected = docs.findIndex((d) => d >= target);
        assert.equal(it.advance(target), docs[expected], `${mode.name} advance(${target})`);
        assert.equal(it.freq(), list.freqs[expected]);
        assert.deepEqual([...it.positions()], positions[expected]);
      }
      assert.equal(it.advance(docs.at(-1)! + 1), NO_MORE_DOCS);
    }
  });

  it('random lists: every way of reading gives back what was written', () => {
    const gap = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 1, max: 3 }) },
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 300 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 5_000_000 }) },
    );
    const posting = fc.record({
      gap,
      positions: fc.uniqueArray(
        fc.oneof(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })),
        {
          minLength: 1,
          maxLength: 12,
        },
      ),
    });
    fc.assert(
      fc.property(
        fc.array(posting, { minLength: 1, maxLength: 3 * POSTINGS_BLOCK_SIZE + 5 }),
        fc.integer({ min: 2, max: 9 }),
        (postings, step) => {
          let doc = -1;
          const docs = postings.map((p) => (doc += p.gap));
          const positions = postings.map((p) => [...p.positions].sort((a, b) => a - b));
          const list = { docs, freqs: positions.map((p) => p.length), positions };
          const docCount = doc + 1;
          checkRoundTrip(list, docCount);
          const dir = writeList(list, docCount);
          for (const mode of READ_MODES) {
            // Every step-th document by advance, with its positions.
            const it = open(dir, mode.options);
            for (let i = 0; i < docs.length; i += step) {
              assert.equal(it.advance(docs[i]!), docs[i]);
              assert.equal(it.freq(), list.freqs[i]);
              assert.deepEqual([...it.positions()], positions[i]);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('postings format block-max data', () => {
  it('bounds the frequencies and lengths of every block', () => {
    const count = 5 * POSTINGS_BLOCK_SIZE + 40;
    const docs = Array.from({ length: count }, (_, i) => i * 3 + (i % 2));
    const docCount = docs.at(-1)! + 1;
    const lengths = new Uint32Array(docCount);
    for (let d = 0; d < docCount; d++) lengths[d] = 20 + ((d * 37) % 500);
    const freqs = docs.map((d, i) => 1 + ((i * 13) % 9));
    for (const d of docs) lengths[d] = Math.max(lengths[d]!, 9);
    const dir = writeList({ docs, freqs }, docCount, lengths);
    for (const mode of READ_MODES) {
      const it = open(dir, mode.options);
      assert.equal(it.minLength, Math.min(...docs.map((d) => lengths[d]!)));
      assert.ok(it.maxFreqRatio >= Math.max(...docs.map((d, i) => freqs[i]! / lengths[d]!)));
      let i = 0;
      let target = 0;
      while (i < docs.length) {
        const end = it.advanceShallow(target);
        const inWindow: number[] = [];
        while (i < docs.length && docs[i]! <= end) inWindow.push(i++);
        assert.ok(inWindow.length > 0);
        for (const j of inWindow) {
          assert.ok(it.blockMaxFreq() >= freqs[j]!);
          assert.ok(it.blockMinLength() <= lengths[docs[j]!]!);
          assert.ok(it.blockMaxFreqRatio() >= freqs[j]! / lengths[docs[j]!]!);
        }
        if (end === NO_MORE_DOCS) break;
        target = end + 1;
      }
      assert.equal(i, docs.length);
    }
  });
});

describe('postings format version', () => {
  it('a postings file of format 1 is rejected with an error that names it', () => {
    const dir = writeList(evenList(3), 3);
    dir.deleteFile('g1.doc');
    const old = createCodecOutput(dir, 'g1.doc', CODEC_POSTINGS, 1);
    old.write(new Uint8Array([1, 2, 3, 4]));
    old.close();
    assert.throws(
      () => GenerationReader.open(dir, 1),
      (error: unknown) =>
        error instanceof CorruptIndexError &&
        /g1\.doc/.test(error.message) &&
        /version 1/.test(error.message),
    );
  });
});

describe('postings format scan by frequency', () => {
  // Runs of POSTINGS_BLOCK_SIZE documents form a block: block b holds list indexes [b * size, (b + 1) * size).
  const blockOf = (i: number) => Math.floor(i / POSTINGS_BLOCK_SIZE);

  it("stops at the next document of the block with the frequency, else at the next block's first", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 * POSTINGS_BLOCK_SIZE + 7 }),
        fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        (freqs, wanted, withPositions) => {
          const docs = freqs.map((_, i) => i * 3 + (i % 3));
          const docCount = docs.at(-1)! + 1;
          const lengths = new Uint32Array(docCount);
          for (let d = 0; d < docCount; d++) lengths[d] = 10 + ((d * 7) % 40);
          const list: ListSpec = { docs, freqs };
          if (withPositions) list.positions = freqs.map((f) => Array.from({ length: f }, (_, p) => p * 2));
          const dir = writeList(list, docCount, lengths);
          for (const mode of READ_MODES) {
            const it = open(dir, mode.options);
            let i = 0;
            assert.equal(it.nextDoc(), docs[0]);
            for (const minFreq of wanted) {
              if (i >= docs.length) break;
              const block = blockOf(i);
              const inBlock = docs.map((d, j) => j).filter((j) => blockOf(j) === block);
              assert.ok(
                it.currentBlockMinLength() <= Math.min(...inBlock.map((j) => lengths[docs[j]!]!)),
                mode.name,
              );
              assert.ok(
                it.currentBlockMaxFreqRatio() >=
                  Math.max(...inBlock.map((j) => freqs[j]! / lengths[docs[j]!]!)),
                mode.name,
              );
              // Expected: the next index of the same block with the frequency, else the next block's first.
              let next = i + 1;
              while (next < docs.length && blockOf(next) === block && freqs[next]! < minFreq) next++;
              const got = it.nextDocInBlockWithFreq(minFreq);
              i = next;
              assert.equal(got, i < docs.length ? docs[i] : NO_MORE_DOCS, `${mode.name}: minFreq ${minFreq}`);
              if (i < docs.length) {
                assert.equal(it.freq(), freqs[i]);
                if (withPositions) assert.deepEqual([...it.positions()], list.positions![i]);
              }
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
