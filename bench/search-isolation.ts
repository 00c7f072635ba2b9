/**
 * Isolation (issue #19): while pathological queries run on every search thread, the event
 * loop still answers `/health` and acknowledges document PUTs. Targets: `/health` p99 < 50 ms,
 * PUT p99 < 200 ms, and each pathological query answered within its budget
 * (`search.timeout-ms`, default 2000) plus a little.
 *
 * The collection: `--documents` (30,000) documents of `--words` (40) random words each (3 to 8
 * letters, a to z), built once under `--home`. The pathological query: 30 two-letter prefixes,
 * `aa* ab* ... az* ba* bb* bc* bd*`. For each `search.thread-count` of `--threads` (default
 * `0,2`: 0 runs queries on the event loop, the baseline) a server starts and, for `--seconds`:
 * - one client per search thread (at least one) sends the pathological query back to back;
 * - one client sends `GET /health` every 10 ms, one after the other;
 * - one client PUTs a small document, one after the other (each answer waits for the fsync).
 * Printed: latencies (p50, p99, max) of each, how many queries answered `timedOut`, and the
 * machine's load average.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/search-isolation.js [--documents 30000] [--words 40] [--seconds 20] [--threads 0,2] [--timeout-ms 2000] [--home DIR] [--rebuild]
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CollectionManager } from '../src/collection/collection-manager.js';
import { silentPushLog } from '../src/collection/push-log.js';
import { SearchHome } from '../src/collection/search-home.js';
import { median, percentile, printTable, type TableRow } from './lib/measure.js';
import { repositoryRoot } from './lib/rfc-corpus.js';
import { ServerProcess } from './lib/server-process.js';

const { values } = parseArgs({
  options: {
    documents: { type: 'string', default: '30000' },
    words: { type: 'string', default: '40' },
    seconds: { type: 'string', default: '20' },
    threads: { type: 'string', default: '0,2' },
    'timeout-ms': { type: 'string', default: '2000' },
    home: { type: 'string' },
    rebuild: { type: 'boolean', default: false },
  },
});

const COLLECTION = 'random';
const PASSWORD = 'bench-password-1';
const AUTH = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
const documents = Number(values.documents);
const wordsPerDocument = Number(values.words);
const seconds = Number(values.seconds);
const timeoutMs = Number(values['timeout-ms']);
const threadCounts = values.threads.split(',').map(Number);
const PATHOLOGICAL = [
  ...Array.from({ length: 26 }, (_, i) => `a${String.fromCharCode(97 + i)}*`),
  'ba*',
  'bb*',
  'bc*',
  'bd*',
].join(' ');

/** A deterministic random word source (the same collection every build). */
function randomWords(seed: number): () => string {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return () => {
    const length = 3 + Math.floor(next() * 6);
    let word = '';
    for (let i = 0; i < length; i++) word += String.fromCharCode(97 + Math.floor(next() * 26));
    return word;
  };
}

async function build(home: string): Promise<void> {
  const marker = join(home, 'isolation-built.json');
  const wanted = JSON.stringify({ documents, wordsPerDocument });
  if (!values.rebuild && existsSync(marker) && readFileSync(marker, 'utf8') === wanted) return;
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const manager = new CollectionManager(new SearchHome(home), silentPushLog());
  manager.create(COLLECTION, 'push');
  appendFileSync(
    join(home, 'conf', COLLECTION, 'collection.cfg'),
    'push.auto-commit.max-changes=0\npush.auto-commit.timeout-seconds=0\n',
  );
  const collection = manager.collection(COLLECTION);
  const word = randomWords(7);
  const inFlight = new Set<Promise<unknown>>();
  for (let d = 0; d < documents; d++) {
    const text = Array.from({ length: wordsPerDocument }, word).join(' ');
    const put = collection.putDocument({
      key: `http://example.com/random/${d}`,
      content: Buffer.from(text),
      contentType: 'text/plain',
      metadata: {},
    });
    inFlight.add(put);
    void put.finally(() => inFlight.delete(put));
    if (inFlight.size >= 32) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  await collection.commit(true);
  await collection.quiesce();
  await manager.closeAll();
  writeFileSync(marker, wanted);
}

interface Answer {
  status: number;
  ms: number;
  body: string;
}

function request(
  port: number,
  agent: http.Agent,
  method: string,
  path: string,
  body?: string,
): Promise<Answer> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const headers: Record<string, string> =
      body === undefined ? {} : { 'content-type': 'text/plain', authorization: AUTH };
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        done({
          status: response.statusCode ?? 0,
          ms: performance.now() - started,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', fail);
    req.end(body);
  });
}

