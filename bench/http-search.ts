/**
 * Query serving (issue #19): what a query costs through HTTP next to what the engine spends
 * on it, on the RFC corpus with the project's mixed query set (`MIXED_QUERIES`: words, AND,
 * any-of, phrases, truncation, exclusion, a required word, a class), top 10 with the full
 * result packet (summaries, click-tracking URLs, facets and spelling when due).
 *
 * Each repeat measures, in this order:
 * 1. In-process, no HTTP, in this process over the same collection folder:
 *    - `engine`: the `executeQuery` runs a search makes for the query (`planQuery`: the same
 *      tree, filters, k, count threshold, statistics), nothing else;
 *    - `service`: `SearchService.search`, the whole query processor without HTTP;
 *    - `fts5`: SQLite FTS5 over the same pages (top 10 by bm25, then the matches counted up
 *      to 10,000 as ours counts them), its nearest expression of each query.
 * 2. Through HTTP, `pushsearch serve` in a child process, `GET /s/search.json`, after a
 *    warm-up (see below):
 *    - 1 connection: every query of the set `--rounds` times, one after the other (p50, p90,
 *      p99, queries/s);
 *    - `--connections` (8) keep-alive connections sharing twice as many requests (queries/s, p50).
 *    With `--baseline-server PATH` (another build's `dist/src/cli/main.js`, e.g. main before a
 *    change) the same is measured on it, in turn with ours, and the answers are compared.
 * 3. The floor (see {@link measureFloor}): a bare `node:http` server answering from a worker
 *    thread, with no work, then busy for each query's engine median of this repeat.
 * The table prints the medians over `--repeats` (3) of each figure, the ratios the issue sets
 * as targets (HTTP p50 and p99 within 1.2x of the engine's; 8-connection queries/s at least
 * 1.8x the 1-connection figure), the server process's CPU time per query at 1 and at
 * `--connections` connections (user + system, all threads, from /proc: steadier than
 * latencies on a shared machine), and the C++ reference of the issue as a fixed line.
 *
 * Each server is first warmed up to the steady state of a server that has been answering
 * for a while: the query set twice one at a time (the answers compared are these), then
 * `--warm-up-bursts` (100) times on `--connections` connections, as the bursts a running
 * server has seen, so that every search thread has run every kind of query and V8 has
 * optimised it (and stopped recompiling). Without the bursts, the compilers' work landed in
 * the measured phases, in whichever first gave a thread work (on the RFC corpus, V8's
 * threads then spent 2.7 ms of CPU per query, against 0.6-1.2 ms once warm). With 16 bursts
 * V8's helper threads still spent 0.3-0.4 ms of CPU per query at 1 connection (first
 * compiles of code that gets hot late); with 100, 0.06 (2026-11-27, 7700779). The in-process
 * ways run `--warm-up-rounds` (5) untimed rounds first: their figures did not move between 1
 * and 20 (engine sums 66-95 ms either way, as noisy).
 *
 * The collection (and the FTS5 database) is built once under `--home` (default
 * `bench/results/tmp/http-search-<pages>`) and reused by later runs with the same `--pages`;
 * `--rebuild` starts over. `--cpu-prof DIR` runs the server with `node --cpu-prof` (one
 * profile per server start). `--search-threads N` sets the server's `search.thread-count`
 * (default: the number of cores; 0 runs queries on the event loop). `--per-query` adds each
 * query's medians (engine, query processor, HTTP, the floor busy for its engine time).
 *
 *   npx tsc -p tsconfig.json && node dist/bench/http-search.js [--pages N] [--repeats 3] [--rounds 10] [--connections 8] [--home DIR] [--rebuild] [--baseline-server PATH] [--no-fts5] [--cpu-prof DIR] [--search-threads N] [--warm-up-bursts 100] [--warm-up-rounds 5] [--per-query]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CollectionManager } from '../src/collection/collection-manager.js';
import { silentPushLog } from '../src/collection/push-log.js';
import { SearchHome } from '../src/collection/search-home.js';
import type { Searcher } from '../src/index/searcher.js';
import { THREAD_NAMES } from '../src/index/thread-name.js';
import { statisticsFromGenerations } from '../src/query/collection-statistics.js';
import { executeQuery } from '../src/query/execute-query.js';
import { firstPageParams, planQuery, type SearchParams } from '../src/search/run-search.js';
import { SearchService } from '../src/search/search-service.js';
import { Fts5Peer } from './lib/fts5-peer.js';
import { sqliteUnavailable } from './lib/sqlite-available.js';
import { formatMs, median, percentile, printTable, type TableRow } from './lib/measure.js';
import { readProcStats, readTaskCpu } from './lib/proc-stats.js';
import { MIXED_QUERIES } from './lib/query-set.js';
import { ServerProcess } from './lib/server-process.js';
import { rfcHome } from './lib/rfc-home.js';
import {
  corpusAvailable,
  corpusMissingMessage,
  readRfcCorpusBatches,
  repositoryRoot,
} from './lib/rfc-corpus.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string' },
    repeats: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    home: { type: 'string' },
    rebuild: { type: 'boolean', default: false },
    'baseline-server': { type: 'string' },
    'no-fts5': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'search-threads': { type: 'string' },
    'warm-up-bursts': { type: 'string', default: '100' },
    'warm-up-rounds': { type: 'string', default: '5' },
    'per-query': { type: 'boolean', default: false },
  },
});

const COLLECTION = 'bench';
const PASSWORD = 'bench-password-1';
const TOP = 10;
/** What our search counts exactly (`EXACT_COUNT_LIMIT`), and FTS5 is asked to count as far. */
const COUNT_UP_TO = 10_000;
/** The C++ server of the issue, its own protocol, ids only, the same machine and corpus. */
const REFERENCE = { p50: 0.5, p90: 1.8, p99: 11.9, qps1: 755, qps8: 1491, p50At8: 2.1 };

