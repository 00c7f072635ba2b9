/**
 * HTTP ingest through the real server: RFC corpus pages pushed one document per PUT over
 * keep-alive connections (64 at once by default), then one commit. The same client, in the
 * same run, also measures a bare node:http server that only reads each body and answers 200:
 * the ceiling of this machine, client and Node's HTTP stack. Prints docs/s, the ratio to the
 * ceiling and the latency of the final commit, for every run and as medians.
 *
 * Each server runs in a child process of its own (the client has this process to itself),
 * forked from this file with `--serve-bare` or `--serve-ours`. Our server runs with its
 * defaults: durable journaling (fsync before each 200, group commit), auto-commit every
 * 10,000 changes, request logging off (as the bare server has none).
 *
 * Usage: node dist/bench/http-ingest.js [--limit 20000] [--warmup 5000] [--runs 3] [--connections 64] [--folder <dir>] [--max-changes 10000]
 * `--warmup N`: before the timed part, each server gets N other pages (keys on another host; for
 * ours then a commit), so that both are measured warm (JIT-compiled, pools and workers started),
 * as a service is after its first minute; 0 measures them cold.
 * `--max-changes` is the collection's push.auto-commit.max-changes (0: no count auto-commit,
 * so the final commit makes every pushed document searchable at once).
 * The folder decides the disk the journal and index are on (default bench/results/tmp;
 * a tmpfs would make fsync free and the numbers meaningless).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CollectionManager } from '../src/collection/collection-manager.js';
import { silentPushLog } from '../src/collection/push-log.js';
import { SearchHome } from '../src/collection/search-home.js';
import { startServer } from '../src/http/server.js';
import { formatMs, median } from './lib/measure.js';
import { readThreadCpu, threadCpuBetween, type ThreadCpu } from './lib/thread-cpu.js';
import {
  corpusAvailable,
  corpusMissingMessage,
  loadRfcCorpusIntoMemory,
  repositoryRoot,
  type RfcPage,
} from './lib/rfc-corpus.js';

const { values } = parseArgs({
  options: {
    limit: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    folder: { type: 'string' },
    'max-changes': { type: 'string', default: '10000' },
    'serve-bare': { type: 'boolean', default: false },
    'serve-ours': { type: 'string' },
  },
});

const COLLECTION = 'bench';
/** The first-start admin's password of our server child; the client logs in once for a token, as PushClient does. */
const ADMIN_PASSWORD = 'bench-password-1';

/** Server children still running: killed if this process ends early (a failed run must not leave one listening). */
const liveChildren = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

if (values['serve-bare']) {
  serveBare();
} else if (values['serve-ours'] !== undefined) {
  await serveOurs(values['serve-ours']);
} else {
  await runBenchmark();
}

// ---------------------------------------------------------------------------------------
// Child processes

/** The ceiling: read the body, answer 200 with a small JSON body like ours. */
function serveBare(): void {
  const server = http.createServer((request, response) => {
    request.on('data', () => {});
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end('{"message":"ok","storedKeys":["x"]}');
    });
  });
  server.keepAliveTimeout = 72_000;
  answerCpuQueries();
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  });
}

