import { SearchError } from '../../errors.js';
import { NO_MORE_DOCS } from '../generation-view.js';
import type { Directory } from '../store/directory.js';
import type { FieldMeta, GenerationMeta } from './generation-files.js';
import { GenerationReader } from './generation-reader.js';
import {
  writeGeneration,
  type GenerationSource,
  type PostingsData,
  type SourceField,
} from './generation-writer.js';
import { KilledBits } from './killed-bits.js';
import { StoredBlockWriter, type StoredBlock } from './stored-record-codec.js';

/** One input of a merge: a generation and the killed bits it is merged with. */
export interface MergeInput {
  generation: number;
  /** The `.del` file whose bits the merge drops, or null when none are killed. */
  killedFile: string | null;
}

/**
 * Where each input document goes in the merged generation: `docMaps[i][oldDoc]` is the new
 * docId, or -1 for a killed document. Derived only from the killed bits the merge used, so
 * the index can recompute it to carry over kills that happened while the merge ran.
 */
export function computeDocMaps(inputs: { maxDoc: number; killed: KilledBits | null }[]): Int32Array[] {
  let next = 0;
  return inputs.map(({ maxDoc, killed }) => {
    const map = new Int32Array(maxDoc);
    for (let doc = 0; doc < maxDoc; doc++) map[doc] = killed !== null && killed.has(doc) ? -1 : next++;
    return map;
  });
}

/**
 * Merges generations into a new one, dropping killed documents. Opens its own readers (it
 * runs in a worker thread) and writes without syncing: the index syncs before publishing.
 *
 * `stopRequested` is asked before each term and each stored block: once it answers true the
 * merge throws `MERGE_ABORTED`, its files left unfinished (no manifest names them; the index
 * removes leftovers at open). A worker is stopped this way rather than terminated: a thread
 * terminated inside a compression call can abort the whole process (Node asserts when it
 * cleans up a zlib handle whose setup was cut short).
 */
export function mergeGenerations(
  dir: Directory,
  inputs: MergeInput[],
  generation: number,
  stopRequested: () => boolean = () => false,
): GenerationMeta {
  // Opened one by one inside the try: when one fails (a read error), those opened before it are closed.
  const readers: GenerationReader[] = [];
  try {
    for (const input of inputs) readers.push(GenerationReader.open(dir, input.generation));
    const killed = inputs.map((input, i) =>
      input.killedFile === null ? null : KilledBits.read(dir, input.killedFile, readers[i]!.maxDoc),
    );
    const docMaps = computeDocMaps(
      readers.map((reader, i) => ({ maxDoc: reader.maxDoc, killed: killed[i]! })),
    );
    const checkStop = () => {
      if (stopRequested())
        throw new SearchError('MERGE_ABORTED', `merge into generation ${generation} was stopped on request`);
    };
    return writeGeneration(dir, generation, mergeSource(readers, docMaps, checkStop));
  } finally {
    for (const reader of readers) reader.close();
  }
}

function mergeSource(
  readers: GenerationReader[],
  docMaps: Int32Array[],
  checkStop: () => void,
): GenerationSource {
  let docCount = 0;
  for (const map of docMaps) for (const target of map) if (target >= 0) docCount++;

  const fieldNames = [...new Set(readers.flatMap((reader) => reader.fieldNames()))].sort();
  const fields: SourceField[] = fieldNames.map((name) => {
    const metas = readers
      .map((reader) => reader.fieldMetaOf(name))
      .filter((m): m is FieldMeta => m !== undefined);
    const positions = metas.some((m) => m.positions);
    const hasLengths = metas.some((m) => m.hasLengths);
    let lengths: Uint32Array | null = null;
    let sumLength = 0;
    let withField = 0;
    if (hasLengths) {
      lengths = new Uint32Array(docCount);
      readers.forEach((reader, i) => {
        const own = reader.fieldLengths(name);
        if (own === null) return;
        const map = docMaps[i]!;
        for (let doc = 0; doc < map.length; doc++) {
          const target = map[doc]!;
          if (target < 0) continue;
          const length = own[doc]!;
          lengths![target] = length;
          sumLength += length;
          if (length > 0) withField++;
        }
      });
    }
    return {
      name,
      positions,
      lengths,
      sumLength,
      docCount: withField,
      terms: () => mergedTerms(readers, docMaps, name, positions, checkStop),
    };
  });

  const numericNames = [...new Set(readers.flatMap((reader) => reader.meta.numericFields))].sort();
  const numbers: [string, Float64Array][] = numericNames.map((name) => {
    const values = new Float64Array(docCount).fill(Number.NaN);
    readers.forEach((reader, i) => {
      const own = reader.numericValues(name);
      if (own === null) return;
      const map = docMaps[i]!;
      for (let doc = 0; doc < map.length; doc++) if (map[doc]! >= 0) values[map[doc]!] = own[doc]!;
    });
    return [name, values];
  });

  return { docCount, fields, numbers, storedBlocks: () => mergedStoredBlocks(readers, docMaps, checkStop) };
}

