/**
 * The child-process half of `bench/compare.ts`: builds one peer's index from the corpus and
 * measures it, writing its progress and results to stdout as lines the parent reads
 * (`PHASE`, `PROGRESS`, `PART`, `DONE`; see {@link ChildLine}). Results go out in parts as
 * they are measured: when the process runs out of memory the parent still has what came
 * before, and the last `PROGRESS` says how far indexing got.
 */
import { rmSync } from 'node:fs';
import { median, percentile } from '../measure.js';
import { QUERY_CLASSES, queriesOfClass, queryLabel, type BenchQuery } from '../query-set.js';
import { readRfcCorpusBatches, type RfcPage } from '../rfc-corpus.js';
import { createPeer } from './create-peer.js';
import type { BenchPeer, PeerName } from './peer.js';
import type { ClassLatency, PeerRun, RunPhase } from './peer-run.js';

/** What the child is asked to do. */
export interface ChildOptions {
  peer: PeerName;
  /** Index the first `limit` pages; undefined: the whole corpus. */
  limit: number | undefined;
  /** Timed runs per query. */
  runs: number;
  /** Rounds of the change-to-searchable measurement. */
  changeRounds: number;
  dir: string;
  stem: boolean;
}

/** A line of the child's stdout, parsed. */
export type ChildLine =
  | { kind: 'phase'; phase: RunPhase }
  | { kind: 'progress'; docs: number }
  | { kind: 'part'; part: Partial<PeerRun> }
  | { kind: 'done' };

/** Parses one stdout line of a child; null for anything else (a library's own output). */
export function parseChildLine(line: string): ChildLine | null {
  if (line.startsWith('PHASE ')) return { kind: 'phase', phase: line.slice(6) as RunPhase };
  if (line.startsWith('PROGRESS ')) return { kind: 'progress', docs: Number(line.slice(9)) };
  if (line.startsWith('PART ')) return { kind: 'part', part: JSON.parse(line.slice(5)) as Partial<PeerRun> };
  if (line === 'DONE') return { kind: 'done' };
  return null;
}

// stdout is a pipe: writes to it are synchronous on Linux, so a line written before a fatal
// out-of-memory error reaches the parent.
const write = (line: string): void => void process.stdout.write(line + '\n');
const phase = (name: RunPhase): void => write(`PHASE ${name}`);
const part = (fields: Partial<PeerRun>): void => write(`PART ${JSON.stringify(fields)}`);

function gcRss(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run the child with --expose-gc');
  gc();
  return process.memoryUsage().rss;
}

/** The corpus batches, counting pages and reporting progress each time the peer asks for more. */
async function* counted(limit: number | undefined, counter: { docs: number }): AsyncGenerator<RfcPage[]> {
  for await (const batch of readRfcCorpusBatches(limit === undefined ? {} : { limit })) {
    yield batch;
    counter.docs += batch.length;
    write(`PROGRESS ${counter.docs}`);
  }
}

/** A page that no corpus page resembles: one made-up word the probe query looks for. */
export function changePage(round: number): { page: RfcPage; probe: BenchQuery } {
  const word = `zqvprobe${String.fromCharCode(97 + (round % 26))}${round >= 26 ? round : ''}`;
  const page: RfcPage = {
    key: `https://rfc.example.org/bench-change/${round}`,
    rfc: 0,
    page: round,
    title: `Change probe ${round}`,
    // No word of the benchmark queries, so that the probe pages never enter their top 10.
    text: `Lorem ipsum ${word} dolor sit amet, consectetur adipiscing elit.`,
  };
  return { page, probe: { class: 'single', terms: [word] } };
}

async function measureChange(
  peer: BenchPeer,
  rounds: number,
): Promise<Pick<PeerRun, 'changeMs' | 'changeFound'>> {
  const changeMs: number[] = [];
  const changeFound: boolean[] = [];
  for (let round = 0; round < rounds; round++) {
    const { page, probe } = changePage(round);
    const start = performance.now();
    await peer.change(page);
    const keys = peer.search(probe, 10);
    changeMs.push(performance.now() - start);
    changeFound.push(keys.includes(page.key));
  }
  return { changeMs, changeFound };
}

/** The timed runs of one query stop once they add up to this, after at least {@link MIN_RUNS}. */
export const QUERY_BUDGET_MS = 10_000;
const MIN_RUNS = 3;

/**
 * Up to `runs` timings of the query. A query that takes seconds (a common word in Orama) gets
 * fewer, so that one library does not take hours; the medians stay comparable.
 */
function timeQuery(peer: BenchPeer, query: BenchQuery, runs: number): number[] {
  const samples: number[] = [];
  let total = 0;
  while (samples.length < runs && !(samples.length >= MIN_RUNS && total >= QUERY_BUDGET_MS)) {
    const start = performance.now();
    peer.search(query, 10);
    const ms = performance.now() - start;
    samples.push(ms);
    total += ms;
  }
  return samples;
}

function measureQueries(peer: BenchPeer, runs: number): Pick<PeerRun, 'queries' | 'topKeys'> {
  const queries = {} as PeerRun['queries'];
  const topKeys: PeerRun['topKeys'] = {};
  for (const queryClass of QUERY_CLASSES) {
    const reason = peer.unsupported[queryClass];
    if (reason !== undefined) {
      queries[queryClass] = { na: reason };
      continue;
    }
    const samples: number[] = [];
    for (const query of queriesOfClass(queryClass)) {
      // The untimed first run records the answer and warms up.
      topKeys[queryLabel(query)] = peer.search(query, 10);
      samples.push(...timeQuery(peer, query, runs));
    }
    const latency: ClassLatency = {
      median: median(samples),
      p99: percentile(samples, 99),
      samples: samples.length,
    };
    queries[queryClass] = latency;
  }
  return { queries, topKeys };
}

/** Runs one peer from an empty index to its export, writing results to stdout as it goes. */
export async function runPeerChild(options: ChildOptions): Promise<void> {
  phase('starting');
  const peer = await createPeer(options.peer, { dir: options.dir, stem: options.stem });
  const { description, unsupported, prefixMatching, inMemory } = peer;
  part({ peer: options.peer, setup: { description, unsupported, prefixMatching, inMemory } });

  phase('indexing');
  const counter = { docs: 0 };
  const started = performance.now();
  await peer.indexAll(counted(options.limit, counter));
  const indexMs = performance.now() - started;
  part({ docs: counter.docs, indexMs });

  phase('settling');
  const settleStart = performance.now();
  await peer.settle();
  part({ settleMs: performance.now() - settleStart, rssAfterIndexBytes: gcRss() });

  phase('change');
  part(await measureChange(peer, options.changeRounds));
  // Our commits may have started merges: let them end before timing queries.
  await peer.settle();

  phase('queries');
  part(measureQueries(peer, options.runs));
  part({ rssServingBytes: gcRss() });

  // Last, because serialising an in-memory index can need as much memory again.
  phase('export');
  part({ persisted: await peer.persistedSize() });

  phase('closing');
  await peer.close();
  rmSync(options.dir, { recursive: true, force: true });
  write('DONE');
}