async function serveOurs(home: string): Promise<void> {
  const server = await startServer({
    home,
    port: 0,
    logger: false,
    security: { adminPassword: ADMIN_PASSWORD },
  });
  answerCpuQueries();
  process.send!({ port: server.port });
  process.on('SIGTERM', () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

/**
 * The parent asks a server child, around the timed part, for its CPU time by thread role
 * (see bench/lib/thread-cpu.ts) and for its main thread's busy time (event loop active, µs):
 * the main thread parses, routes and answers every request, so its busy time per request is
 * what limits the request rate once it nears 100% of the wall time.
 */
function answerCpuQueries(): void {
  process.on('message', (message) => {
    if (message === 'cpu') {
      process.send!({
        threads: readThreadCpu(),
        mainBusyMicros: performance.eventLoopUtilization().active * 1000,
      });
    }
  });
}

interface CpuSample {
  threads: ThreadCpu;
  mainBusyMicros: number;
}

function cpuOf(child: ChildProcess): Promise<CpuSample> {
  return new Promise((resolveCpu) => {
    const onMessage = (message: Partial<CpuSample>) => {
      if (message.threads === undefined || message.mainBusyMicros === undefined) return;
      child.off('message', onMessage);
      resolveCpu({ threads: message.threads, mainBusyMicros: message.mainBusyMicros });
    };
    child.on('message', onMessage);
    child.send('cpu');
  });
}

/** What one timed push cost: the server's CPU by role and main-thread busy time, and the client's (this process's) CPU, all per request, µs. */
interface PushCost {
  rate: number;
  server: ThreadCpu;
  mainBusy: number;
  client: number;
}

/** Pushes `requests` to a server child while measuring both sides' CPU (see {@link PushCost}). */
async function timedPush(
  child: ChildProcess,
  port: number,
  requests: PreparedRequest[],
  connections: number,
  authHeaders: Record<string, string> = {},
): Promise<PushCost> {
  const before = await cpuOf(child);
  const clientBefore = process.cpuUsage();
  const rate = await push(port, requests, connections, authHeaders);
  const clientUsage = process.cpuUsage(clientBefore);
  const after = await cpuOf(child);
  const server = threadCpuBetween(before.threads, after.threads);
  const per = (micros: number) => micros / requests.length;
  return {
    rate,
    server: {
      total: per(server.total),
      main: per(server.main),
      indexing: per(server.indexing),
      merge: per(server.merge),
    },
    mainBusy: per(after.mainBusyMicros - before.mainBusyMicros),
    client: per(clientUsage.user + clientUsage.system),
  };
}

function forkServer(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(import.meta.url), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // e.g. BENCH_SERVER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the servers.
    execArgv: (process.env.BENCH_SERVER_NODE_OPTIONS ?? '').split(' ').filter((option) => option !== ''),
  });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  return new Promise((resolvePort, reject) => {
    child.once('message', (message: { port: number }) => resolvePort({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  child.kill('SIGTERM');
  await exited;
}

// ---------------------------------------------------------------------------------------
// Client

interface PreparedRequest {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

function request(
  agent: http.Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer,
): Promise<{ status: number; body: string }> {
  return new Promise((resolveAnswer, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolveAnswer({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Logs in as the admin of our server child; returns the headers every later request sends. */
async function login(port: number): Promise<Record<string, string>> {
  const agent = new http.Agent({ keepAlive: false });
  const form = Buffer.from(`username=admin&password=${ADMIN_PASSWORD}`);
  const answer = await request(
    agent,
    port,
    'POST',
    '/admin-api/account/v1/login',
    {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(form.length),
    },
    form,
  );
  agent.destroy();
  if (answer.status !== 200) throw new Error(`login answered ${answer.status}: ${answer.body}`);
  return { 'X-Security-Token': (JSON.parse(answer.body) as { token: string }).token };
}

/** Sends every request over `connections` keep-alive connections; returns requests per second. */
async function push(
  port: number,
  requests: PreparedRequest[],
  connections: number,
  authHeaders: Record<string, string> = {},
): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let item = requests[next++]; item !== undefined; item = requests[next++]) {
        const answer = await request(
          agent,
          port,
          'PUT',
          item.path,
          { ...item.headers, ...authHeaders },
          item.body,
        );
        if (answer.status !== 200) {
          if (++failures <= 3) console.error(`PUT ${item.path} answered ${answer.status}: ${answer.body}`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  if (failures > 0) throw new Error(`${failures} PUTs failed`);
  return requests.length / seconds;
}

function prepare(pages: RfcPage[]): PreparedRequest[] {
  return pages.map((page) => {
    const body = Buffer.from(page.text, 'utf8');
    const headers: Record<string, string> = {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(body.length),
    };
    // Titles are ASCII in this corpus; a header must be.
    if (/^[\x20-\x7e]*$/.test(page.title)) headers['X-Service-Push-Metadata-Title'] = page.title;
    return {
      path: `/push-api/v1/collections/${COLLECTION}/documents?key=${encodeURIComponent(page.key)}`,
      headers,
      body,
    };
  });
}

// ---------------------------------------------------------------------------------------
// Benchmark

interface RunResult {
  bare: PushCost;
  ours: PushCost;
  commitMs: number;
}

/**
 * CPU the machine spends per request: the server's threads and the client's. Once the cores
 * are saturated (both servers saturate them here), rates go as the inverse of this.
 */
function machineCpu(cost: PushCost): number {
  return cost.server.total + cost.client;
}

/**
 * The ratio ours would reach if our main thread (HTTP, routing, auth, filters, journal,
 * staging) cost no more per request than the bare server's, everything else unchanged: what
 * the indexing threads, V8's helpers and the fsyncs leave room for, on a saturated machine.
 */
function ratioWithBareMainThread(run: RunResult): number {
  const ours = run.ours.server.total - run.ours.server.main + run.bare.server.main + run.ours.client;
  return (100 * machineCpu(run.bare)) / ours;
}

function describeCost(cost: PushCost): string {
  const s = cost.server;
  const helpers = s.total - s.main - s.indexing - s.merge;
  const roles =
    s.indexing + s.merge > 0
      ? `main ${s.main.toFixed(0)}, indexing ${s.indexing.toFixed(0)}, merges ${s.merge.toFixed(0)}, V8/libuv helpers ${helpers.toFixed(0)}`
      : `main ${s.main.toFixed(0)}, helpers ${helpers.toFixed(0)}`;
  return `server CPU ${s.total.toFixed(0)} µs/req (${roles}), main thread busy ${cost.mainBusy.toFixed(0)} µs, client CPU ${cost.client.toFixed(0)} µs`;
}

async function runBenchmark(): Promise<void> {
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return;
  }
  const limit = Number(values.limit);
  const runs = Number(values.runs);
  const connections = Number(values.connections);
  const folder = resolve(values.folder ?? join(repositoryRoot(), 'bench', 'results', 'tmp'));
  mkdirSync(folder, { recursive: true });

  const warmupCount = Number(values.warmup);
  const pages = await loadRfcCorpusIntoMemory(limit + warmupCount);
  const warmupRequests = prepare(pages.slice(0, warmupCount)).map((item) => ({
    ...item,
    path: item.path.replace(
      encodeURIComponent('https://rfc.example.org/'),
      encodeURIComponent('https://warmup.example.org/'),
    ),
  }));
  const requests = prepare(pages.slice(warmupCount));
  const bytes = requests.reduce((n, r) => n + r.body.length, 0);
  console.log(
    `http-ingest: ${requests.length} RFC pages (${(bytes / requests.length / 1024).toFixed(1)} KiB average), one per PUT, ` +
      `${connections} keep-alive connections, ${runs} runs, ${warmupCount} warm-up PUTs first; data in ${folder}`,
  );

  const results: RunResult[] = [];
  for (let run = 1; run <= runs; run++) {
    const bare = await forkServer(['--serve-bare']);
    if (warmupRequests.length > 0) await push(bare.port, warmupRequests, connections);
    const bareCost = await timedPush(bare.child, bare.port, requests, connections);
    await stopServer(bare.child);

    const home = mkdtempSync(join(folder, 'http-ingest-'));
    try {
      new CollectionManager(new SearchHome(home), silentPushLog()).create(COLLECTION, 'push');
      appendFileSync(
        join(home, 'conf', COLLECTION, 'collection.cfg'),
        `push.auto-commit.max-changes=${Number(values['max-changes'])}\n`,
      );
      const ours = await forkServer(['--serve-ours', home]);
      const authHeaders = await login(ours.port);
      if (warmupRequests.length > 0) {
        await push(ours.port, warmupRequests, connections, authHeaders);
        const warmAgent = new http.Agent({ keepAlive: false });
        const warmCommit = await request(
          warmAgent,
          ours.port,
          'POST',
          `/push-api/v1/collections/${COLLECTION}/commit`,
          authHeaders,
        );
        warmAgent.destroy();
        if (warmCommit.status !== 200)
          throw new Error(`warm-up commit answered ${warmCommit.status}: ${warmCommit.body}`);
      }
      const oursCost = await timedPush(ours.child, ours.port, requests, connections, authHeaders);
      const agent = new http.Agent({ keepAlive: true });
      const commitStarted = performance.now();
      const commit = await request(
        agent,
        ours.port,
        'POST',
        `/push-api/v1/collections/${COLLECTION}/commit`,
        authHeaders,
      );
      const commitMs = performance.now() - commitStarted;
      if (commit.status !== 200) throw new Error(`commit answered ${commit.status}: ${commit.body}`);
      const state = JSON.parse(
        (await request(agent, ours.port, 'GET', `/push-api/v1/collections/${COLLECTION}/state`, authHeaders))
          .body,
      ) as {
        documents: number;
        stats: { JournalAppends: number; JournalFsyncs: number };
      };
      agent.destroy();
      await stopServer(ours.child);
      const changes = (JSON.parse(commit.body) as { changes: number }).changes;
      const result: RunResult = { bare: bareCost, ours: oursCost, commitMs };
      results.push(result);
      console.log(
        `run ${run}: bare ${bareCost.rate.toFixed(0)} req/s | ours ${oursCost.rate.toFixed(0)} docs/s = ${((100 * oursCost.rate) / bareCost.rate).toFixed(1)}% | ` +
          `final commit of ${changes} staged: ${formatMs(commitMs)} | documents ${state.documents} | ` +
          `fsyncs ${state.stats.JournalFsyncs} for ${state.stats.JournalAppends} appends\n` +
          `  bare: ${describeCost(bareCost)}\n` +
          `  ours: ${describeCost(oursCost)}\n` +
          `  ratio with our main thread as cheap as the bare server's: ${ratioWithBareMainThread(result).toFixed(1)}%`,
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  const of = (pick: (r: RunResult) => number) => median(results.map(pick));
  console.log(
    `median of ${runs}: bare ${of((r) => r.bare.rate).toFixed(0)} req/s, ours ${of((r) => r.ours.rate).toFixed(0)} docs/s, ` +
      `ratio ${of((r) => (100 * r.ours.rate) / r.bare.rate).toFixed(1)}% (target ≥ 35%), final commit ${formatMs(of((r) => r.commitMs))}; ` +
      `CPU per request, server + client: bare ${of((r) => r.bare.server.total).toFixed(0)} + ${of((r) => r.bare.client).toFixed(0)} µs, ` +
      `ours ${of((r) => r.ours.server.total).toFixed(0)} + ${of((r) => r.ours.client).toFixed(0)} µs ` +
      `(main ${of((r) => r.ours.server.main).toFixed(0)}, indexing ${of((r) => r.ours.server.indexing).toFixed(0)}); ` +
      `ratio with our main thread as cheap as the bare server's: ${of(ratioWithBareMainThread).toFixed(1)}%`,
  );
  console.log(
    `load average at the end: ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} on ${availableParallelism()} cores`,
  );
}