const pagesWanted = values.pages === undefined ? undefined : Number(values.pages);
const repeats = Number(values.repeats);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
/** Rounds of the query set on `--connections` connections in the warm-up. */
const warmUpBursts = Number(values['warm-up-bursts']);
/** Untimed rounds of the query set in-process before the timed ones (engine, query processor, FTS5). */
const warmUpRounds = Number(values['warm-up-rounds']);
if (
  !(repeats >= 1 && rounds >= 1 && connections >= 1 && warmUpRounds >= 1 && warmUpBursts >= 0) ||
  (pagesWanted !== undefined && !(pagesWanted >= 1))
)
  throw new Error(
    '--pages, --repeats, --rounds, --connections and --warm-up-rounds must be whole numbers >= 1, --warm-up-bursts >= 0',
  );

/** Latencies (ms) of one way of running the set, with the wall time of the whole pass. */
interface Pass {
  samples: number[];
  wallMs: number;
}

/** The figures of one repeat of one server (or of the in-process ways). */
type Figures = Record<string, number>;

function paramsOf(text: string): SearchParams {
  return firstPageParams(COLLECTION, text, TOP);
}

function summarize(prefix: string, pass: Pass, figures: Figures): void {
  figures[`${prefix} p50`] = median(pass.samples);
  figures[`${prefix} p90`] = percentile(pass.samples, 90);
  figures[`${prefix} p99`] = percentile(pass.samples, 99);
  figures[`${prefix} q/s`] = (pass.samples.length / pass.wallMs) * 1000;
}

// ---------------------------------------------------------------------------------------
// Building the collection and the FTS5 database (once)

interface Built {
  pages: number;
  fts5: boolean;
}

async function build(home: string): Promise<Built> {
  // The collection as the other search benchmarks build it; the FTS5 database beside it.
  const { pages } = await rfcHome(home, COLLECTION, pagesWanted, true);
  let fts5 = false;
  const unavailable = sqliteUnavailable();
  if (unavailable !== undefined) console.log(`  fts5: skipped (${unavailable})`);
  if (values['no-fts5'] !== true && unavailable === undefined) {
    const peer = Fts5Peer.create(join(home, 'fts5'));
    const stats = await peer.index(
      (async function* () {
        for await (const batch of readRfcCorpusBatches(
          pagesWanted === undefined ? {} : { limit: pagesWanted },
        ))
          yield* batch;
      })(),
    );
    peer.checkpoint();
    peer.close();
    fts5 = true;
    console.log(`  fts5: ${stats.docs} pages in ${(stats.ms / 1000).toFixed(0)} s`);
  }
  const built = { pages, fts5 };
  writeFileSync(join(home, 'http-search-built.json'), JSON.stringify(built));
  return built;
}

// ---------------------------------------------------------------------------------------
// In-process

