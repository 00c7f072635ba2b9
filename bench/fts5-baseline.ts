/**
 * The FTS5 baseline: SQLite FTS5 alone on the RFC corpus, the numbers our engine must beat.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/fts5-baseline.js [options]
 *
 * Options:
 *   --limit N        index only the first N pages (default: all 209,738)
 *   --batch N        pages per transaction while loading (default 1000)
 *   --in-memory      parse the corpus into memory first, so that docs/s is indexing alone
 *                    (default: stream it, as a real load would; the read rate is printed apart)
 *   --runs N         timed runs per query (default 20), after --warmups N (default 2)
 *   --commit-rounds N  rounds of the 1,000-page commit (default 5)
 *   --optimize       afterwards merge FTS5's b-trees into one and measure the queries again
 *   --dir PATH       folder of the index (default bench/results/tmp/fts5-baseline)
 *   --keep           keep the index folder (default: deleted at the end)
 *   --report PATH    also write the results as Markdown
 *
 * Query latency: top 10 by weighted bm25 through better-sqlite3, one query at a time; p99 is
 * the nearest rank, so with 20 runs per query it is close to the slowest run of the class.
 */
import { rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Fts5Peer } from './lib/fts5-peer.js';
import {
  type TableRow,
  formatBytes,
  formatCount,
  formatMs,
  median,
  peakRss,
  percentile,
  printTable,
  type WallAndCpuSamples,
  cpuTimeMs,
  sampleRss,
  sampleWallAndCpu,
  writeMarkdownReport,
} from './lib/measure.js';
import { type BenchQuery, QUERY_CLASSES, QUERY_SET, queryLabel } from './lib/query-set.js';
import {
  type RfcPage,
  corpusAvailable,
  corpusMissingMessage,
  corpusPath,
  loadRfcCorpusIntoMemory,
  readRfcCorpus,
  readRfcCorpusBatches,
  repositoryRoot,
} from './lib/rfc-corpus.js';

const COMMIT_PAGES = 1000;

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${name} must be a positive integer, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return value;
}

const { values: args } = parseArgs({
  options: {
    limit: { type: 'string' },
    batch: { type: 'string' },
    'in-memory': { type: 'boolean', default: false },
    runs: { type: 'string' },
    warmups: { type: 'string' },
    'commit-rounds': { type: 'string' },
    optimize: { type: 'boolean', default: false },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
    report: { type: 'string' },
  },
});
const limit = args.limit === undefined ? undefined : positiveInt('limit', args.limit, 0);
const batch = positiveInt('batch', args.batch, 1000);
const runs = positiveInt('runs', args.runs, 20);
const warmups = args.warmups === '0' ? 0 : positiveInt('warmups', args.warmups, 2);
const commitRounds = positiveInt('commit-rounds', args['commit-rounds'], 5);
const folder = resolve(args.dir ?? join(repositoryRoot(), 'bench', 'results', 'tmp', 'fts5-baseline'));

/** Measures every query; returns the per-query rows and the per-class summary rows. */
function measureQueries(peer: Fts5Peer): { perQuery: TableRow[]; perClass: TableRow[] } {
  const samplesByClass = new Map<string, WallAndCpuSamples>();
  const perQuery: TableRow[] = [];
  for (const query of QUERY_SET) {
    const { wallMs, cpuMs } = sampleWallAndCpu(() => peer.search(query, 10), runs, warmups);
    const all = samplesByClass.get(query.class) ?? { wallMs: [], cpuMs: [] };
    all.wallMs.push(...wallMs);
    all.cpuMs.push(...cpuMs);
    samplesByClass.set(query.class, all);
    perQuery.push({
      class: query.class,
      query: queryLabel(query),
      hits: peer.count(query),
      'median ms': median(wallMs),
      'p99 ms': percentile(wallMs, 99),
      'cpu median ms': median(cpuMs),
    });
  }
  const perClass = QUERY_CLASSES.map((queryClass) => {
    const { wallMs, cpuMs } = samplesByClass.get(queryClass) ?? { wallMs: [], cpuMs: [] };
    return {
      class: queryClass,
      queries: QUERY_SET.filter((q: BenchQuery) => q.class === queryClass).length,
      'median ms': median(wallMs),
      'p99 ms': percentile(wallMs, 99),
      'max ms': Math.max(...wallMs),
      'cpu median ms': median(cpuMs),
      'cpu p99 ms': percentile(cpuMs, 99),
    };
  });
  return { perQuery, perClass };
}

