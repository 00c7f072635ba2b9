/**
 * The engine benchmark: our index engine and SQLite FTS5 doing the same work on the RFC
 * corpus, in the same run, each in its own child process (so RSS is each engine's own).
 *
 *   npx tsc -p tsconfig.json && node dist/bench/engine.js [--limit N] [--runs N] [--engines ours,fts5] [--stem] [--per-query] [--report PATH]
 *
 * For each engine, one after the other: index the corpus as a stream (docs/s, including
 * reading it), commit, wait for background merges; the latency of committing 1,000 new pages
 * into the full index. Then, with both indexes open, query latency (median and p99 over runs,
 * top 10) per query class, the two engines taking turns query by query (half of each query's
 * runs, the other engine, the other half), so that both are timed in the same minutes: on
 * this shared machine memory speed changes from minute to minute, and timing one engine's
 * queries after the other's made the ratios move by a third between runs. Last, RSS after a
 * GC with the index open, disk size, and the CPU time of indexing (every thread of the
 * process: what decides docs/s when other processes keep the cores busy). Ratios are FTS5 /
 * ours (above 1: ours is better). `--per-query` also prints each query's medians and ratio: a
 * class median is one number, and which queries sit below it is where the work is.
 *
 * Each query is timed as two tasks, the two engines doing the same work in each (see
 * {@link QueryTask}): the top 10 alone, and the top 10 with the number of matches.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SearchIndex } from '../src/index/search-index.js';
import { createAnalyzer } from '../src/index/analysis/create-analyzer.js';
import { DEFAULT_ANALYZER } from '../src/index/schema.js';
import { DEFAULT_TOTAL_HITS_THRESHOLD, executeQuery } from '../src/query/execute-query.js';
import type { Query } from '../src/query/query-tree.js';
import { Fts5Peer } from './lib/fts5-peer.js';
import {
  dirSize,
  formatBytes,
  formatMs,
  median,
  percentile,
  printTable,
  sampleTimes,
  writeMarkdownReport,
} from './lib/measure.js';
import { QUERY_CLASSES, QUERY_SET, queryLabel, type BenchQuery, type QueryClass } from './lib/query-set.js';
import {
  corpusAvailable,
  corpusMissingMessage,
  readRfcCorpusBatches,
  repositoryRoot,
  type RfcPage,
} from './lib/rfc-corpus.js';

/** What a child measures on its own: everything but the query latencies. */
interface EngineBuild {
  engine: string;
  docs: number;
  indexMs: number;
  /** CPU time of the whole process (every thread, user + system) while indexing, ms. */
  indexCpuMs: number;
  mergeSettleMs: number;
  commitMs: number[];
  rssBytes: number;
  diskBytes: number;
}

/**
 * What a query is asked, the same of both engines:
 * - `top10`: the 10 best pages by BM25, nothing more (FTS5: `ORDER BY bm25 LIMIT 10`, the
 *   statement its reference numbers are quoted for). Ours counts matches only as far as the
 *   top 10 needs (`totalHitsThreshold` = k), as FTS5's statement counts none.
 * - `counted`: the top 10 and the number of matching pages, exact up to 1,000 (what a results
 *   page shows; our engine's default). FTS5 runs the same top-10 statement, then counts the
 *   matches up to 1,001 (its scan stops there, as our counting does past 1,000).
 * Timing ours with the count against FTS5 without it would time more work on our side.
 */
type QueryTask = 'top10' | 'counted';
const QUERY_TASKS: readonly QueryTask[] = ['top10', 'counted'];
const TASK_LABEL: Record<QueryTask, string> = { top10: 'top 10', counted: 'top 10 + count' };
/** Hits per query, on both engines. */
const TOP_K = 10;
/** Matches counted exactly, in the `counted` task (our engine's default threshold). */
const COUNTED_UP_TO = DEFAULT_TOTAL_HITS_THRESHOLD;

type ClassLatencies = Record<QueryClass, { median: number; p99: number }>;

interface EngineResult extends EngineBuild {
  queries: Record<QueryTask, ClassLatencies>;
}

/** Per task, per query (QUERY_SET order): the timed runs of one engine. */
type TaskSamples = Record<QueryTask, number[][]>;

/** An engine with its index built and open, serving the parent's query rounds (see child()). */
interface OpenEngine {
  runQuery(index: number, task: QueryTask): void;
  /** Measures RSS and disk and closes the index (the child then deletes its folder). */
  finish(): Promise<EngineBuild>;
}

/** Parent → child messages; the child answers each with one {@link ChildReply}. */
type ChildCommand =
  | { cmd: 'warm' }
  | { cmd: 'sample'; query: number; task: QueryTask; runs: number; warmups: number }
  | { cmd: 'finish' };