/**
 * The merged generation's `.fdt` blocks: an input without killed documents (every generation
 * of a bulk load, most of an append-mostly collection) has its compressed blocks copied as
 * they are, shifted to its place in the merged docIds, as Lucene's merges copy clean
 * stored-field chunks; only an input with killed documents (or in an older format) has its
 * live records decompressed and compressed again. Copying spares the merge decompressing and
 * compressing every record of those inputs again.
 */
function* mergedStoredBlocks(
  readers: GenerationReader[],
  docMaps: Int32Array[],
  checkStop: () => void,
): Generator<StoredBlock> {
  let base = 0;
  for (let i = 0; i < readers.length; i++) {
    const reader = readers[i]!;
    const map = docMaps[i]!;
    let live = 0;
    for (const target of map) if (target >= 0) live++;
    const clean = live === map.length ? reader.compressedStoredBlocks() : null;
    if (clean !== null) {
      for (const block of clean) {
        checkStop();
        yield { firstDoc: base + block.firstDoc, bytes: block.bytes };
      }
    } else {
      // The writer numbers its blocks' first documents from 0: they are shifted like the copied ones.
      const done: StoredBlock[] = [];
      const blocks = new StoredBlockWriter((block) =>
        done.push({ firstDoc: base + block.firstDoc, bytes: block.bytes.slice() }),
      );
      for (let doc = 0; doc < map.length; doc++) {
        if (map[doc]! < 0) continue;
        if (doc % 64 === 0) checkStop();
        blocks.add(reader.storedRecordBytes(doc));
        while (done.length > 0) yield done.shift()!;
      }
      blocks.finishBlock();
      yield* done;
    }
    base += live;
  }
}

/** K-way merge of the inputs' sorted term lists, remapping docIds and dropping killed docs. */
function* mergedTerms(
  readers: GenerationReader[],
  docMaps: Int32Array[],
  field: string,
  positions: boolean,
  checkStop: () => void,
): Generator<[string, PostingsData]> {
  const cursors = readers.map((reader) => reader.terms(field)[Symbol.iterator]());
  const heads = cursors.map((cursor) => cursor.next());
  const docs: number[] = [];
  const freqs: number[] = [];
  const allPositions: number[] = [];
  for (;;) {
    let smallest: string | undefined;
    for (const head of heads)
      if (!head.done && (smallest === undefined || head.value[0] < smallest)) smallest = head.value[0];
    if (smallest === undefined) return;
    checkStop();
    docs.length = 0;
    freqs.length = 0;
    allPositions.length = 0;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i]!;
      if (head.done || head.value[0] !== smallest) continue;
      const iterator = readers[i]!.postingsOf(head.value[1], positions);
      const map = docMaps[i]!;
      for (let doc = iterator.nextDoc(); doc !== NO_MORE_DOCS; doc = iterator.nextDoc()) {
        const target = map[doc]!;
        if (target < 0) continue;
        docs.push(target);
        freqs.push(iterator.freq());
        if (positions) for (const position of iterator.positions()) allPositions.push(position);
      }
      heads[i] = cursors[i]!.next();
    }
    if (docs.length > 0) {
      yield [smallest, { count: docs.length, docs, freqs, positions: positions ? allPositions : null }];
    }
  }
}