async function main(): Promise<void> {
  const path = corpusPath();
  if (!corpusAvailable(path)) {
    console.log(`fts5-baseline ${corpusMissingMessage(path)}`);
    return;
  }
  const probe = new Database(':memory:');
  const sqliteVersion = (probe.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  probe.close();
  const machine =
    `node ${process.version}, SQLite ${sqliteVersion} (better-sqlite3), ` +
    `${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${formatBytes(totalmem())} RAM`;
  console.log(`FTS5 baseline: ${machine}`);
  // Other work on the machine skews every number; the load average says whether it was quiet.
  const [loadAtStart = Number.NaN] = loadavg();
  console.log(
    `corpus ${path}${limit === undefined ? '' : `, first ${formatCount(limit)} pages`}; index in ${folder}`,
  );
  const summary: TableRow[] = [];
  const add = (measure: string, value: string): void => {
    summary.push({ measure, value });
    console.log(`  ${measure}: ${value}`);
  };

  // 1. Reading alone, so that the streamed indexing rate can be read net of parsing.
  {
    const start = performance.now();
    let docs = 0;
    let chars = 0;
    for await (const pages of readRfcCorpusBatches({ limit, path })) {
      docs += pages.length;
      for (const page of pages) chars += page.text.length;
    }
    const ms = performance.now() - start;
    add(
      'corpus read+parse',
      `${formatCount(docs)} pages in ${formatMs(ms)} = ${formatCount(docs / (ms / 1000))} pages/s ` +
        `(${formatBytes(chars)} of page text)`,
    );
  }

  // 2. Bulk load.
  const peer = Fts5Peer.create(folder);
  let pages: RfcPage[] | undefined;
  if (args['in-memory']) {
    const start = performance.now();
    pages = await loadRfcCorpusIntoMemory(limit, path);
    add(
      'corpus loaded into memory',
      `${formatMs(performance.now() - start)}, RSS ${formatBytes(sampleRss())}`,
    );
  }
  const rssBefore = sampleRss();
  const cpuBefore = cpuTimeMs();
  const loaded = await peer.index(pages ?? readRfcCorpus({ limit, path }), batch);
  const indexCpuMs = cpuTimeMs() - cpuBefore;
  pages = undefined;
  add(
    `index (${args['in-memory'] ? 'from memory' : 'streamed, read+parse included'}, batch ${batch})`,
    `${formatCount(loaded.docs)} pages in ${formatMs(loaded.ms)} = ${formatCount(loaded.docs / (loaded.ms / 1000))} docs/s`,
  );
  add(
    'index CPU time (all threads)',
    `${formatMs(indexCpuMs)} = ${formatCount(loaded.docs / (indexCpuMs / 1000))} docs per CPU-second`,
  );
  add('RSS after indexing', `${formatBytes(sampleRss())} (before: ${formatBytes(rssBefore)})`);
  peer.checkpoint();
  add('disk after load (WAL checkpointed)', formatBytes(peer.diskBytes()));

  // 3. Queries on the freshly loaded index.
  console.log(`\nqueries: top 10 by bm25, ${runs} runs each after ${warmups} warm-ups`);
  const fresh = measureQueries(peer);
  printTable(fresh.perQuery);
  console.log('');
  printTable(fresh.perClass);
  add('RSS after queries', formatBytes(sampleRss()));

  // 4. Optionally the same queries after a full merge (before the commits change the index).
  let optimized: { perQuery: TableRow[]; perClass: TableRow[] } | undefined;
  if (args.optimize) {
    const start = performance.now();
    peer.optimize();
    peer.checkpoint();
    add('optimize (merge into one b-tree)', formatMs(performance.now() - start));
    add('disk after optimize', formatBytes(peer.diskBytes()));
    console.log('\nqueries after optimize:');
    optimized = measureQueries(peer);
    printTable(optimized.perQuery);
    console.log('');
    printTable(optimized.perClass);
  }

  // 5. Commits of 1,000 new pages into the full index: copies of the first pages, new keys.
  const commitSource: RfcPage[] = [];
  for await (const page of readRfcCorpus({ limit: COMMIT_PAGES, path })) commitSource.push(page);
  const newPages = (round: number): RfcPage[] =>
    commitSource.map((page) => ({ ...page, key: `${page.key}#commit-${round}` }));
  const durable: number[] = [];
  const relaxed: number[] = [];
  for (let round = 0; round < commitRounds; round++) {
    durable.push(peer.commitLatency(newPages(2 * round), { synchronous: 'FULL' }));
    relaxed.push(peer.commitLatency(newPages(2 * round + 1), { synchronous: 'NORMAL' }));
  }
  const commitRows: TableRow[] = [
    {
      synchronous: 'FULL (durable)',
      rounds: commitRounds,
      'median ms': median(durable),
      'max ms': Math.max(...durable),
    },
    {
      synchronous: 'NORMAL',
      rounds: commitRounds,
      'median ms': median(relaxed),
      'max ms': Math.max(...relaxed),
    },
  ];
  console.log(`\ncommit of ${COMMIT_PAGES} new pages into the full index (insert + commit):`);
  printTable(commitRows);
  add(`commit ${COMMIT_PAGES} pages, durable (median of ${commitRounds})`, formatMs(median(durable)));

  peer.checkpoint();
  add('disk at the end', formatBytes(peer.diskBytes()));
  add('peak RSS', formatBytes(peakRss()));
  const [loadAtEnd = Number.NaN] = loadavg();
  add('load average (1 min) at start / end', `${loadAtStart.toFixed(2)} / ${loadAtEnd.toFixed(2)}`);
  peer.close();
  if (!args.keep) rmSync(folder, { recursive: true, force: true });

  console.log('\nsummary:');
  printTable(summary);

  if (args.report !== undefined) {
    const sections = [
      { heading: 'Summary', rows: summary },
      { heading: 'Query latency by class', rows: fresh.perClass },
      { heading: 'Query latency by query', rows: fresh.perQuery },
      { heading: `Commit of ${COMMIT_PAGES} new pages`, rows: commitRows },
    ];
    if (optimized !== undefined) {
      sections.push(
        { heading: 'Query latency by class after optimize', rows: optimized.perClass },
        { heading: 'Query latency by query after optimize', rows: optimized.perQuery },
      );
    }
    writeMarkdownReport(resolve(args.report), {
      title: 'SQLite FTS5 baseline on the RFC corpus',
      intro:
        `${machine}. Corpus: ${formatCount(loaded.docs)} pages. Settings: FTS5 unicode61 remove_diacritics 2, ` +
        `bm25 weights title 2.5 / text 1.0, WAL, synchronous=NORMAL while loading, batch ${batch}, ` +
        `${runs} runs per query after ${warmups} warm-ups, p99 by nearest rank.`,
      sections,
    });
    console.log(`report written to ${resolve(args.report)}`);
  }
}

await main();