type ChildReply =
  | { type: 'ready' }
  | { type: 'done' }
  | { type: 'samples'; samples: number[] }
  | { type: 'result'; result: EngineBuild }
  /** Not sent by a child: what a question gets when the child ended without answering. */
  | { type: 'exited'; code: number | null };

const COMMIT_PAGES = 1000;

const { values } = parseArgs({
  options: {
    limit: { type: 'string' },
    runs: { type: 'string', default: '20' },
    engines: { type: 'string', default: 'ours,fts5' },
    child: { type: 'string' },
    dir: { type: 'string' },
    report: { type: 'string' },
    'commit-every': { type: 'string', default: '25000' },
    // FTS5's unicode61 tokenizer does not stem: by default ours does not either (the same work).
    stem: { type: 'boolean', default: false },
    'per-query': { type: 'boolean', default: false },
  },
});
const analyzerOptions = { ...DEFAULT_ANALYZER, stem: values.stem === true };
const limit = values.limit === undefined ? undefined : Number(values.limit);
const runs = Number(values.runs);

function commitPages(round: number): RfcPage[] {
  return Array.from({ length: COMMIT_PAGES }, (_, i) => ({
    key: `https://rfc.example.org/bench-commit/${round}/${i}`,
    rfc: 0,
    page: i,
    title: `Benchmark commit page ${i}`,
    text: `congestion window protocol retransmission timer round ${round} page ${i} of the commit latency benchmark`,
  }));
}

function ourQuery(query: BenchQuery): Query {
  const analyzer = createAnalyzer(analyzerOptions);
  const terms = query.terms.flatMap((t) => analyzer.terms(t));
  switch (query.class) {
    case 'phrase':
      return { kind: 'phrase', terms };
    case 'or':
      return { kind: 'bool', should: terms.map((term) => ({ kind: 'term', term })) };
    default:
      return terms.length === 1
        ? { kind: 'term', term: terms[0]! }
        : { kind: 'bool', must: terms.map((term) => ({ kind: 'term', term })) };
  }
}

/**
 * Runs the whole query set a few times before any is timed, for both engines: the first
 * queries of a process otherwise time V8 compiling and optimising the query code (the first
 * runs of the first query, "the", took 10-70 ms of CPU, and a few stayed slow after its two
 * warm-up runs: the p99 of its class measured that, not a serving process). Each query still
 * gets its own warm-up runs in `sampleTimes`.
 */
function warmUp(runQuerySet: () => void): void {
  for (let i = 0; i < 3; i++) runQuerySet();
}

/** Per class, the median and p99 of its queries' samples taken together (`times[q]`: query q's). */
function summarize(times: readonly number[][]): ClassLatencies {
  const out = {} as ClassLatencies;
  for (const queryClass of QUERY_CLASSES) {
    const list = QUERY_SET.flatMap((query, q) => (query.class === queryClass ? times[q]! : []));
    out[queryClass] = { median: median(list), p99: percentile(list, 99) };
  }
  return out;
}

/** `a / b` as a ratio for the tables ('' when either is missing). */
function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined || b === 0 ? '' : `${(a / b).toFixed(2)}x`;
}

/** Microseconds of user + system time (every thread of the process: getrusage RUSAGE_SELF) in ms. */
function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

function gcRss(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}

async function openOurs(dir: string): Promise<OpenEngine> {
  rmSync(dir, { recursive: true, force: true });
  const commitEvery = Number(values['commit-every']);
  const index = await SearchIndex.open({
    directory: dir,
    mergeThreads: 1,
    indexThreads: 2,
    schema: { defaultAnalyzer: analyzerOptions },
  });
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let docs = 0;
  for await (const batch of readRfcCorpusBatches({ ...(limit !== undefined ? { limit } : {}) })) {
    for (const page of batch) {
      index.put({
        key: page.key,
        fields: { body: page.text, t: page.title },
        stored: { title: page.title, text: page.text },
      });
      if (++docs % commitEvery === 0) await index.commit();
    }
    await index.ready();
  }
  await index.commit();
  const indexMs = performance.now() - started;
  const indexCpuMs = cpuMs(process.cpuUsage(cpuStarted));
  await index.waitForMerges();
  const mergeSettleMs = performance.now() - started - indexMs;
  const commitMs: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const page of commitPages(round)) {
      index.put({
        key: page.key,
        fields: { body: page.text, t: page.title },
        stored: { title: page.title, text: page.text },
      });
    }
    const t = performance.now();
    await index.commit();
    commitMs.push(performance.now() - t);
  }
  await index.waitForMerges();
  const searcher = index.acquireSearcher();
  const trees = QUERY_SET.map(ourQuery);
  return {
    runQuery: (i, task) =>
      executeQuery(searcher.generations, trees[i]!, {
        k: TOP_K,
        totalHitsThreshold: task === 'top10' ? TOP_K : COUNTED_UP_TO,
      }),
    finish: async () => {
      searcher.release();
      const rssBytes = gcRss();
      const diskBytes = dirSize(dir);
      await index.close();
      return { engine: 'ours', docs, indexMs, indexCpuMs, mergeSettleMs, commitMs, rssBytes, diskBytes };
    },
  };
}

