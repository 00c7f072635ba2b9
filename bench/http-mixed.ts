/**
 * A mixed run against the real server (a child process): concurrent PUTs of RFC pages, DELETEs
 * of earlier keys, commits through the API every few seconds (auto-commit also on), and
 * searches, for `--minutes` (default 10). Every 10 s it samples the server's RSS and open file
 * descriptors (from /proc) and prints throughput, latencies and errors. At the end it says
 * whether RSS stayed flat: within ±10% of its median over the second half of the run.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/http-mixed.js [--minutes 10] [--connections 16] [--limit 50000]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CollectionManager } from '../src/collection/collection-manager.js';
import { silentPushLog } from '../src/collection/push-log.js';
import { SearchHome } from '../src/collection/search-home.js';
import { startServer } from '../src/http/server.js';
import { dirSize, formatBytes, median, percentile, printTable } from './lib/measure.js';
import {
  corpusAvailable,
  corpusMissingMessage,
  loadRfcCorpusIntoMemory,
  type RfcPage,
} from './lib/rfc-corpus.js';

const PASSWORD = 'bench-password-1';
const COLLECTION = 'mixed';
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    limit: { type: 'string', default: '50000' },
    serve: { type: 'string' },
  },
});

if (values.serve !== undefined) {
  const server = await startServer({
    home: values.serve,
    port: 0,
    logger: false,
    security: { adminPassword: PASSWORD },
  });
  process.send!({ port: server.port });
  // The parent samples the heap next to RSS, to tell V8 heap growth from buffers and native memory.
  process.on('message', (message) => {
    if (message === 'memory') process.send!({ memory: process.memoryUsage() });
  });
  process.on('SIGTERM', () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
} else {
  await run();
}

interface Call {
  name: string;
  ms: number;
  ok: boolean;
}

async function run(): Promise<void> {
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return;
  }
  const pages = await loadRfcCorpusIntoMemory(Number(values.limit));
  const home = mkdtempSync(join(tmpdir(), 'pushsearch-mixed-'));
  new CollectionManager(new SearchHome(home), silentPushLog()).create(COLLECTION, 'push');
  const child = fork(fileURLToPath(import.meta.url), ['--serve', home], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) =>
    child.once('message', (m: { port: number }) => resolve(m.port)),
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number(values.connections) + 4 });
  const auth = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
  const calls: Call[] = [];
  const request = (method: string, path: string, body?: Buffer, type = 'text/plain'): Promise<number> =>
    new Promise((resolve) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent,
          headers: {
            authorization: auth,
            ...(body ? { 'content-type': type, 'content-length': body.length } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      req.end(body);
    });
  const timed = async (name: string, work: () => Promise<number>) => {
    const started = performance.now();
    const status = await work();
    calls.push({ name, ms: performance.now() - started, ok: status >= 200 && status < 300 });
  };
  const base = `/push-api/v2/collections/${COLLECTION}`;
  const end = Date.now() + Number(values.minutes) * 60_000;
  let next = 0;
  const pushed: string[] = [];
  const queries = [
    'protocol',
    'congestion window',
    '"security considerations"',
    'tcp OR udp',
    'routing table',
  ];
  const samples: { t: number; rss: number; fds: number }[] = [];
  const started = Date.now();
  const memoryOfChild = (): Promise<NodeJS.MemoryUsage> =>
    new Promise((resolve) => {
      const onMessage = (message: { memory?: NodeJS.MemoryUsage }) => {
        if (message.memory === undefined) return;
        child.off('message', onMessage);
        resolve(message.memory);
      };
      child.on('message', onMessage);
      child.send('memory');
    });
  const sampler = setInterval(() => {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    const t = (Date.now() - started) / 1000;
    samples.push({ t, rss, fds: readdirSync(`/proc/${child.pid}/fd`).length });
    const last = samples.at(-1)!;
    void memoryOfChild().then((memory) =>
      console.log(
        `${t.toFixed(0)}s  rss ${formatBytes(last.rss)}  heap ${formatBytes(memory.heapUsed)}/${formatBytes(memory.heapTotal)}  ` +
          `external ${formatBytes(memory.external)}  index on disk ${formatBytes(dirSize(join(home, 'data')))}  fds ${last.fds}  ` +
          `calls ${calls.length}  errors ${calls.filter((c) => !c.ok).length}`,
      ),
    );
  }, 10_000);
  const worker = async (id: number) => {
    let turn = 0;
    while (Date.now() < end) {
      turn++;
      if (id === 0 && turn % 50 === 0) {
        await timed('commit', () => request('POST', `${base}/commit`));
      } else if (turn % 10 === 0 && pushed.length > 100) {
        const key = pushed[Math.floor(Math.random() * pushed.length)]!;
        await timed('delete', () => request('DELETE', `${base}/documents?key=${encodeURIComponent(key)}`));
      } else if (turn % 5 === 0) {
        const query = queries[turn % queries.length]!;
        await timed('search', () =>
          request('GET', `/s/search.json?collection=${COLLECTION}&query=${encodeURIComponent(query)}`),
        );
      } else {
        const page: RfcPage = pages[next++ % pages.length]!;
        // After a full pass over the pages, keys repeat: replacements, as real pushes have.
        await timed('put', () =>
          request('PUT', `${base}/documents?key=${encodeURIComponent(page.key)}`, Buffer.from(page.text)),
        );
        pushed.push(page.key);
      }
    }
  };
  await Promise.all(Array.from({ length: Number(values.connections) }, (_, i) => worker(i)));
  clearInterval(sampler);
  agent.destroy();
  child.kill('SIGTERM');
  await new Promise((resolve) => (child as ChildProcess).once('exit', resolve));
  rmSync(home, { recursive: true, force: true });

  const seconds = Number(values.minutes) * 60;
  const rows = ['put', 'delete', 'search', 'commit'].map((name) => {
    const list = calls.filter((c) => c.name === name);
    const times = list.map((c) => c.ms);
    return {
      call: name,
      count: list.length,
      'per s': (list.length / seconds).toFixed(1),
      'p50 ms': median(times).toFixed(1),
      'p99 ms': percentile(times, 99).toFixed(1),
      errors: list.filter((c) => !c.ok).length,
    };
  });
  printTable(rows);
  const secondHalf = samples.filter((s) => s.t >= seconds / 2);
  const middle = median(secondHalf.map((s) => s.rss));
  const worst = Math.max(...secondHalf.map((s) => Math.abs(s.rss - middle) / middle));
  const fds = secondHalf.map((s) => s.fds);
  console.log(
    `RSS over the second half: median ${formatBytes(middle)}, largest deviation of a 10-s sample ${(worst * 100).toFixed(1)}% ` +
      `(${worst <= 0.1 ? 'flat' : 'NOT flat'}, target ±10%); open fds ${Math.min(...fds)}..${Math.max(...fds)}`,
  );
  // A single sample can catch a GC cycle's peak or a merge in progress; a leak shows as a
  // trend. Per-minute medians and the slope over the second half tell the two apart.
  const minutes = new Map<number, number[]>();
  for (const sample of samples) {
    const minute = Math.floor((sample.t - 1) / 60);
    minutes.set(minute, [...(minutes.get(minute) ?? []), sample.rss]);
  }
  const perMinute = [...minutes.entries()].map(([minute, values]) => ({ minute, rss: median(values) }));
  // A minute counts when it ends in the second half (a run shorter than a minute has one).
  const laterMinutes = perMinute.filter((m) => (m.minute + 1) * 60 > seconds / 2);
  const middleOfMinutes = median(laterMinutes.map((m) => m.rss));
  const worstMinute = Math.max(
    ...laterMinutes.map((m) => Math.abs(m.rss - middleOfMinutes) / middleOfMinutes),
  );
  console.log(
    `RSS per-minute medians: ${perMinute.map((m) => formatBytes(m.rss)).join(', ')}; over the second half within ` +
      `±${(worstMinute * 100).toFixed(1)}% of their median ${formatBytes(middleOfMinutes)}; ` +
      `trend over the second half ${(slopePerMinute(secondHalf) / 2 ** 20).toFixed(1)} MiB/min`,
  );
}

/** Least-squares slope of RSS over time, in bytes per minute. */
function slopePerMinute(points: { t: number; rss: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanT = points.reduce((sum, p) => sum + p.t, 0) / n;
  const meanRss = points.reduce((sum, p) => sum + p.rss, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.t - meanT) * (p.rss - meanRss);
    variance += (p.t - meanT) ** 2;
  }
  return (covariance / variance) * 60;
}