/** Each query's median time in the engine, in-process (what the floor with work spends on it). */
type EngineTimes = Map<string, number>;

async function measureInProcess(home: string, figures: Figures): Promise<EngineTimes> {
  const manager = new CollectionManager(new SearchHome(home), silentPushLog());
  const service = new SearchService(manager);
  let engineTimes: EngineTimes = new Map();
  try {
    const view = await service.openView(COLLECTION);
    try {
      const generations = view.members.flatMap((m) => [...m.searcher.generations]);
      // Planned untimed (parsing, fresh statistics as a search makes them), then timed: the
      // executeQuery runs alone.
      const engine = timeSet((text) => {
        const plan = planQuery(view, paramsOf(text), statisticsFromGenerations(generations));
        return () => {
          if (plan.ranked !== null) executeQuery(generations, plan.ranked.query, plan.ranked.options);
          if (plan.fullyCount !== null)
            executeQuery(generations, plan.fullyCount.query, plan.fullyCount.options);
        };
      });
      summarize('engine', { samples: engine, wallMs: engine.reduce((a, b) => a + b, 0) }, figures);
      engineTimes = perQueryMedians(engine);
      recordPerQuery('engine', engineTimes, figures);
    } finally {
      for (const member of view.members) (member.searcher as Searcher).release();
    }
    const serviceTimes: number[] = [];
    for (let round = 0; round < warmUpRounds; round++)
      for (const query of MIXED_QUERIES) await service.search(paramsOf(query.text)); // warm-up
    const started = performance.now();
    for (let round = 0; round < rounds; round++) {
      for (const query of MIXED_QUERIES) {
        const t = performance.now();
        await service.search(paramsOf(query.text));
        serviceTimes.push(performance.now() - t);
      }
    }
    summarize('service', { samples: serviceTimes, wallMs: performance.now() - started }, figures);
    recordPerQuery('service', perQueryMedians(serviceTimes), figures);
  } finally {
    await manager.closeAll();
  }
  return engineTimes;
}

/** Each query's median of samples taken as {@link timeSet} takes them (every query, round after round). */
function perQueryMedians(samples: readonly number[]): EngineTimes {
  return new Map(
    MIXED_QUERIES.map((query, i) => [
      query.text,
      median(samples.filter((_, j) => j % MIXED_QUERIES.length === i)),
    ]),
  );
}

/** Keeps each query's median of one way (`way`) among the repeat's figures, for `--per-query`. */
function recordPerQuery(way: string, medians: EngineTimes, figures: Figures): void {
  MIXED_QUERIES.forEach((query, i) => (figures[`query ${i} ${way}`] = medians.get(query.text)!));
}

/**
 * Every query of the set `rounds` times after `--warm-up-rounds` untimed ones: `prepare` (untimed) returns
 * the work that is timed. The samples of all queries and rounds.
 */
function timeSet(prepare: (text: string) => () => unknown): number[] {
  for (let round = 0; round < warmUpRounds; round++) for (const query of MIXED_QUERIES) prepare(query.text)();
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const query of MIXED_QUERIES) {
      const work = prepare(query.text);
      const t = performance.now();
      work();
      samples.push(performance.now() - t);
    }
  }
  return samples;
}

function measureFts5(home: string, figures: Figures): void {
  const peer = Fts5Peer.open(join(home, 'fts5'));
  try {
    const samples = timeSet((text) => {
      const match = MIXED_QUERIES.find((q) => q.text === text)!.fts5;
      return () => {
        peer.searchMatch(match, TOP);
        peer.countMatchUpTo(match, COUNT_UP_TO);
      };
    });
    summarize('fts5', { samples, wallMs: samples.reduce((a, b) => a + b, 0) }, figures);
  } finally {
    peer.close();
  }
}

// ---------------------------------------------------------------------------------------
// Through HTTP