async function openFts5(dir: string): Promise<OpenEngine> {
  const peer = Fts5Peer.create(dir);
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let docs = 0;
  async function* pages(): AsyncGenerator<RfcPage> {
    for await (const batch of readRfcCorpusBatches({ ...(limit !== undefined ? { limit } : {}) })) {
      for (const page of batch) {
        docs++;
        yield page;
      }
    }
  }
  await peer.index(pages(), 1000);
  const indexMs = performance.now() - started;
  const indexCpuMs = cpuMs(process.cpuUsage(cpuStarted));
  const commitMs: number[] = [];
  for (let round = 0; round < 5; round++) commitMs.push(peer.commitLatency(commitPages(round)));
  return {
    runQuery: (i, task) => {
      peer.search(QUERY_SET[i]!, TOP_K);
      if (task === 'counted') peer.countUpTo(QUERY_SET[i]!, COUNTED_UP_TO + 1);
    },
    finish: async () => {
      const rssBytes = gcRss();
      const diskBytes = peer.diskBytes();
      peer.close();
      return { engine: 'fts5', docs, indexMs, indexCpuMs, mergeSettleMs: 0, commitMs, rssBytes, diskBytes };
    },
  };
}

/**
 * A child process: builds one engine's index, says 'ready', then runs the parent's commands
 * (warm-up, timed runs of one query, finish) until 'finish'.
 */
async function child(engine: string): Promise<void> {
  const dir = values.dir ?? join(repositoryRoot(), 'bench', 'results', 'tmp', `engine-${engine}`);
  const open = engine === 'ours' ? await openOurs(dir) : await openFts5(dir);
  const reply = (message: ChildReply) => process.send!(message);
  process.on('message', (command: ChildCommand) => {
    if (command.cmd === 'warm') {
      warmUp(() => QUERY_SET.forEach((_, i) => QUERY_TASKS.forEach((task) => open.runQuery(i, task))));
      reply({ type: 'done' });
    } else if (command.cmd === 'sample') {
      reply({
        type: 'samples',
        samples: sampleTimes(() => open.runQuery(command.query, command.task), command.runs, command.warmups),
      });
    } else {
      void open.finish().then((result) => {
        rmSync(dir, { recursive: true, force: true });
        reply({ type: 'result', result });
        process.disconnect();
      });
    }
  });
  reply({ type: 'ready' });
}

/** A child process and a way to send it a command and wait for its answer. */
interface EngineChild {
  engine: string;
  ask(command: ChildCommand): Promise<ChildReply>;
}

