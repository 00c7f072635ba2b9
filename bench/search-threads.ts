/**
 * Search threads (issue #19): memory and throughput of `pushsearch serve` with the RFC corpus
 * open, for `search.thread-count` 0 (queries on the event loop: the baseline), 1 and 2, all
 * measured in the same run on the same collection folder.
 *
 * For each thread count and each repeat a fresh server starts, then:
 * - warm-up: every query of the set on 8 connections (so that every search thread has opened
 *   every generation and run every kind of query);
 * - RSS (VmRSS from /proc, outside the process) after the warm-up: the index bytes the
 *   threads read are shared (`SharedArrayBuffer`s of the event loop's readers), so a second
 *   thread should add its heap, not a copy of the index. Target: RSS(2) <= 1.15 x RSS(1), under 1 GB;
 * - queries/s and latency at 1 connection (the set `--rounds` times, one after the other) and at
 *   `--connections` connections (4x as many requests shared between them).
 * Medians over `--repeats` are printed, with the machine's load average before and after.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/search-threads.js [--pages N] [--repeats 3] [--rounds 5] [--connections 8] [--home DIR] [--rebuild] [--threads 0,1,2]
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatBytes, median, percentile, printTable, type TableRow } from './lib/measure.js';
import { readProcStats } from './lib/proc-stats.js';
import { QUERY_SET } from './lib/query-set.js';
import { rfcHome } from './lib/rfc-home.js';
import { corpusAvailable, corpusMissingMessage, repositoryRoot } from './lib/rfc-corpus.js';
import { ServerProcess } from './lib/server-process.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string' },
    repeats: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
    home: { type: 'string' },
    rebuild: { type: 'boolean', default: false },
    threads: { type: 'string', default: '0,1,2' },
  },
});

const COLLECTION = 'bench';
const PASSWORD = 'bench-password-1';
const pages = values.pages === undefined ? undefined : Number(values.pages);
const repeats = Number(values.repeats);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const threadCounts = values.threads.split(',').map(Number);

const QUERIES = QUERY_SET.map((q) => (q.class === 'phrase' ? `"${q.terms.join(' ')}"` : q.terms.join(' ')));

/** `GET /s/search.json` of each query, `concurrency` at a time over keep-alive connections; latencies in ms. */
async function run(
  port: number,
  queries: string[],
  concurrency: number,
): Promise<{ samples: number[]; wallMs: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const samples: number[] = [];
  let next = 0;
  const one = (query: string) =>
    new Promise<void>((done, fail) => {
      const started = performance.now();
      const path = `/s/search.json?${new URLSearchParams({ collection: COLLECTION, query }).toString()}`;
      http
        .get({ host: '127.0.0.1', port, path, agent }, (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode !== 200) fail(new Error(`${query}: HTTP ${response.statusCode}`));
            else {
              samples.push(performance.now() - started);
              done();
            }
          });
        })
        .on('error', fail);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < queries.length) await one(queries[next++]!);
    }),
  );
  const wallMs = performance.now() - started;
  agent.destroy();
  return { samples, wallMs };
}

async function main(): Promise<void> {
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return;
  }
  const home = resolve(
    values.home ?? join(repositoryRoot(), 'bench', 'results', 'tmp', `search-threads-${pages ?? 'all'}`),
  );
  console.log(`collection: ${home}`);
  const built = await rfcHome(home, COLLECTION, pages, values.rebuild);
  const loadBefore = loadavg();
  const figures = new Map<number, Record<string, number[]>>();
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const threads of threadCounts) {
      mkdirSync(join(home, 'conf'), { recursive: true });
      // A budget far above any query here: this measures throughput and memory, not shedding.
      writeFileSync(
        join(home, 'conf', 'global.cfg'),
        `search.thread-count=${threads}\nsearch.queue-size=1000\nsearch.timeout-ms=600000\n`,
      );
      const server = await ServerProcess.start(home, join(home, `server-${threads}.log`), PASSWORD);
      try {
        const baseRss = readProcStats(server.pid).rss;
        await run(server.port, [...QUERIES, ...QUERIES], 8);
        const rss = readProcStats(server.pid).rss;
        const sequential = Array.from({ length: rounds }, () => QUERIES).flat();
        const one = await run(server.port, sequential, 1);
        const many = await run(server.port, Array.from({ length: 4 }, () => sequential).flat(), connections);
        const rssAfter = readProcStats(server.pid).rss;
        const entry = figures.get(threads) ?? {};
        const add = (name: string, value: number) => (entry[name] ??= []).push(value);
        add('rss at start', baseRss);
        add('rss warm', rss);
        add('rss after', rssAfter);
        add('q/s 1', (one.samples.length / one.wallMs) * 1000);
        add('p50 1', median(one.samples));
        add('p99 1', percentile(one.samples, 99));
        add(`q/s ${connections}`, (many.samples.length / many.wallMs) * 1000);
        add(`p50 ${connections}`, median(many.samples));
        figures.set(threads, entry);
        console.log(
          `  repeat ${repeat + 1}, ${threads} thread(s): RSS ${formatBytes(rss)} warm, ${formatBytes(rssAfter)} after; ` +
            `${((one.samples.length / one.wallMs) * 1000).toFixed(0)} q/s at 1, ${((many.samples.length / many.wallMs) * 1000).toFixed(0)} q/s at ${connections}`,
        );
      } finally {
        await server.stop();
      }
    }
  }
  const loadAfter = loadavg();
  const rows: TableRow[] = [];
  for (const threads of threadCounts) {
    const f = figures.get(threads)!;
    const m = (name: string) => median(f[name]!);
    rows.push({
      'search.thread-count': threads === 0 ? '0 (event loop)' : threads,
      'RSS warm': formatBytes(m('rss warm')),
      'RSS after': formatBytes(m('rss after')),
      'q/s 1 conn': m('q/s 1').toFixed(0),
      'p50 1 (ms)': m('p50 1').toFixed(2),
      'p99 1 (ms)': m('p99 1').toFixed(2),
      [`q/s ${connections} conn`]: m(`q/s ${connections}`).toFixed(0),
      [`p50 ${connections} (ms)`]: m(`p50 ${connections}`).toFixed(2),
      [`q/s ${connections} / q/s 1`]: (m(`q/s ${connections}`) / m('q/s 1')).toFixed(2),
    });
  }
  console.log(
    `\n${built.pages} pages, ${QUERIES.length} queries (bench/lib/query-set.ts), medians of ${repeats}; ` +
      `${availableParallelism()} cores, load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ` +
      `${loadAfter.map((l) => l.toFixed(1)).join(' ')} after`,
  );
  printTable(rows);
  const one = figures.get(1);
  const two = figures.get(2);
  if (one !== undefined && two !== undefined) {
    const ratio = median(two['rss warm']!) / median(one['rss warm']!);
    const ratioAfter = median(two['rss after']!) / median(one['rss after']!);
    console.log(
      `RSS 2 threads / 1 thread: ${ratio.toFixed(3)} warm, ${ratioAfter.toFixed(3)} after the runs (target <= 1.15); ` +
        `2 threads ${formatBytes(median(two['rss after']!))} (target < 1 GB)`,
    );
  }
}

await main();