function stats(samples: number[]): { p50: string; p99: string; max: string; n: number } {
  return {
    p50: median(samples).toFixed(1),
    p99: percentile(samples, 99).toFixed(1),
    max: Math.max(...samples).toFixed(1),
    n: samples.length,
  };
}

async function measure(home: string, threads: number): Promise<TableRow[]> {
  writeFileSync(
    join(home, 'conf', 'global.cfg'),
    `search.thread-count=${threads}\nsearch.timeout-ms=${timeoutMs}\nsearch.queue-size=64\n`,
  );
  const server = await ServerProcess.start(home, join(home, `server-${threads}.log`), PASSWORD);
  try {
    const port = server.port;
    const agent = () => new http.Agent({ keepAlive: true, maxSockets: 1 });
    // Warm-up: every thread started (the first query starts them all) and every generation
    // opened in each (as many queries at once as there are threads).
    await Promise.all(
      Array.from({ length: Math.max(1, threads) }, () =>
        request(port, agent(), 'GET', `/s/search.json?collection=${COLLECTION}&query=warm`),
      ),
    );
    const end = performance.now() + seconds * 1000;
    const queries: number[] = [];
    let timedOut = 0;
    const failures: string[] = [];
    const health: number[] = [];
    const puts: number[] = [];
    const queryPath = `/s/search.json?${new URLSearchParams({ collection: COLLECTION, query: PATHOLOGICAL }).toString()}`;
    const queryClient = async () => {
      const a = agent();
      while (performance.now() < end) {
        const answer = await request(port, a, 'GET', queryPath);
        queries.push(answer.ms);
        if (answer.status !== 200) failures.push(`query ${answer.status}`);
        else if (
          (
            JSON.parse(answer.body) as {
              response: { resultPacket: { resultsSummary: { timedOut: boolean } } };
            }
          ).response.resultPacket.resultsSummary.timedOut
        )
          timedOut++;
      }
    };
    const healthClient = async () => {
      const a = agent();
      while (performance.now() < end) {
        const answer = await request(port, a, 'GET', '/health');
        health.push(answer.ms);
        if (answer.status !== 200) failures.push(`health ${answer.status}`);
        await delay(10);
      }
    };
    const putClient = async () => {
      const a = agent();
      for (let i = 0; performance.now() < end; i++) {
        const key = encodeURIComponent(`http://example.com/isolation/${i % 100}`);
        const answer = await request(
          port,
          a,
          'PUT',
          `/push-api/v2/collections/${COLLECTION}/documents?key=${key}`,
          `put number ${i}`,
        );
        puts.push(answer.ms);
        if (answer.status !== 200) failures.push(`put ${answer.status}`);
      }
    };
    await Promise.all([
      ...Array.from({ length: Math.max(1, threads) }, queryClient),
      healthClient(),
      putClient(),
    ]);
    if (failures.length > 0)
      console.log(
        `  ${threads} thread(s): ${failures.length} failures, first: ${failures.slice(0, 5).join(', ')}`,
      );
    const label = threads === 0 ? '0 (event loop)' : String(threads);
    return [
      {
        'search.thread-count': label,
        what: 'pathological query',
        ...stats(queries),
        'timed out': `${timedOut}/${queries.length}`,
      },
      { 'search.thread-count': label, what: 'GET /health', ...stats(health), 'timed out': '' },
      { 'search.thread-count': label, what: 'document PUT', ...stats(puts), 'timed out': '' },
    ];
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const home = resolve(
    values.home ?? join(repositoryRoot(), 'bench', 'results', 'tmp', `search-isolation-${documents}`),
  );
  console.log(`collection: ${home}`);
  await build(home);
  const loadBefore = loadavg();
  const rows: TableRow[] = [];
  for (const threads of threadCounts) rows.push(...(await measure(home, threads)));
  const loadAfter = loadavg();
  console.log(
    `\n${documents} documents of ${wordsPerDocument} random words; query: 30 two-letter prefixes; search.timeout-ms=${timeoutMs}; ` +
      `${seconds} s per thread count; ${availableParallelism()} cores, load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ` +
      `${loadAfter.map((l) => l.toFixed(1)).join(' ')} after. Latencies in ms. Targets: /health p99 < 50, PUT p99 < 200, query max <= budget + a little.`,
  );
  printTable(rows);
}

await main();