/** Starts a child for `engine` and waits until its index is built (null: it failed, reported). */
function startChild(engine: string): Promise<EngineChild | null> {
  const args = ['--child', engine, '--commit-every', values['commit-every']!];
  if (limit !== undefined) args.push('--limit', String(limit));
  if (values.stem === true) args.push('--stem');
  const process_: ChildProcess = fork(fileURLToPath(import.meta.url), args, {
    execArgv: ['--expose-gc', '--max-old-space-size=4096'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let pending: ((reply: ChildReply) => void) | undefined;
  process_.on('message', (reply: ChildReply) => {
    const resolveReply = pending;
    pending = undefined;
    resolveReply?.(reply);
  });
  const ask = (command: ChildCommand) =>
    new Promise<ChildReply>((resolveReply) => {
      pending = resolveReply;
      process_.send(command);
    });
  process_.once('exit', (code) => {
    const resolveReply = pending;
    pending = undefined;
    resolveReply?.({ type: 'exited', code });
  });
  return new Promise((resolveChild) => {
    pending = (reply) => {
      if (reply.type === 'ready') {
        resolveChild({ engine, ask });
        return;
      }
      console.error(
        `${engine} failed while building its index (${reply.type === 'exited' ? `exit ${reply.code}` : reply.type})`,
      );
      process.exitCode = 1;
      resolveChild(null);
    };
  });
}

async function parent(): Promise<void> {
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return;
  }
  // Built one after the other: each engine indexes with the machine to itself.
  const children: EngineChild[] = [];
  for (const engine of values.engines!.split(',')) {
    console.log(`building ${engine}...`);
    const started = await startChild(engine);
    if (started !== null) children.push(started);
  }
  console.log(`querying (${children.map((c) => c.engine).join(' and ')} taking turns)...`);
  for (const engineChild of children) await engineChild.ask({ cmd: 'warm' });
  // Per engine, per task, per query: its timed runs.
  const samples = new Map<string, TaskSamples>(
    children.map((c) => [c.engine, { top10: QUERY_SET.map(() => []), counted: QUERY_SET.map(() => []) }]),
  );
  for (let q = 0; q < QUERY_SET.length; q++) {
    for (const task of QUERY_TASKS) {
      // Two halves per query, the engines in turn, who goes first alternating with the query.
      for (let half = 0; half < 2; half++) {
        const order = (q + half) % 2 === 0 ? children : [...children].reverse();
        for (const engineChild of order) {
          const reply = await engineChild.ask({
            cmd: 'sample',
            query: q,
            task,
            runs: half === 0 ? Math.ceil(runs / 2) : Math.floor(runs / 2),
            warmups: half === 0 ? 2 : 0,
          });
          if (reply.type !== 'samples')
            throw new Error(`${engineChild.engine} answered ${reply.type} to a query`);
          samples.get(engineChild.engine)![task][q]!.push(...reply.samples);
        }
      }
    }
  }
  const results: EngineResult[] = [];
  for (const engineChild of children) {
    const reply = await engineChild.ask({ cmd: 'finish' });
    if (reply.type !== 'result') throw new Error(`${engineChild.engine} answered ${reply.type} to finish`);
    const taskSamples = samples.get(engineChild.engine)!;
    results.push({
      ...reply.result,
      queries: { top10: summarize(taskSamples.top10), counted: summarize(taskSamples.counted) },
    });
  }
  const ours = results.find((r) => r.engine === 'ours');
  const peer = results.find((r) => r.engine === 'fts5');
  const rows: Record<string, string | number>[] = [];
  const metric = (
    name: string,
    get: (r: EngineResult) => number,
    format: (v: number) => string,
    higherIsBetter = false,
  ) => {
    const o = ours === undefined ? undefined : get(ours);
    const p = peer === undefined ? undefined : get(peer);
    rows.push({
      metric: name,
      ours: o === undefined ? '-' : format(o),
      fts5: p === undefined ? '-' : format(p),
      'fts5/ours': higherIsBetter ? ratio(o, p) : ratio(p, o),
    });
  };
  metric(
    'documents',
    (r) => r.docs,
    (v) => String(v),
  );
  metric(
    'index docs/s',
    (r) => (r.docs / r.indexMs) * 1000,
    (v) => v.toFixed(0),
    true,
  );
  // CPU time decides docs/s when other processes keep the cores busy.
  metric('index CPU (all threads)', (r) => r.indexCpuMs, formatMs);
  metric('index CPU per 1,000 docs', (r) => (r.indexCpuMs / r.docs) * 1000, formatMs);
  metric('merges settle after', (r) => r.mergeSettleMs, formatMs);
  metric('commit 1,000 docs (median)', (r) => median(r.commitMs), formatMs);
  for (const task of QUERY_TASKS) {
    for (const queryClass of QUERY_CLASSES) {
      metric(
        `${queryClass} median (${TASK_LABEL[task]})`,
        (r) => r.queries[task][queryClass].median,
        formatMs,
      );
      metric(`${queryClass} p99 (${TASK_LABEL[task]})`, (r) => r.queries[task][queryClass].p99, formatMs);
    }
  }
  metric('RSS (index open)', (r) => r.rssBytes, formatBytes);
  metric('disk', (r) => r.diskBytes, formatBytes);
  printTable(rows);
  const queryRows = values['per-query'] === true ? perQueryRows(samples) : [];
  if (queryRows.length > 0) printTable(queryRows);
  if (values.report !== undefined) {
    writeMarkdownReport(resolve(values.report), {
      title: 'Engine benchmark: pushsearch vs SQLite FTS5 (RFC corpus)',
      sections: [
        { heading: 'Results', rows },
        ...(queryRows.length > 0 ? [{ heading: 'Per query', rows: queryRows }] : []),
      ],
    });
  }
}

/** One row per query: per task, each engine's median over its runs and FTS5 / ours. */
function perQueryRows(samples: Map<string, TaskSamples>): Record<string, string>[] {
  const ours = samples.get('ours');
  const fts5 = samples.get('fts5');
  return QUERY_SET.map((query, q) => {
    const row: Record<string, string> = { class: query.class, query: queryLabel(query) };
    for (const task of QUERY_TASKS) {
      const o = ours === undefined ? undefined : median(ours[task][q]!);
      const p = fts5 === undefined ? undefined : median(fts5[task][q]!);
      const label = TASK_LABEL[task];
      row[`ours, ${label}`] = o === undefined ? '-' : formatMs(o);
      row[`fts5, ${label}`] = p === undefined ? '-' : formatMs(p);
      row[`fts5/ours, ${label}`] = ratio(p, o);
    }
    return row;
  });
}

if (values.child !== undefined) await child(values.child);
else await parent();