async function measureServer(
  home: string,
  label: string,
  main: string | undefined,
  figures: Figures,
): Promise<ServerAnswers> {
  const profile = values['cpu-prof'];
  // A budget far above any query (as in search-threads): this measures latency and
  // throughput; on a loaded machine the default 2 s budget shed measured queries with 503.
  mkdirSync(join(home, 'conf'), { recursive: true });
  const threads = values['search-threads'];
  writeFileSync(
    join(home, 'conf', 'global.cfg'),
    'search.timeout-ms=600000\nsearch.queue-size=1000\n' +
      (threads !== undefined ? `search.thread-count=${Number(threads)}\n` : ''),
  );
  const server = await ServerProcess.start(home, join(home, `server-${label}.out`), PASSWORD, {
    ...(main !== undefined ? { main } : {}),
    ...(profile !== undefined ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${resolve(profile)}`] } : {}),
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  try {
    const get = (text: string) => request(agent, server.port, text);
    // Warm-up (starts the collection, opens the index in each search thread, lets V8
    // optimise); keeps each answer for the comparison. A cold first query may exceed the
    // search budget on a loaded machine (503 SEARCH_TIMEOUT): asked again, a few times.
    const warm = async (text: string): Promise<string> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await get(text);
        } catch (error) {
          if (attempt >= 5 || !/ answered 503:/.test((error as Error).message)) throw error;
        }
      }
    };
    const answers: ServerAnswers = { fingerprints: new Map(), bytes: new Map() };
    for (let i = 0; i < 2; i++)
      for (const query of MIXED_QUERIES) {
        const body = await warm(query.text);
        answers.fingerprints.set(query.text, fingerprint(body));
        answers.bytes.set(query.text, Buffer.byteLength(body));
      }
    // Then bursts, as a server in steady state has answered before: every search thread
    // has run every kind of query and V8 has optimised it (otherwise the compilers' work
    // lands in the measured phases: 2-3 ms of CPU per query at first).
    await concurrently(warmUpBursts * MIXED_QUERIES.length, async (query) => {
      await warm(query.text);
    });
    const one: number[] = [];
    const timings: ServerTiming[] = [];
    let cpuBefore = cpuOf(server.pid);
    let started = performance.now();
    for (let round = 0; round < rounds; round++) {
      for (const query of MIXED_QUERIES) {
        const t = performance.now();
        await request(agent, server.port, query.text, (header) => {
          if (header !== undefined) timings.push(parseServerTiming(header));
        });
        one.push(performance.now() - t);
      }
    }
    summarize('http 1', { samples: one, wallMs: performance.now() - started }, figures);
    if (timings.length === one.length) timingFigures(timings, one, figures);
    recordPerQuery('http 1', perQueryMedians(one), figures);
    let cpuAfter = cpuOf(server.pid);
    cpuFigures('http 1', cpuBefore, cpuAfter, one.length, figures);
    const total = rounds * MIXED_QUERIES.length * 2;
    const many: number[] = [];
    cpuBefore = cpuAfter;
    started = performance.now();
    await concurrently(total, async (query) => {
      const t = performance.now();
      await get(query.text);
      many.push(performance.now() - t);
    });
    summarize(`http ${connections}`, { samples: many, wallMs: performance.now() - started }, figures);
    cpuAfter = cpuOf(server.pid);
    cpuFigures(`http ${connections}`, cpuBefore, cpuAfter, many.length, figures);
    return answers;
  } finally {
    agent.destroy();
    await server.stop();
  }
}

/** A search's `Server-Timing` (milliseconds by metric: wait, hop, search, serialize, total). */
type ServerTiming = Map<string, number>;

function parseServerTiming(header: string): ServerTiming {
  const timing: ServerTiming = new Map();
  for (const metric of header.split(',')) {
    const [name, ...parameters] = metric.trim().split(';');
    const duration = parameters.find((p) => p.trim().startsWith('dur='));
    if (name !== undefined && duration !== undefined)
      timing.set(name, Number(duration.trim().slice('dur='.length)));
  }
  return timing;
}

/** The parts of a query's time the server names in its `Server-Timing`, besides `total`. */
const SERVER_PARTS = ['wait', 'hop', 'search', 'serialize'] as const;
/** The parts of a query's time through HTTP at 1 connection, in the order a query meets them. */
const TIME_PARTS = ['outside', ...SERVER_PARTS, 'handler'] as const;

/**
 * Where a query's time went at 1 connection, from each answer's `Server-Timing` and the
 * client's own measure of it: means per query (they add up to the client's mean), as
 * `timing <part>` figures. `outside` is what the client measured beyond the server's
 * `total` (the request read and routed before the router's clock starts, the answer written,
 * loopback TCP, the client's own parsing, and every wake-up between); `handler` is the
 * server's `total` beyond the parts it names (routing, authentication, the route's work).
 */
function timingFigures(
  timings: readonly ServerTiming[],
  clientMs: readonly number[],
  figures: Figures,
): void {
  const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const part = (name: string) => mean(timings.map((t) => t.get(name) ?? 0));
  const total = part('total');
  let named = 0;
  for (const name of SERVER_PARTS) named += figures[`timing ${name}`] = part(name);
  figures['timing client'] = mean(clientMs);
  figures['timing outside'] = figures['timing client'] - total;
  figures['timing handler'] = total - named;
}

/** What a server answered each query in its warm-up: the answer's {@link fingerprint} and byte length. */
interface ServerAnswers {
  fingerprints: Map<string, string>;
  bytes: Map<string, number>;
}

/**
 * The floor (`bench/lib/floor-server.ts`): a bare `node:http` server answering each request
 * from a worker thread, through the same client, one connection, each query of the set
 * answered with as many bytes as ours answered it. Two passes:
 * - `floor`: no work. What HTTP and a thread hop cost on this machine before any work.
 * - `floor work`: the worker first busy for the query's median time in the engine in this
 *   repeat (`engineTimes`). While a query works, the client and the event loop sleep, and
 *   on this VM a sleeping thread takes longer to wake the longer it slept (0.27 ms over the
 *   work with none, 0.66-0.84 ms with 3 ms of it, on 2026-11-28): the engine's work plus
 *   the floor without work understates what the engine's work through HTTP costs. No server
 *   answering from a thread does better than this pass.
 */
async function measureFloor(
  answerBytes: ReadonlyMap<string, number>,
  engineTimes: EngineTimes,
  figures: Figures,
): Promise<void> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./lib/floor-server.js', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolvePort, reject) => {
      child.stdout.once('data', (data: Buffer) => resolvePort(Number(data.toString().trim())));
      child.once('exit', (code) => reject(new Error(`the floor server exited with code ${code}`)));
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const pathOf = (text: string, workMs: number) =>
      `/?bytes=${answerBytes.get(text) ?? 0}&work=${workMs.toFixed(4)}`;
    const timedPass = async (paths: string[], prefix: string) => {
      const samples: number[] = [];
      const started = performance.now();
      for (let round = 0; round < rounds; round++)
        for (const path of paths) {
          const t = performance.now();
          await getBody(agent, port, path, 'floor');
          samples.push(performance.now() - t);
        }
      summarize(prefix, { samples, wallMs: performance.now() - started }, figures);
      recordPerQuery(prefix, perQueryMedians(samples), figures);
    };
    try {
      const idle = MIXED_QUERIES.map((q) => pathOf(q.text, 0));
      // Warmed up as much as ours is at 1 connection (its bursts are the same requests).
      for (let i = 0; i < 2 + warmUpBursts; i++)
        for (const path of idle) await getBody(agent, port, path, 'floor');
      await timedPass(idle, 'floor');
      const working = MIXED_QUERIES.map((q) => pathOf(q.text, engineTimes.get(q.text) ?? 0));
      for (let i = 0; i < warmUpRounds; i++)
        for (const path of working) await getBody(agent, port, path, 'floor');
      await timedPass(working, 'floor work');
    } finally {
      agent.destroy();
    }
  } finally {
    child.kill('SIGTERM');
  }
}

/** `total` requests of the query set in turn, `--connections` at a time. */
async function concurrently(total: number, send: (query: (typeof MIXED_QUERIES)[number]) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < total) await send(MIXED_QUERIES[next++ % MIXED_QUERIES.length]!);
    }),
  );
}

/** CPU seconds so far of a server: in all, its event loop, and each search thread by id. */
interface ServerCpu {
  total: number;
  main: number;
  search: Map<number, number>;
}

function cpuOf(pid: number): ServerCpu {
  const search = new Map<number, number>();
  let main = 0;
  for (const [tid, task] of readTaskCpu(pid)) {
    if (tid === pid) main = task.cpuSeconds;
    else if (task.name === THREAD_NAMES.search) search.set(tid, task.cpuSeconds);
  }
  return { total: readProcStats(pid).cpuSeconds, main, search };
}

/**
 * CPU ms per query between two readings: in all (`cpu`), on the event loop (`cpu main`), on
 * the search threads (`cpu search`), and the rest (`cpu other`: V8's compilers and garbage
 * collection helpers, libuv's pool); `cpu busiest` is the busiest search thread's share of
 * the search threads' time (1: one thread ran everything).
 */
function cpuFigures(
  prefix: string,
  before: ServerCpu,
  after: ServerCpu,
  queries: number,
  figures: Figures,
): void {
  const perQuery = (seconds: number) => (seconds * 1000) / queries;
  const threads = [...after.search].map(([tid, seconds]) => seconds - (before.search.get(tid) ?? 0));
  const search = threads.reduce((a, b) => a + b, 0);
  figures[`${prefix} cpu`] = perQuery(after.total - before.total);
  figures[`${prefix} cpu main`] = perQuery(after.main - before.main);
  figures[`${prefix} cpu search`] = perQuery(search);
  figures[`${prefix} cpu other`] = perQuery(after.total - before.total - (after.main - before.main) - search);
  figures[`${prefix} cpu busiest`] = search > 0 ? Math.max(...threads) / search : 0;
}

/**
 * `GET /s/search.json` for one query; resolves with the body, throws unless 200. `onTiming`
 * is given the answer's `Server-Timing` header (undefined: the server sent none).
 */
function request(
  agent: http.Agent,
  port: number,
  text: string,
  onTiming?: (header: string | undefined) => void,
): Promise<string> {
  const query = new URLSearchParams({ collection: COLLECTION, query: text, num_ranks: String(TOP) });
  return getBody(
    agent,
    port,
    `/s/search.json?${query.toString()}`,
    `search ${JSON.stringify(text)}`,
    onTiming,
  );
}

/** `GET path`; resolves with the body, throws unless 200 (`what` names the request). */
function getBody(
  agent: http.Agent,
  port: number,
  path: string,
  what: string,
  onTiming?: (header: string | undefined) => void,
): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      const timing = res.headers['server-timing'];
      onTiming?.(Array.isArray(timing) ? timing.join(', ') : timing);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200) resolveBody(body);
        else reject(new Error(`${what} answered ${res.statusCode}: ${body.slice(0, 300)}`));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** What two servers must answer alike: counts, spelling, and each result's key, score and summary. */
function fingerprint(body: string): string {
  const packet = (
    JSON.parse(body) as {
      response: {
        resultPacket: {
          resultsSummary: unknown;
          spell: unknown;
          results: { liveUrl: string; score: number; summary: string; title: string }[];
        };
      };
    }
  ).response.resultPacket;
  return JSON.stringify({
    summary: packet.resultsSummary,
    spell: packet.spell,
    results: packet.results.map((r) => [r.liveUrl, r.score, r.title, r.summary]),
  });
}

// ---------------------------------------------------------------------------------------
// The run

async function main(): Promise<void> {
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return;
  }
  const label = pagesWanted === undefined ? 'all' : String(pagesWanted);
  const home = resolve(
    values.home ?? join(repositoryRoot(), 'bench', 'results', 'tmp', `http-search-${label}`),
  );
  const marker = join(home, 'http-search-built.json');
  let built: Built;
  if (values.rebuild !== true && existsSync(marker)) {
    built = JSON.parse(readFileSync(marker, 'utf8')) as Built;
    console.log(`http-search: reusing the collection of ${built.pages} pages in ${home}`);
  } else {
    console.log(`http-search: building the collection in ${home}...`);
    built = await build(home);
  }
  const withFts5 = built.fts5 && values['no-fts5'] !== true && sqliteUnavailable() === undefined;
  const baseline = values['baseline-server'];
  const servers: { label: string; main: string | undefined }[] = [
    { label: 'ours', main: undefined },
    ...(baseline !== undefined ? [{ label: 'baseline', main: resolve(baseline) }] : []),
  ];
  console.log(
    `${built.pages} pages, ${MIXED_QUERIES.length} queries, ${rounds} rounds, ${repeats} repeats, ` +
      `${connections} connections; load average ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')} on ${availableParallelism()} cores`,
  );
  const perRepeat = new Map<string, Figures[]>();
  const add = (name: string, figures: Figures) =>
    perRepeat.set(name, [...(perRepeat.get(name) ?? []), figures]);
  let differing: string[] = [];
  for (let r = 1; r <= repeats; r++) {
    const inProcess: Figures = {};
    const engineTimes = await measureInProcess(home, inProcess);
    if (withFts5) measureFts5(home, inProcess);
    add('in-process', inProcess);
    const answers = new Map<string, ServerAnswers>();
    // The servers take turns, who goes first alternating with the repeat.
    const order = r % 2 === 1 ? servers : [...servers].reverse();
    for (const server of order) {
      const figures: Figures = {};
      answers.set(server.label, await measureServer(home, server.label, server.main, figures));
      add(server.label, figures);
    }
    await measureFloor(answers.get('ours')!.bytes, engineTimes, inProcess);
    if (baseline !== undefined) {
      const ours = answers.get('ours')!.fingerprints;
      const theirs = answers.get('baseline')!.fingerprints;
      differing = MIXED_QUERIES.map((q) => q.text).filter((text) => ours.get(text) !== theirs.get(text));
    }
    const o = perRepeat.get('ours')!.at(-1)!;
    console.log(
      `repeat ${r}: engine p50 ${formatMs(inProcess['engine p50']!)}, http p50 ${formatMs(o['http 1 p50']!)}, ` +
        `1 connection ${o['http 1 q/s']!.toFixed(0)} q/s, ${connections} connections ${o[`http ${connections} q/s`]!.toFixed(0)} q/s`,
    );
  }
  printResults(
    perRepeat,
    servers.map((s) => s.label),
    withFts5,
  );
  if (baseline !== undefined) {
    console.log(
      differing.length === 0
        ? `answers: all ${MIXED_QUERIES.length} queries answered alike by ours and the baseline (counts, spelling, keys, scores, titles, summaries)`
        : `answers: ${differing.length} of ${MIXED_QUERIES.length} queries answered differently from the baseline: ${differing.join(' | ')}`,
    );
  }
  console.log(
    `load average at the end ${loadavg()
      .map((n) => n.toFixed(1))
      .join(
        ' ',
      )} on ${availableParallelism()} cores (the machine is shared: compare figures of one run only)`,
  );
}

function printResults(perRepeat: Map<string, Figures[]>, servers: string[], withFts5: boolean): void {
  const med = (name: string, figure: string): number => median(perRepeat.get(name)!.map((f) => f[figure]!));
  const ms = (v: number) => formatMs(v);
  const qps = (v: number) => v.toFixed(0);
  const rows: TableRow[] = [];
  const row = (what: string, p50: number, p90: number, p99: number, q1: number, qN?: number, p50N?: number) =>
    rows.push({
      what,
      p50: ms(p50),
      p90: ms(p90),
      p99: ms(p99),
      'q/s (1)': qps(q1),
      [`q/s (${connections})`]: qN === undefined ? '' : qps(qN),
      [`p50 (${connections})`]: p50N === undefined ? '' : ms(p50N),
    });
  const fig = (name: string, prefix: string) =>
    [`${prefix} p50`, `${prefix} p90`, `${prefix} p99`, `${prefix} q/s`].map((f) => med(name, f)) as [
      number,
      number,
      number,
      number,
    ];
  row('engine in-process (executeQuery only)', ...fig('in-process', 'engine'));
  row('query processor in-process (SearchService)', ...fig('in-process', 'service'));
  for (const server of servers) {
    const [p50, p90, p99, q1] = fig(server, 'http 1');
    row(
      `${server === 'ours' ? 'ours' : 'baseline'} through HTTP /s/search.json`,
      p50,
      p90,
      p99,
      q1,
      med(server, `http ${connections} q/s`),
      med(server, `http ${connections} p50`),
    );
  }
  if (withFts5) row('SQLite FTS5 in-process (top 10 + count)', ...fig('in-process', 'fts5'));
  row(
    'floor: bare node:http + a worker thread, no work (same client, same sizes)',
    ...fig('in-process', 'floor'),
  );
  row(
    "floor busy for each query's engine median (same client, same sizes)",
    ...fig('in-process', 'floor work'),
  );
  rows.push({
    what: 'C++ reference of the issue (own protocol, ids only)',
    p50: ms(REFERENCE.p50),
    p90: ms(REFERENCE.p90),
    p99: ms(REFERENCE.p99),
    'q/s (1)': qps(REFERENCE.qps1),
    [`q/s (${connections})`]: `${qps(REFERENCE.qps8)} (8)`,
    [`p50 (${connections})`]: `${ms(REFERENCE.p50At8)} (8)`,
  });
  console.log(`\nmedians of ${perRepeat.get('ours')!.length} repeats:`);
  printTable(rows);
  const targets: TableRow[] = [];
  for (const server of servers) {
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    targets.push({
      server,
      'HTTP p50 / engine p50 (target <= 1.2x)': ratio(
        med(server, 'http 1 p50'),
        med('in-process', 'engine p50'),
      ),
      'HTTP p99 / engine p99 (target <= 1.2x)': ratio(
        med(server, 'http 1 p99'),
        med('in-process', 'engine p99'),
      ),
      [`q/s ${connections} conn / 1 conn (target >= 1.8x)`]: ratio(
        med(server, `http ${connections} q/s`),
        med(server, 'http 1 q/s'),
      ),
      'HTTP p50 / C++ p50': ratio(med(server, 'http 1 p50'), REFERENCE.p50),
    });
  }
  console.log('');
  printTable(targets);
  // What the floor leaves of the targets: a server built on node:http and a worker thread
  // answers no faster than the engine's work plus the floor, and the floor grows with the work.
  {
    const engine = med('in-process', 'engine p50');
    const floor = med('in-process', 'floor p50');
    const ratio = (figure: string) =>
      `${(med('in-process', `floor work ${figure}`) / med('in-process', `engine ${figure}`)).toFixed(2)}x`;
    console.log(
      `\nfloor p50 ${formatMs(floor)} (HTTP and one thread hop, no work): the engine's p50 plus it is ` +
        `${((engine + floor) / engine).toFixed(2)}x the engine's p50; the 1.2x target leaves ${formatMs(0.2 * engine)} above the engine\n` +
        `floor busy for each query's engine median / engine: p50 ${ratio('p50')}, p99 ${ratio('p99')} ` +
        `(what a server adding nothing to the engine's work would score against the 1.2x targets here)`,
    );
  }
  // Less sensitive to a loaded machine than latencies: what the server process spent.
  const cpu: TableRow[] = [];
  for (const server of servers)
    for (const prefix of ['http 1', `http ${connections}`]) {
      const f = (what: string) => med(server, `${prefix} ${what}`).toFixed(2);
      cpu.push({
        server,
        connections: prefix.slice('http '.length),
        'CPU ms/query': f('cpu'),
        'event loop': f('cpu main'),
        'search threads': f('cpu search'),
        'other threads': f('cpu other'),
        'busiest search thread share': f('cpu busiest'),
      });
    }
  console.log('\nserver CPU time per query (user + system, from /proc; medians):');
  printTable(cpu);
  const timed = servers.filter((server) =>
    perRepeat.get(server)!.every((f) => f['timing client'] !== undefined),
  );
  if (timed.length > 0) {
    console.log(
      '\nwhere a query spends its time at 1 connection (Server-Timing; ms per query, means, medians of the repeats):',
    );
    printTable(
      timed.map((server) => ({
        server,
        'client measured': med(server, 'timing client').toFixed(3),
        ...Object.fromEntries(TIME_PARTS.map((part) => [part, med(server, `timing ${part}`).toFixed(3)])),
      })),
    );
    console.log(
      "(outside: beyond the server's total: the request read and routed, the answer written, loopback TCP, the client, the wake-ups; " +
        'handler: the rest of total: routing, authentication, the route)',
    );
  }
  if (values['per-query'] === true) printPerQuery(med, servers);
}

/**
 * `--per-query`: each query's median (over its rounds, then over the repeats) in the engine,
 * the query processor in-process, through HTTP at 1 connection and on the floor busy for its
 * engine time, slowest in the engine first: which queries the time above the engine goes to.
 */
function printPerQuery(med: (name: string, figure: string) => number, servers: string[]): void {
  const rows = MIXED_QUERIES.map((query, i) => {
    const engine = med('in-process', `query ${i} engine`);
    const row: TableRow = {
      query: query.text.length > 40 ? `${query.text.slice(0, 39)}…` : query.text,
      engine: formatMs(engine),
      service: formatMs(med('in-process', `query ${i} service`)),
      'floor busy': formatMs(med('in-process', `query ${i} floor work`)),
    };
    for (const server of servers) {
      const http = med(server, `query ${i} http 1`);
      row[`${server} HTTP`] = formatMs(http);
      row[`${server} / engine`] = `${(http / engine).toFixed(2)}x`;
    }
    return { engine, row };
  });
  rows.sort((a, b) => b.engine - a.engine);
  console.log('\neach query at 1 connection (medians; slowest in the engine first):');
  printTable(rows.map((r) => r.row));
}

await main();
