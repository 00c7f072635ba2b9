/**
 * What reading the stored records of the results shown costs, on the RFC collection with the
 * project's mixed query set (`MIXED_QUERIES`, the top 10 of each, as a search finds them):
 *
 * - the blocks they are in: how many, how big compressed and decompressed, how many records
 *   each holds and how many results share one, and how many bytes the whole page set's blocks
 *   take in the search thread's cache of decoded blocks (`decoded-block-cache.ts`);
 * - CPU time per result, the three taking turns in the same process: decompressing its block
 *   (what a result costs when its block is not cached), decoding its whole record (what a
 *   GET or a re-index reads) and decoding the fields a result is made of
 *   (`RESULT_FIELDS`, what a search reads, blocks cached).
 *
 * The collection is built under `--home` (default `bench/results/tmp/http-search-all`, the
 * home `http-search.ts` builds without `--pages`) when it is not there yet.
 *
 *   node dist/bench/stored-reads.js [--home DIR] [--pages N] [--rounds 15]
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CollectionManager } from '../src/collection/collection-manager.js';
import { silentPushLog } from '../src/collection/push-log.js';
import { SearchHome } from '../src/collection/search-home.js';
import { DECODED_BLOCK_CACHE_BYTES } from '../src/index/generation/decoded-block-cache.js';
import { STORED_FORMAT_VERSION } from '../src/index/generation/generation-files.js';
import { decompressStoredBlock } from '../src/index/generation/stored-record-codec.js';
import type { LiveGeneration } from '../src/index/generation/live-generation.js';
import type { Searcher } from '../src/index/searcher.js';
import { statisticsFromGenerations } from '../src/query/collection-statistics.js';
import { executeQuery } from '../src/query/execute-query.js';
import { firstPageParams, planQuery, RESULT_FIELDS, type SearchParams } from '../src/search/run-search.js';
import { SearchService } from '../src/search/search-service.js';
import { cpuTimeMs, formatBytes, median, printTable } from './lib/measure.js';
import { MIXED_QUERIES } from './lib/query-set.js';
import { rfcHome } from './lib/rfc-home.js';

const { values } = parseArgs({
  options: {
    home: { type: 'string' },
    pages: { type: 'string' },
    rounds: { type: 'string', default: '15' },
  },
});
const COLLECTION = 'bench';
const TOP = 10;
const ROUNDS = Number(values.rounds);
/** Passes over the results per sample (a pass is a few milliseconds). */
const PASSES = 10;

interface Result {
  generation: LiveGeneration;
  docId: number;
  /** The result's block, compressed, and the number of records in it. */
  block: { key: string; bytes: Uint8Array; records: number };
}

function paramsOf(text: string): SearchParams {
  return firstPageParams(COLLECTION, text, TOP);
}

/** The compressed block holding each doc of `docIds` in `generation` (in the current .fdt format). */
function blocksOf(
  generation: LiveGeneration,
  index: number,
  docIds: Set<number>,
): Map<number, Result['block']> {
  const blocks = generation.reader.compressedStoredBlocks();
  if (blocks === null)
    throw new Error(
      'the collection was written in an older stored format: build it again (--home elsewhere)',
    );
  const list = [...blocks];
  const found = new Map<number, Result['block']>();
  list.forEach((block, b) => {
    const next = list[b + 1]?.firstDoc ?? generation.maxDoc;
    for (const docId of docIds) {
      if (docId >= block.firstDoc && docId < next)
        found.set(docId, {
          key: `${index}:${b}`,
          bytes: block.bytes.slice(),
          records: next - block.firstDoc,
        });
    }
  });
  return found;
}

/** CPU microseconds per result of `read` over every result, {@link PASSES} times. */
function sample(results: readonly Result[], read: (result: Result) => unknown): number {
  const started = cpuTimeMs();
  for (let pass = 0; pass < PASSES; pass++) for (const result of results) read(result);
  return ((cpuTimeMs() - started) * 1000) / (PASSES * results.length);
}

async function main(): Promise<void> {
  const home = resolve(values.home ?? join('bench', 'results', 'tmp', 'http-search-all'));
  await rfcHome(home, COLLECTION, values.pages === undefined ? undefined : Number(values.pages));
  const manager = new CollectionManager(new SearchHome(home), silentPushLog());
  const service = new SearchService(manager);
  const view = await service.openView(COLLECTION);
  try {
    const generations = view.members.flatMap((m) => [...(m.searcher as Searcher).generations]);
    const stats = statisticsFromGenerations(generations);
    const hits: { generationIndex: number; docId: number }[] = [];
    for (const query of MIXED_QUERIES) {
      const plan = planQuery(view, paramsOf(query.text), stats);
      if (plan.ranked !== null)
        hits.push(...executeQuery(generations, plan.ranked.query, plan.ranked.options).hits.slice(0, TOP));
    }
    const results: Result[] = [];
    generations.forEach((generation, g) => {
      const docIds = new Set(hits.filter((h) => h.generationIndex === g).map((h) => h.docId));
      if (docIds.size === 0) return;
      const blocks = blocksOf(generation, g, docIds);
      for (const hit of hits)
        if (hit.generationIndex === g)
          results.push({ generation, docId: hit.docId, block: blocks.get(hit.docId)! });
    });

    const distinct = new Map<string, { compressed: number; decoded: number; records: number }>();
    for (const { block } of results)
      if (!distinct.has(block.key))
        distinct.set(block.key, {
          compressed: block.bytes.length,
          decoded: decompressStoredBlock(block.bytes, STORED_FORMAT_VERSION).length,
          records: block.records,
        });
    const blocks = [...distinct.values()];
    const decodedTotal = blocks.reduce((sum, b) => sum + b.decoded, 0);
    console.log(
      `${results.length} results (top ${TOP} of ${MIXED_QUERIES.length} queries) in ${blocks.length} blocks ` +
        `(${(results.length / blocks.length).toFixed(2)} results a block); a block: ` +
        `${formatBytes(median(blocks.map((b) => b.compressed)))} compressed, ` +
        `${formatBytes(median(blocks.map((b) => b.decoded)))} decoded, ` +
        `${median(blocks.map((b) => b.records))} records (medians); the page set's blocks decoded: ` +
        `${formatBytes(decodedTotal)} (the thread's cache holds ${formatBytes(DECODED_BLOCK_CACHE_BYTES)}); ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );

    const reads: [string, (result: Result) => unknown][] = [
      [
        'decompress its block (not cached)',
        (r) => decompressStoredBlock(r.block.bytes, STORED_FORMAT_VERSION),
      ],
      ['decode the whole record (cached block)', (r) => r.generation.reader.stored(r.docId)],
      ['decode the result fields (cached block)', (r) => r.generation.reader.stored(r.docId, RESULT_FIELDS)],
    ];
    const samples = reads.map((): number[] => []);
    for (let round = 0; round <= ROUNDS; round++) {
      // Taking turns, in an order that changes, so that none always runs on what another left in the caches.
      const order = reads.map((_, i) => (i + round) % reads.length);
      for (const i of order) {
        const micros = sample(results, reads[i]![1]);
        if (round > 0) samples[i]!.push(micros); // round 0 warms up
      }
    }
    console.log(`\nCPU µs per result, medians of ${ROUNDS} rounds:`);
    printTable(reads.map(([name], i) => ({ read: name, 'µs per result': median(samples[i]!).toFixed(2) })));
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    for (const member of view.members) (member.searcher as Searcher).release();
  }
}

await main();
