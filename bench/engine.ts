/**
 * The engine benchmark: our index engine and SQLite FTS5 doing the same work on the RFC
 * corpus, in the same run, each in its own child process (so RSS is each engine's own).
 *
 *   npx tsc -p tsconfig.json && node dist/bench/engine.js [--limit N] [--runs N] [--engines ours,fts5] [--stem] [--report PATH]
 *
 * For each engine: index the corpus as a stream (docs/s, including reading it), commit, wait
 * for background merges; the latency of committing 1,000 new pages into the full index;
 * query latency (median and p99 over runs, top 10) per query class; RSS after a GC with the
 * index open; disk size; the CPU time of indexing (every thread of the process: what decides
 * docs/s when other processes keep the cores busy). Ratios are FTS5 / ours (above 1: ours is better).
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SearchIndex } from '../src/index/search-index.js';
import { createAnalyzer } from '../src/index/analysis/create-analyzer.js';
import { DEFAULT_ANALYZER } from '../src/index/schema.js';
import { executeQuery } from '../src/query/execute-query.js';
import type { Query } from '../src/query/query-tree.js';
import { Fts5Peer } from './lib/fts5-peer.js';
import { dirSize, formatBytes, formatMs, median, percentile, printTable, sampleTimes, writeMarkdownReport } from './lib/measure.js';
import { QUERY_CLASSES, QUERY_SET, type BenchQuery, type QueryClass } from './lib/query-set.js';
import { corpusAvailable, corpusMissingMessage, readRfcCorpusBatches, repositoryRoot, type RfcPage } from './lib/rfc-corpus.js';

interface EngineResult {
  engine: string;
  docs: number;
  indexMs: number;
  /** CPU time of the whole process (every thread, user + system) while indexing, ms. */
  indexCpuMs: number;
  mergeSettleMs: number;
  commitMs: number[];
  queries: Record<QueryClass, { median: number; p99: number }>;
  rssBytes: number;
  diskBytes: number;
}

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
      return terms.length === 1 ? { kind: 'term', term: terms[0]! } : { kind: 'bool', must: terms.map((term) => ({ kind: 'term', term })) };
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

function summarize(times: Map<QueryClass, number[]>): EngineResult['queries'] {
  const out = {} as EngineResult['queries'];
  for (const queryClass of QUERY_CLASSES) {
    const list = times.get(queryClass) ?? [];
    out[queryClass] = { median: median(list), p99: percentile(list, 99) };
  }
  return out;
}

/** Microseconds of user + system time (every thread of the process: getrusage RUSAGE_SELF) in ms. */
function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

function gcRss(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}

async function runOurs(dir: string): Promise<EngineResult> {
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
      index.put({ key: page.key, fields: { body: page.text, t: page.title }, stored: { title: page.title, text: page.text } });
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
      index.put({ key: page.key, fields: { body: page.text, t: page.title }, stored: { title: page.title, text: page.text } });
    }
    const t = performance.now();
    await index.commit();
    commitMs.push(performance.now() - t);
  }
  await index.waitForMerges();
  const times = new Map<QueryClass, number[]>();
  const searcher = index.acquireSearcher();
  const trees = QUERY_SET.map(ourQuery);
  warmUp(() => trees.forEach((tree) => executeQuery(searcher.generations, tree, { k: 10 })));
  for (const query of QUERY_SET) {
    const tree = ourQuery(query);
    const samples = sampleTimes(() => executeQuery(searcher.generations, tree, { k: 10 }), runs);
    times.set(query.class, [...(times.get(query.class) ?? []), ...samples]);
  }
  searcher.release();
  const rssBytes = gcRss();
  await index.close();
  return { engine: 'ours', docs, indexMs, indexCpuMs, mergeSettleMs, commitMs, queries: summarize(times), rssBytes, diskBytes: dirSize(dir) };
}

async function runFts5(dir: string): Promise<EngineResult> {
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
  const times = new Map<QueryClass, number[]>();
  warmUp(() => QUERY_SET.forEach((query) => peer.search(query, 10)));
  for (const query of QUERY_SET) {
    const samples = sampleTimes(() => peer.search(query, 10), runs);
    times.set(query.class, [...(times.get(query.class) ?? []), ...samples]);
  }
  const rssBytes = gcRss();
  const diskBytes = peer.diskBytes();
  peer.close();
  return { engine: 'fts5', docs, indexMs, indexCpuMs, mergeSettleMs: 0, commitMs, queries: summarize(times), rssBytes, diskBytes };
}

async function child(engine: string): Promise<void> {
  const dir = values.dir ?? join(repositoryRoot(), 'bench', 'results', 'tmp', `engine-${engine}`);
  const result = engine === 'ours' ? await runOurs(dir) : await runFts5(dir);
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

function parent(): void {
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return;
  }
  const results: EngineResult[] = [];
  for (const engine of values.engines!.split(',')) {
    console.log(`running ${engine}...`);
    const args = ['--expose-gc', '--max-old-space-size=4096', fileURLToPath(import.meta.url), '--child', engine, '--runs', String(runs)];
    if (limit !== undefined) args.push('--limit', String(limit));
    if (values.stem === true) args.push('--stem');
    args.push('--commit-every', values['commit-every']!);
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
    const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (line === undefined) {
      console.error(`${engine} failed (exit ${run.status}):\n${run.stdout}`);
      process.exitCode = 1;
      continue;
    }
    results.push(JSON.parse(line.slice(7)) as EngineResult);
  }
  const ours = results.find((r) => r.engine === 'ours');
  const peer = results.find((r) => r.engine === 'fts5');
  const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || b === 0 ? '' : `${(a / b).toFixed(2)}x`);
  const rows: Record<string, string | number>[] = [];
  const metric = (name: string, get: (r: EngineResult) => number, format: (v: number) => string, higherIsBetter = false) => {
    const o = ours === undefined ? undefined : get(ours);
    const p = peer === undefined ? undefined : get(peer);
    rows.push({
      metric: name,
      ours: o === undefined ? '-' : format(o),
      fts5: p === undefined ? '-' : format(p),
      'fts5/ours': higherIsBetter ? ratio(o, p) : ratio(p, o),
    });
  };
  metric('documents', (r) => r.docs, (v) => String(v));
  metric('index docs/s', (r) => (r.docs / r.indexMs) * 1000, (v) => v.toFixed(0), true);
  // CPU time decides docs/s when other processes keep the cores busy.
  metric('index CPU (all threads)', (r) => r.indexCpuMs, formatMs);
  metric('index CPU per 1,000 docs', (r) => (r.indexCpuMs / r.docs) * 1000, formatMs);
  metric('merges settle after', (r) => r.mergeSettleMs, formatMs);
  metric('commit 1,000 docs (median)', (r) => median(r.commitMs), formatMs);
  for (const queryClass of QUERY_CLASSES) {
    metric(`${queryClass} median`, (r) => r.queries[queryClass].median, formatMs);
    metric(`${queryClass} p99`, (r) => r.queries[queryClass].p99, formatMs);
  }
  metric('RSS (index open)', (r) => r.rssBytes, formatBytes);
  metric('disk', (r) => r.diskBytes, formatBytes);
  printTable(rows);
  if (values.report !== undefined) {
    writeMarkdownReport(resolve(values.report), {
      title: 'Engine benchmark: pushsearch vs SQLite FTS5 (RFC corpus)',
      sections: [{ heading: 'Results', rows }],
    });
  }
}

if (values.child !== undefined) await child(values.child);
else parent();
