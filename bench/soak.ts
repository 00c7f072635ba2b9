/**
 * The soak benchmark: a real server (the `pushsearch serve` command in a child process, its own
 * temporary SEARCH_HOME), one collection loaded with `--docs` RFC pages, then `--minutes` of
 * concurrent traffic on it: PUTs replacing and adding pages, DELETEs, GETs, searches, API
 * commits (wait=true and wait=false) beside the collection's own auto-commit, snapshots
 * created, listed and deleted, state and /metrics calls.
 *
 * Every `--sample-seconds` it reads the server's RSS, open file descriptors and threads from
 * /proc, its heap and event-loop lag from /metrics, its state (documents, generations, commits)
 * and the size of its data folder, and prints a line. At the end it prints and writes
 * (`<out>.md`, samples and all in `<out>.json`): count, rate, p50/p99 latency and errors of
 * every kind of call; whether RSS and heap stayed within ±10% of their median over the second
 * half of the mix, and whether descriptors and threads grew; and a verification: after a final
 * commit, a sample of keys is checked with GET (content as last acknowledged, or pushContent null) and with
 * searches for the unique word each soak PUT carries (found once if live; gone if replaced or
 * deleted), the document count is compared with the expected one, auto-commits must have
 * happened, no snapshot may be left, push.log must hold no error, the server must stop cleanly;
 * then the server starts again on the same SEARCH_HOME and the count and the keys are checked
 * again (what was acknowledged must survive a restart).
 *
 * Exit code 1 when any call failed (a non-2xx answer not expected, a network error, a GET
 * whose content differs) or the verification failed; 2 on a bad command line.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/soak.js [--docs 200000] [--minutes 10]
 *     [--concurrency 16] [--out bench/results/soak] [--folder DIR] [--sample-seconds 5]
 *     [--commit-seconds 10] [--snapshot-seconds 30] [--auto-commit-seconds 5]
 *     [--auto-commit-changes 2000] [--load-connections 64] [--verify 500] [--keep]
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { HttpTransport } from '../src/client/http-transport.js';
import {
  dirSize,
  formatBytes,
  formatCount,
  formatMs,
  formatTable,
  markdownTable,
  type TableRow,
} from './lib/measure.js';
import { procAvailable, readProcStats } from './lib/proc-stats.js';
import { ServerProcess } from './lib/server-process.js';
import { MIXED_QUERIES } from './lib/query-set.js';
import {
  corpusAvailable,
  corpusMissingMessage,
  readRfcCorpus,
  repositoryRoot,
  type RfcPage,
} from './lib/rfc-corpus.js';
import { fingerprint, KeyBook } from './lib/soak-keys.js';
import {
  callRows,
  growthOf,
  isFlat,
  spreadOf,
  type CallRow,
  type CallStats,
  type Growth,
  type Spread,
} from './lib/soak-summary.js';

// ---------------------------------------------------------------------------------------
// Settings

const USAGE = `Usage: node dist/bench/soak.js [--docs 200000] [--minutes 10] [--concurrency 16] [--out bench/results/soak]
  [--folder DIR] [--sample-seconds 5] [--commit-seconds 10] [--snapshot-seconds 30] [--auto-commit-seconds 5]
  [--auto-commit-changes 2000] [--load-connections 64] [--verify 500] [--keep]`;

interface Settings {
  docs: number;
  minutes: number;
  concurrency: number;
  loadConnections: number;
  out: string;
  folder: string;
  sampleSeconds: number;
  commitSeconds: number;
  snapshotSeconds: number;
  autoCommitSeconds: number;
  autoCommitChanges: number;
  verify: number;
  keep: boolean;
}

function readSettings(): Settings {
  const { values } = parseArgs({
    options: {
      docs: { type: 'string', default: '200000' },
      minutes: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '16' },
      'load-connections': { type: 'string', default: '64' },
      out: { type: 'string' },
      folder: { type: 'string' },
      'sample-seconds': { type: 'string', default: '5' },
      'commit-seconds': { type: 'string', default: '10' },
      'snapshot-seconds': { type: 'string', default: '30' },
      'auto-commit-seconds': { type: 'string', default: '5' },
      'auto-commit-changes': { type: 'string', default: '2000' },
      verify: { type: 'string', default: '500' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: keyof typeof values, min: number, integer = true): number => {
    const text = values[name] as string;
    const value = Number(text);
    if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
      throw new UsageError(
        `--${name} must be ${integer ? 'an integer' : 'a number'} ≥ ${min}, got ${JSON.stringify(text)}\n${USAGE}`,
      );
    }
    return value;
  };
  return {
    docs: number('docs', 1),
    minutes: number('minutes', 0.01, false),
    concurrency: number('concurrency', 1),
    loadConnections: number('load-connections', 1),
    out: resolve(values.out ?? join(repositoryRoot(), 'bench', 'results', 'soak')),
    folder: resolve(values.folder ?? tmpdir()),
    sampleSeconds: number('sample-seconds', 0.2, false),
    commitSeconds: number('commit-seconds', 0.5, false),
    snapshotSeconds: number('snapshot-seconds', 0.5, false),
    autoCommitSeconds: number('auto-commit-seconds', 1),
    autoCommitChanges: number('auto-commit-changes', 0),
    verify: number('verify', 1),
    keep: values.keep,
  };
}

class UsageError extends Error {}

const COLLECTION = 'soak';
const PASSWORD = 'soak-admin-password-1';
const PUSH = `/push-api/v2/collections/${COLLECTION}`;
/** Fraction of the extra corpus pages kept for adds, and the most page texts kept for replacements. */
const MAX_TEXT_POOL = 5000;
const MAX_EXTRA_PAGES = 20_000;
/** Per-request timeout: a call that hangs this long is a failure, not a slow call. */
const REQUEST_TIMEOUT_MS = 120_000;

// ---------------------------------------------------------------------------------------
// Calls, timed and checked

type Phase = 'setup' | 'load' | 'mix' | 'verify' | 'restart';

/** A call that failed: an answer not expected, a network error, or content that differs. */
interface CallError {
  t: number;
  phase: Phase;
  call: string;
  request: string;
  status: number;
  detail: string;
}

interface Answer {
  status: number;
  body: Buffer;
  ok: boolean;
}

/** Sends every call, times it, and keeps per-call statistics of the mix and every failure. */
class Api {
  phase: Phase = 'setup';
  /** Latencies and failures by phase, then by kind of call (the report's calls tables). */
  readonly calls = new Map<Phase, Map<string, CallStats>>();
  readonly errors: CallError[] = [];
  errorCount = 0;
  /** Calls answered so far, all phases (for the rate column of the time series). */
  total = 0;
  private transport: HttpTransport;
  private token = '';

  constructor(
    port: number,
    private readonly started: number,
  ) {
    this.transport = new HttpTransport(`http://127.0.0.1:${port}`, { maxSockets: 1024 });
  }

  /** Talks to another server from now on (a restarted one); log in again. */
  connect(port: number): void {
    this.transport.close();
    this.transport = new HttpTransport(`http://127.0.0.1:${port}`, { maxSockets: 1024 });
    this.token = '';
  }

  async login(): Promise<void> {
    const body = Buffer.from(new URLSearchParams({ username: 'admin', password: PASSWORD }).toString());
    const answer = await this.call('login', 'POST', '/admin-api/account/v1/login', {
      body,
      headers: [['Content-Type', 'application/x-www-form-urlencoded']],
    });
    if (!answer.ok) throw new Error(`login failed with ${answer.status}: ${answer.body.toString()}`);
    this.token = (JSON.parse(answer.body.toString()) as { token: string }).token;
  }

  /**
   * One timed call. `expect`: the statuses that are right (default any 2xx). A network error
   * is status 0. Failures are recorded; the caller gets the answer either way.
   */
  async call(
    name: string,
    method: string,
    path: string,
    options: { body?: Buffer; headers?: [string, string][]; expect?: readonly number[] } = {},
  ): Promise<Answer> {
    const headers: [string, string][] = [...(options.headers ?? [])];
    if (this.token !== '' && !path.startsWith('/s/')) headers.push(['X-Security-Token', this.token]);
    const begun = performance.now();
    let status = 0;
    let body: Buffer = Buffer.alloc(0);
    let networkError = '';
    try {
      const answer = await this.transport.send({
        method,
        path,
        headers,
        body: options.body,
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
      status = answer.status;
      body = answer.body;
    } catch (error) {
      networkError = (error as Error).message;
    }
    const ms = performance.now() - begun;
    const ok =
      status !== 0 &&
      (options.expect === undefined ? status >= 200 && status < 300 : options.expect.includes(status));
    this.total++;
    let phase = this.calls.get(this.phase);
    if (phase === undefined) this.calls.set(this.phase, (phase = new Map<string, CallStats>()));
    let stats = phase.get(name);
    if (stats === undefined) phase.set(name, (stats = { ms: [], errors: 0 }));
    stats.ms.push(ms);
    if (!ok)
      this.fail(
        name,
        `${method} ${shorten(path)}`,
        status,
        networkError !== '' ? networkError : body.toString('utf8', 0, 500),
      );
    return { status, body, ok };
  }

  /** Records a failed call: an unexpected answer, or one whose content is wrong. */
  fail(call: string, request: string, status: number, detail: string): void {
    this.errorCount++;
    const stats = this.calls.get(this.phase)?.get(call);
    if (stats !== undefined) stats.errors++;
    const error = { t: (Date.now() - this.started) / 1000, phase: this.phase, call, request, status, detail };
    if (this.errors.length < 200) this.errors.push(error);
    if (this.errorCount <= 20)
      console.error(`ERROR ${error.t.toFixed(1)}s ${call}: ${request} → ${status} ${detail}`);
  }

  close(): void {
    this.transport.close();
  }
}

function shorten(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

function documentPath(key: string): string {
  return `${PUSH}/documents?key=${encodeURIComponent(key)}`;
}

function json<T>(answer: Answer): T | undefined {
  try {
    return JSON.parse(answer.body.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

interface StateView {
  state: string;
  documents?: number;
  stagedChanges?: number;
  generations?: number;
  mergesRunning?: number;
  stats?: {
    TotCommits: number;
    TotCommitFailures: number;
    TotMergesDone: number;
    TotMergesFailed: number;
    CurKilled: number;
  };
}

interface SearchAnswer {
  response?: {
    resultPacket?: {
      resultsSummary: { totalMatching: number; timedOut?: boolean };
      results: { liveUrl: string }[];
    };
  };
}

/** How often the verification asks a search again that the server shed or answered in part. */
const SEARCH_ATTEMPTS = 10;

// ---------------------------------------------------------------------------------------
// Samples

interface Sample {
  /** Seconds since the server started. */
  t: number;
  phase: Phase;
  rss: number;
  fds: number;
  threads: number;
  /** CPU used by the server since the previous sample, in % of one core (all its threads). */
  cpuPercent: number;
  /** The machine's 1-minute load average: other people's work slows the server down too. */
  loadAverage: number;
  heapUsed: number;
  eventLoopP99Ms: number;
  /** Bytes under data/ (index, journal, generation logs, snapshots). */
  diskBytes: number;
  documents: number;
  generations: number;
  stagedChanges: number;
  commits: number;
  mergesRunning: number;
  /** Calls answered per second since the previous sample. */
  callsPerSecond: number;
  errors: number;
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
  return match === null ? Number.NaN : Number(match[1]);
}

class Sampler {
  readonly samples: Sample[] = [];
  private stopped = false;
  private loop: Promise<void> | undefined;
  private lastTotal = 0;
  private lastT = 0;
  private lastCpu = 0;

  constructor(
    private readonly server: ServerProcess,
    private readonly api: Api,
    private readonly home: string,
    private readonly started: number,
    private readonly everyMs: number,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** One sample now (also used at phase ends, so that every phase has one). */
  async take(): Promise<Sample | undefined> {
    if (!this.server.running) return undefined;
    const proc = readProcStats(this.server.pid);
    const t = (Date.now() - this.started) / 1000;
    const metrics = await this.api.call('metrics', 'GET', '/metrics');
    const text = metrics.body.toString('utf8');
    const state = json<StateView>(await this.api.call('state', 'GET', `${PUSH}/state`)) ?? {
      state: 'unknown',
    };
    const sample: Sample = {
      t,
      phase: this.api.phase,
      rss: proc.rss,
      fds: proc.fds,
      threads: proc.threads,
      cpuPercent: t > this.lastT ? (100 * (proc.cpuSeconds - this.lastCpu)) / (t - this.lastT) : 0,
      loadAverage: loadavg()[0]!,
      heapUsed: metric(text, 'nodejs_heap_size_used_bytes'),
      eventLoopP99Ms: metric(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
      diskBytes: existsSync(join(this.home, 'data')) ? dirSize(join(this.home, 'data')) : 0,
      documents: state.documents ?? Number.NaN,
      generations: state.generations ?? Number.NaN,
      stagedChanges: state.stagedChanges ?? Number.NaN,
      commits: state.stats?.TotCommits ?? Number.NaN,
      mergesRunning: state.mergesRunning ?? Number.NaN,
      callsPerSecond: t > this.lastT ? (this.api.total - this.lastTotal) / (t - this.lastT) : 0,
      errors: this.api.errorCount,
    };
    this.lastT = t;
    this.lastTotal = this.api.total;
    this.lastCpu = proc.cpuSeconds;
    this.samples.push(sample);
    console.log(
      `${t.toFixed(0).padStart(5)}s ${sample.phase.padEnd(6)} rss ${formatBytes(sample.rss).padStart(9)}  heap ${formatBytes(sample.heapUsed).padStart(9)}  ` +
        `fds ${sample.fds}  threads ${sample.threads}  cpu ${sample.cpuPercent.toFixed(0)}%  load ${sample.loadAverage.toFixed(1)}  disk ${formatBytes(sample.diskBytes)}  docs ${sample.documents}  gens ${sample.generations}  ` +
        `staged ${sample.stagedChanges}  commits ${sample.commits}  ${sample.callsPerSecond.toFixed(0)} calls/s  loop p99 ${sample.eventLoopP99Ms.toFixed(1)} ms  errors ${sample.errors}`,
    );
    return sample;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const next = Date.now() + this.everyMs;
      try {
        await this.take();
      } catch (error) {
        // The server died or /proc vanished: the calls' errors tell the story; keep the loop quiet.
        console.error(`sample failed: ${(error as Error).message}`);
      }
      while (!this.stopped && Date.now() < next) await sleep(Math.min(200, next - Date.now()));
    }
  }
}

// ---------------------------------------------------------------------------------------
// Content

/** The unique word of the n-th soak PUT: letters only (one token), ending in `qx` so no stemmer shortens it. */
function tokenOf(n: number): string {
  let letters = '';
  do {
    letters = String.fromCharCode(97 + (n % 26)) + letters;
    n = Math.floor(n / 26);
  } while (n > 0);
  return `zsoak${letters}qx`;
}

function titleHeader(title: string): [string, string][] {
  // A header must be ASCII; the corpus titles are.
  return /^[\x20-\x7e]*$/.test(title) ? [['X-Service-Push-Metadata-Title', title]] : [];
}

const TEXT_PLAIN: [string, string] = ['Content-Type', 'text/plain; charset=utf-8'];

/** The queries of the mix, in the query language: a spread of the benchmark classes and operators. */
function mixQueries(): string[] {
  // The project's mixed set, and a word of the pages this benchmark writes.
  return [...MIXED_QUERIES.map((query) => query.text), 'soak marker'];
}

// ---------------------------------------------------------------------------------------
// The run

interface LoadResult {
  docs: number;
  bytes: number;
  seconds: number;
  docsPerSecond: number;
  commitMs: number;
  documentsAfter: number;
}

interface Check {
  check: string;
  checked: number;
  failed: number;
  failures: string[];
  /** Why something was not checked. */
  notes: string[];
}

interface MixResult {
  seconds: number;
  apiCommits: number;
  commitsBefore: number;
  commitsAfter: number;
  snapshots: number;
  puts: number;
  deletes: number;
}

async function main(): Promise<number> {
  const settings = readSettings();
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return 0;
  }
  if (!procAvailable()) {
    console.log('skipped: the soak benchmark reads /proc (Linux only)');
    return 0;
  }
  const home = mkdtempSync(join(settings.folder, 'pushsearch-soak-'));
  const serverOutput = join(home, 'server-output.log');
  console.log(
    `soak: ${settings.docs} RFC pages, ${settings.minutes} min of mixed traffic, ${settings.concurrency} workers; ` +
      `auto-commit every ${settings.autoCommitSeconds} s or ${settings.autoCommitChanges} changes; SEARCH_HOME ${home}`,
  );
  const started = Date.now();
  const server = await ServerProcess.start(home, serverOutput, PASSWORD);
  const api = new Api(server.port, started);
  const sampler = new Sampler(server, api, home, started, settings.sampleSeconds * 1000);
  const random = Math.random;
  const book = new KeyBook(random);
  const checks: Check[] = [];
  let load: LoadResult | undefined;
  let mix: MixResult | undefined;
  let exitCode: number | null = null;
  let sample: KeySample | undefined;
  try {
    await api.login();
    await createCollection(api, settings);
    sampler.start();

    api.phase = 'load';
    const texts: string[] = [];
    const extras: RfcPage[] = [];
    load = await loadPages(api, book, settings, texts, extras);
    await sampler.take();

    api.phase = 'mix';
    mix = await runMix(api, book, settings, texts, extras, random);
    await sampler.take();

    api.phase = 'verify';
    checks.push(...(await verifyCounts(api, book, home, load, mix)));
    sample = book.sample(settings.verify);
    checks.push(...(await verifyKeys(api, book, sample, '')));
  } finally {
    await sampler.stop();
    api.close();
    exitCode = await server.stop();
  }
  checks.push(stopCheck('server stops cleanly on SIGTERM (exit code 0)', exitCode));

  // Everything acknowledged must survive a restart: the index on disk is what a restart reads.
  if (sample !== undefined) {
    console.log('restart: the server again on the same SEARCH_HOME');
    const again = await ServerProcess.start(home, serverOutput, PASSWORD);
    try {
      api.phase = 'restart';
      api.connect(again.port);
      await api.login();
      checks.push(...(await verifyRestart(api, book, sample)));
    } finally {
      api.close();
      checks.push(
        stopCheck('after a restart: server stops cleanly on SIGTERM (exit code 0)', await again.stop()),
      );
    }
  }
  checks.push(logCheck(join(home, 'web', 'log', 'push.log'), 'web/log/push.log holds no error line'));
  checks.push(logCheck(serverOutput, 'server output holds no error line (level ≥ 50)'));

  const report = buildReport(settings, load, mix, api, sampler.samples, checks);
  writeFileSync(`${settings.out}.md`, report.markdown);
  writeFileSync(`${settings.out}.json`, JSON.stringify(report.json, null, 1) + '\n');
  console.log(report.console);
  console.log(`report: ${settings.out}.md, samples: ${settings.out}.json`);
  if (settings.keep) console.log(`SEARCH_HOME kept: ${home}`);
  else rmSync(home, { recursive: true, force: true });
  return report.passed ? 0 : 1;
}

async function createCollection(api: Api, settings: Settings): Promise<void> {
  const created = await api.call('create-collection', 'PUT', `/admin-api/v1/collections/${COLLECTION}`, {
    body: Buffer.from(JSON.stringify({ type: 'push' })),
    headers: [['Content-Type', 'application/json']],
  });
  if (!created.ok)
    throw new Error(`creating the collection failed with ${created.status}: ${created.body.toString()}`);
  const config = json<{ files: Record<string, string | null> }>(
    await api.call('read-config', 'GET', `/admin-api/v1/collections/${COLLECTION}/config`),
  );
  const cfg =
    (config?.files['collection.cfg'] ?? '') +
    `push.auto-commit.timeout-seconds=${settings.autoCommitSeconds}\npush.auto-commit.max-changes=${settings.autoCommitChanges}\n`;
  // collection.cfg is read when the collection starts: the first push request starts it.
  const written = await api.call('write-config', 'PUT', `/admin-api/v1/collections/${COLLECTION}/config`, {
    body: Buffer.from(JSON.stringify({ files: { 'collection.cfg': cfg } })),
    headers: [['Content-Type', 'application/json']],
  });
  if (!written.ok)
    throw new Error(`writing collection.cfg failed with ${written.status}: ${written.body.toString()}`);
}

/**
 * Pushes the first `docs` pages of the corpus over `loadConnections` keep-alive connections,
 * one PUT each, then commits. Keeps some page texts (the content of replacing PUTs) and the
 * pages after the loaded ones (added during the mix).
 */
async function loadPages(
  api: Api,
  book: KeyBook,
  settings: Settings,
  texts: string[],
  extras: RfcPage[],
): Promise<LoadResult> {
  const keepEvery = Math.max(1, Math.floor(settings.docs / MAX_TEXT_POOL));
  const pages = readRfcCorpus({ limit: settings.docs + MAX_EXTRA_PAGES })[Symbol.asyncIterator]();
  let taken = 0;
  let loaded = 0;
  let bytes = 0;
  const begun = performance.now();
  let lastReport = begun;
  // Concurrent next() calls on one async generator queue up: each worker gets its own page.
  const nextPage = async (): Promise<RfcPage | undefined> => {
    if (taken >= settings.docs) return undefined;
    const index = taken++;
    const step = await pages.next();
    if (step.done === true) return undefined;
    if (index % keepEvery === 0) texts.push(step.value.text);
    return step.value;
  };
  await Promise.all(
    Array.from({ length: settings.loadConnections }, async () => {
      for (let page = await nextPage(); page !== undefined; page = await nextPage()) {
        const body = Buffer.from(page.text, 'utf8');
        const answer = await api.call('load-put', 'PUT', documentPath(page.key), {
          body,
          headers: [TEXT_PLAIN, ...titleHeader(page.title)],
        });
        if (answer.ok) book.put(page.key, fingerprint(body), undefined, false);
        else book.uncertain(page.key);
        loaded++;
        bytes += body.length;
        if (performance.now() - lastReport > 10_000) {
          lastReport = performance.now();
          console.log(`load: ${loaded} pages, ${(loaded / ((lastReport - begun) / 1000)).toFixed(0)} docs/s`);
        }
      }
    }),
  );
  const seconds = (performance.now() - begun) / 1000;
  for (let step = await pages.next(); step.done !== true; step = await pages.next()) extras.push(step.value);
  if (loaded < settings.docs) console.log(`note: the corpus has only ${loaded} pages; loaded them all`);
  if (texts.length === 0) texts.push(...extras.slice(0, 100).map((p) => p.text));

  const commitBegun = performance.now();
  const commit = await api.call('load-commit', 'POST', `${PUSH}/commit?wait=true`, { expect: [200] });
  const commitMs = performance.now() - commitBegun;
  const state = json<StateView>(await api.call('state', 'GET', `${PUSH}/state`));
  const result: LoadResult = {
    docs: loaded,
    bytes,
    seconds,
    docsPerSecond: loaded / seconds,
    commitMs,
    documentsAfter: state?.documents ?? Number.NaN,
  };
  console.log(
    `load: ${loaded} pages (${formatBytes(bytes)}) in ${seconds.toFixed(1)} s = ${result.docsPerSecond.toFixed(0)} docs/s, ` +
      `${(bytes / 1048576 / seconds).toFixed(1)} MiB/s; final commit ${formatMs(commitMs)} (${commit.status}); documents ${result.documentsAfter}`,
  );
  return result;
}

/** The mixed traffic: `concurrency` workers plus a commit and a snapshot actor, until the time is up. */
async function runMix(
  api: Api,
  book: KeyBook,
  settings: Settings,
  texts: string[],
  extras: RfcPage[],
  random: () => number,
): Promise<MixResult> {
  const queries = mixQueries();
  let tokens = 0;
  let added = 0;
  let apiCommits = 0;
  let snapshots = 0;
  let puts = 0;
  let deletes = 0;
  const before = json<StateView>(await api.call('state', 'GET', `${PUSH}/state`));
  const begun = performance.now();
  const end = Date.now() + settings.minutes * 60_000;
  const timeLeft = (): boolean => Date.now() < end;

  const put = async (name: 'put-replace' | 'put-add'): Promise<void> => {
    let key: string | undefined;
    let text: string | undefined;
    let title = 'RFC soak';
    if (name === 'put-replace') key = book.claimLive();
    else {
      // Half the adds bring deleted pages back, half are new keys: unloaded corpus pages, then made-up ones.
      if (random() < 0.5) key = book.claimDeleted();
      if (key === undefined) {
        const page = extras.pop();
        key = page?.key ?? `https://soak.example.org/added/${added++}`;
        text = page?.text;
        title = page?.title ?? title;
        if (book.known(key) || !book.claim(key)) return;
      }
    }
    if (key === undefined) return;
    try {
      const token = tokenOf(tokens++);
      const body = Buffer.from(
        `${text ?? texts[Math.floor(random() * texts.length)]}\n\nsoak marker ${token}\n`,
        'utf8',
      );
      const answer = await api.call(name, 'PUT', documentPath(key), {
        body,
        headers: [TEXT_PLAIN, ...titleHeader(`${title} ${token}`)],
      });
      if (answer.ok) {
        book.put(key, fingerprint(body), token);
        puts++;
      } else book.uncertain(key);
    } finally {
      book.release(key);
    }
  };

  const remove = async (): Promise<void> => {
    const key = book.claimLive();
    if (key === undefined) return;
    try {
      const answer = await api.call('delete', 'DELETE', documentPath(key));
      if (answer.ok) {
        book.delete(key);
        deletes++;
      } else book.uncertain(key);
    } finally {
      book.release(key);
    }
  };

  // A GET while nobody changes the key must return the last acknowledged put, staged or committed.
  const get = async (): Promise<void> => {
    const key = book.claimLive();
    if (key === undefined) return;
    try {
      const answer = await api.call('get', 'GET', documentPath(key), { expect: [200] });
      if (!answer.ok) return;
      const problem = documentProblem(answer, book.record(key)!.fingerprint);
      if (problem !== undefined) api.fail('get', `GET ${key}`, answer.status, problem);
    } finally {
      book.release(key);
    }
  };

  const search = async (): Promise<void> => {
    // Not the soak's unique words: a word found in under 3 documents makes the server compute a
    // spelling suggestion, a scan of the vocabulary that dominated the run when they were here
    // (see the verification calls). The mix measures the queries users type.
    const query = queries[Math.floor(random() * queries.length)]!;
    const path = `/s/search.json?collection=${COLLECTION}&query=${encodeURIComponent(query)}`;
    const answer = await api.call('search', 'GET', path, { expect: [200] });
    if (answer.ok && json<SearchAnswer>(answer)?.response?.resultPacket === undefined) {
      api.fail(
        'search',
        `GET ${path}`,
        answer.status,
        `no resultPacket in ${answer.body.toString('utf8', 0, 200)}`,
      );
    }
  };

  const worker = async (): Promise<void> => {
    while (timeLeft()) {
      const r = random();
      if (r < 0.4) await put('put-replace');
      else if (r < 0.5) await put('put-add');
      else if (r < 0.6) await remove();
      else if (r < 0.63) await get();
      else await search();
    }
  };

  const committer = async (): Promise<void> => {
    for (let n = 0; ; n++) {
      await sleepUntil(Math.min(end, Date.now() + settings.commitSeconds * 1000));
      if (!timeLeft()) return;
      const wait = n % 2 === 0;
      apiCommits++;
      await api.call(wait ? 'commit' : 'commit-async', 'POST', `${PUSH}/commit?wait=${wait}`, {
        expect: [wait ? 200 : 202],
      });
    }
  };

  const snapshotter = async (): Promise<void> => {
    for (;;) {
      await sleepUntil(Math.min(end, Date.now() + settings.snapshotSeconds * 1000));
      if (!timeLeft()) return;
      const name = `soak-${snapshots++}`;
      const path = `${PUSH}/snapshot/${name}`;
      const created = await api.call('snapshot-create', 'PUT', path, { expect: [200] });
      const list = await api.call('snapshot-list', 'GET', `${PUSH}/snapshot`, { expect: [200] });
      const listed = json<{ snapshots: { name: string }[] }>(list)?.snapshots.map((s) => s.name) ?? [];
      if (created.ok && list.ok && !listed.includes(name)) {
        api.fail(
          'snapshot-list',
          `GET ${PUSH}/snapshot`,
          list.status,
          `snapshot ${name} is missing from ${JSON.stringify(listed)}`,
        );
      }
      if (created.ok) await api.call('snapshot-delete', 'DELETE', path, { expect: [200] });
    }
  };

  await Promise.all([...Array.from({ length: settings.concurrency }, worker), committer(), snapshotter()]);
  const seconds = (performance.now() - begun) / 1000;
  const after = json<StateView>(await api.call('state', 'GET', `${PUSH}/state`));
  return {
    seconds,
    apiCommits,
    commitsBefore: before?.stats?.TotCommits ?? Number.NaN,
    commitsAfter: after?.stats?.TotCommits ?? Number.NaN,
    snapshots,
    puts,
    deletes,
  };
}

/** Why a GET answer does not hold the content put last; undefined when it does. */
function documentProblem(answer: Answer, expected: string): string | undefined {
  const document = json<{ pushContent?: { content?: string } }>(answer);
  const content = document?.pushContent?.content;
  if (content === undefined) return `no pushContent.content in ${answer.body.toString('utf8', 0, 200)}`;
  const got = fingerprint(Buffer.from(content, 'base64'));
  return got === expected
    ? undefined
    : `content fingerprint ${got}, expected ${expected} (the last acknowledged put)`;
}

function newCheck(checks: Check[], name: string): Check {
  const c: Check = { check: name, checked: 0, failed: 0, failures: [], notes: [] };
  checks.push(c);
  return c;
}

function failed(c: Check, why: string): void {
  c.failed++;
  if (c.failures.length < 20) c.failures.push(why);
}

/** After the mix: the load's count, auto-commits, a final commit and the count after it, snapshots left. */
async function verifyCounts(
  api: Api,
  book: KeyBook,
  home: string,
  load: LoadResult,
  mix: MixResult,
): Promise<Check[]> {
  const checks: Check[] = [];
  const loaded = newCheck(checks, 'documents after the load = pages loaded');
  loaded.checked++;
  if (load.documentsAfter !== load.docs)
    failed(loaded, `state says ${load.documentsAfter} documents, ${load.docs} were loaded`);

  const auto = newCheck(checks, 'auto-commit fired during the mix (commits published > API commits)');
  auto.checked++;
  const published = mix.commitsAfter - mix.commitsBefore;
  if (!(published > mix.apiCommits)) {
    failed(
      auto,
      `${published} commits published during the mix, ${mix.apiCommits} asked for through the API: no auto-commit seen`,
    );
  }

  const commit = await api.call('final-commit', 'POST', `${PUSH}/commit?wait=true`, { expect: [200] });
  const count = newCheck(checks, 'documents after the final commit = live keys acknowledged');
  if (!commit.ok) failed(count, `final commit answered ${commit.status}`);
  else await checkCount(api, book, count);

  const snapshots = newCheck(checks, 'no snapshot left (listed or on disk)');
  snapshots.checked++;
  const listed = json<{ snapshots: { name: string }[] }>(
    await api.call('snapshot-list', 'GET', `${PUSH}/snapshot`, { expect: [200] }),
  );
  const folder = join(home, 'data', COLLECTION, 'snapshot');
  const onDisk = existsSync(folder) ? readdirSync(folder) : [];
  if ((listed?.snapshots.length ?? -1) !== 0 || onDisk.length > 0) {
    failed(
      snapshots,
      `listed ${JSON.stringify(listed?.snapshots.map((s) => s.name))}, on disk ${JSON.stringify(onDisk)}`,
    );
  }
  return checks;
}

/** The collection is RUNNING with as many documents as live keys acknowledged, nothing staged. */
async function checkCount(api: Api, book: KeyBook, c: Check): Promise<void> {
  const state = json<StateView>(await api.call('state', 'GET', `${PUSH}/state`));
  if (book.uncertainCount > 0) {
    c.notes.push(`not checked: ${book.uncertainCount} keys have an unknown state after failed calls`);
    return;
  }
  c.checked++;
  if (state?.state !== 'RUNNING') failed(c, `state is ${JSON.stringify(state)}`);
  else if (state.documents !== book.liveCount)
    failed(c, `state says ${state.documents} documents, ${book.liveCount} expected`);
  else if (state.stagedChanges !== 0) failed(c, `${state.stagedChanges} changes staged, none expected`);
}

type KeySample = ReturnType<KeyBook['sample']>;

/**
 * A sample of keys by GET (content of the last acknowledged put, committed; or pushContent null) and by
 * search (a live key's unique word finds it, once; the word of a replaced or deleted version
 * finds nothing). `label` prefixes the check names (the same checks run after a restart).
 */
async function verifyKeys(api: Api, book: KeyBook, sample: KeySample, label: string): Promise<Check[]> {
  const checks: Check[] = [];
  const getLive = newCheck(
    checks,
    `${label}GET of keys put during the mix: 200, committed, content of the last put`,
  );
  const getUntouched = newCheck(
    checks,
    `${label}GET of loaded keys never touched since: 200, committed, content as loaded`,
  );
  const getDeleted = newCheck(checks, `${label}GET of deleted keys: pushContent null`);
  const searchLive = newCheck(checks, `${label}search for a live key's unique word finds that key, once`);
  const searchGone = newCheck(
    checks,
    `${label}search for the unique word of a replaced or deleted version finds nothing`,
  );
  let searchesRetried = 0;
  // A search shed by the server (503 with Retry-After: every search thread busy, or the query's
  // budget spent waiting) or answered in part (timedOut) is asked again, as a client facing load
  // shedding does; only a complete answer is checked.
  const searchFor = async (token: string): Promise<{ total: number; urls: string[] } | undefined> => {
    for (let attempt = 1; ; attempt++) {
      const answer = await api.call(
        'verify-search',
        'GET',
        `/s/search.json?collection=${COLLECTION}&query=${token}`,
        { expect: [200, 503] },
      );
      const packet = json<SearchAnswer>(answer)?.response?.resultPacket;
      const shed = answer.status === 503 || packet?.resultsSummary.timedOut === true;
      if (!shed || attempt === SEARCH_ATTEMPTS)
        return packet === undefined
          ? undefined
          : { total: packet.resultsSummary.totalMatching, urls: packet.results.map((r) => r.liveUrl) };
      searchesRetried++;
      await sleep(1000); // the server's Retry-After for a shed search
    }
  };
  const verifyGone = async (token: string, key: string): Promise<void> => {
    searchGone.checked++;
    const found = await searchFor(token);
    if (found?.total !== 0)
      failed(searchGone, `${token} (an old version of ${key}): ${JSON.stringify(found)}`);
  };
  const verifyLive = async (key: string, c: Check): Promise<void> => {
    const record = book.record(key)!;
    c.checked++;
    const answer = await api.call('verify-get', 'GET', documentPath(key), { expect: [200] });
    if (!answer.ok)
      failed(c, `GET ${key} answered ${answer.status}: ${answer.body.toString('utf8', 0, 200)}`);
    else {
      const problem = documentProblem(answer, record.fingerprint);
      if (problem !== undefined) failed(c, `GET ${key}: ${problem}`);
      else if (json<{ committed?: boolean }>(answer)?.committed !== true)
        failed(c, `GET ${key}: committed is not true after the final commit`);
    }
    if (record.token !== undefined) {
      searchLive.checked++;
      const found = await searchFor(record.token);
      if (found?.total !== 1 || found.urls[0] !== key)
        failed(searchLive, `${record.token} (${key}): ${JSON.stringify(found)}`);
    }
    if (record.previousToken !== undefined) await verifyGone(record.previousToken, key);
  };
  const verifyDeleted = async (key: string): Promise<void> => {
    getDeleted.checked++;
    const answer = await api.call('verify-get', 'GET', documentPath(key), { expect: [200] });
    // An absent key answers 200 with pushContent null (as the original does).
    if (!answer.ok || json<{ pushContent?: unknown }>(answer)?.pushContent !== null)
      failed(getDeleted, `GET ${key} answered ${answer.status}: ${answer.body.toString('utf8', 0, 200)}`);
    const previous = book.record(key)!.previousToken;
    if (previous !== undefined) await verifyGone(previous, key);
  };
  const work: (() => Promise<void>)[] = [
    ...sample.touchedLive.map((key) => () => verifyLive(key, getLive)),
    ...sample.untouched.map((key) => () => verifyLive(key, getUntouched)),
    ...sample.deleted.map((key) => () => verifyDeleted(key)),
  ];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let job = work.shift(); job !== undefined; job = work.shift()) await job();
    }),
  );
  // A GET or search that failed outright is also in the error list; a check is never empty by accident.
  for (const c of [getLive, getDeleted, searchLive])
    if (c.checked === 0) c.notes.push('nothing to check (the mix was too short?)');
  if (searchesRetried > 0)
    searchLive.notes.push(
      `${searchesRetried} searches shed (503) or answered in part (timedOut), asked again`,
    );
  return checks;
}

/**
 * The server started again on the same SEARCH_HOME after its clean stop: the collection must
 * open (the manifest and every file it names intact), with the documents expected, and the
 * sampled keys must read as before.
 */
async function verifyRestart(api: Api, book: KeyBook, sample: KeySample): Promise<Check[]> {
  const checks: Check[] = [];
  const count = newCheck(checks, 'after a restart: the collection opens, documents = live keys acknowledged');
  // The state call does not start a collection; any other push request does.
  const first = sample.touchedLive[0] ?? sample.untouched[0];
  if (first !== undefined) await api.call('verify-get', 'GET', documentPath(first), { expect: [200] });
  await checkCount(api, book, count);
  checks.push(...(await verifyKeys(api, book, sample, 'after a restart: ')));
  return checks;
}

function stopCheck(name: string, exitCode: number | null): Check {
  return {
    check: name,
    checked: 1,
    failed: exitCode === 0 ? 0 : 1,
    failures: exitCode === 0 ? [] : [`exit code ${exitCode}`],
    notes: [],
  };
}

/** The lines `pushsearch serve` writes for a person at start (where to click, how to log in): not log lines. */
const START_MESSAGE_LINE =
  /^pushsearch is running at |^ {2}(admin UI|search page|API UI|log in as|admin's password) /;

/**
 * A check that `file` (JSON lines, and whatever else the process wrote to stderr) holds no
 * line of level error or worse. Node's own warnings (`(node:PID) …Warning: …`) are notes: worth
 * reading, not failures. Any other line that is not JSON (a stack trace) is a failure.
 */
function logCheck(file: string, name: string): Check {
  const c: Check = { check: name, checked: 0, failed: 0, failures: [], notes: [] };
  if (!existsSync(file)) return c;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    c.checked++;
    let level: unknown;
    try {
      level = (JSON.parse(line) as { level?: unknown }).level;
    } catch {
      level = /^\(node:\d+\) (\[\w+\] )?\w*(Warning|Deprecation): |^\(Use `node --trace-warnings/.test(line)
        ? 'node-warning'
        : START_MESSAGE_LINE.test(line)
          ? 'start-message'
          : 'unparsed';
    }
    if (level === 'start-message') continue;
    if (level === 'node-warning') {
      if (c.notes.length < 20 && !line.startsWith('(Use')) c.notes.push(line.slice(0, 600));
    } else if (
      level === 'error' ||
      level === 'fatal' ||
      level === 'unparsed' ||
      (typeof level === 'number' && level >= 50)
    ) {
      c.failed++;
      if (c.failures.length < 20) c.failures.push(line.slice(0, 600));
    }
  }
  return c;
}

// ---------------------------------------------------------------------------------------
// Report

const CALL_ORDER = [
  'put-replace',
  'put-add',
  'delete',
  'get',
  'search',
  'commit',
  'commit-async',
  'snapshot-create',
  'snapshot-list',
  'snapshot-delete',
  'state',
  'metrics',
];

interface Report {
  markdown: string;
  console: string;
  json: unknown;
  passed: boolean;
}

function buildReport(
  settings: Settings,
  load: LoadResult | undefined,
  mix: MixResult | undefined,
  api: Api,
  samples: readonly Sample[],
  checks: readonly Check[],
): Report {
  const calls = mix === undefined ? [] : callRows(api.calls.get('mix') ?? new Map(), mix.seconds, CALL_ORDER);
  const rowOf = (r: CallRow, phase?: string): TableRow => ({
    ...(phase === undefined ? {} : { phase }),
    call: r.call,
    count: r.count,
    ...(phase === undefined ? { 'per s': r.perSecond } : {}),
    'p50 ms': r.p50Ms,
    'p99 ms': r.p99Ms,
    'max ms': Math.round(r.maxMs),
    errors: r.errors,
  });
  const callTable: TableRow[] = calls.map((r) => rowOf(r));
  // Load, verification and restart calls: their latencies, not rates (those phases are not timed runs).
  const otherPhases: Phase[] = ['load', 'verify', 'restart'];
  const otherCalls = otherPhases.flatMap((phase) =>
    callRows(api.calls.get(phase) ?? new Map(), 1, CALL_ORDER).map((r) => ({ phase, ...r })),
  );
  const otherTable: TableRow[] = otherCalls.map((r) => rowOf(r, r.phase));

  // The second half of the mix: the judged window (the first half lets caches and generations settle).
  const mixSamples = samples.filter((s) => s.phase === 'mix');
  const halfway =
    mixSamples.length === 0
      ? 0
      : mixSamples[0]!.t + (mixSamples[mixSamples.length - 1]!.t - mixSamples[0]!.t) / 2;
  const window = mixSamples.filter((s) => s.t >= halfway);
  const times = window.map((s) => s.t);
  const spreads: { name: string; spread: Spread; bytes: boolean; flat?: boolean; growth?: Growth }[] = [];
  if (window.length >= 2) {
    const rss = spreadOf(
      times,
      window.map((s) => s.rss),
    );
    const heap = spreadOf(
      times,
      window.map((s) => s.heapUsed),
    );
    const disk = spreadOf(
      times,
      window.map((s) => s.diskBytes),
    );
    spreads.push({ name: 'RSS', spread: rss, bytes: true, flat: isFlat(rss) });
    // The heap is a GC sawtooth: judged by its trend (medians of the two halves), not sample by sample.
    spreads.push({
      name: 'heap used',
      spread: heap,
      bytes: true,
      growth: growthOf(
        times,
        window.map((s) => s.heapUsed),
        0,
        0.1,
      ),
    });
    spreads.push({
      name: 'open fds',
      spread: spreadOf(
        times,
        window.map((s) => s.fds),
      ),
      bytes: false,
      growth: growthOf(
        times,
        window.map((s) => s.fds),
      ),
    });
    spreads.push({
      name: 'threads',
      spread: spreadOf(
        times,
        window.map((s) => s.threads),
      ),
      bytes: false,
      growth: growthOf(
        times,
        window.map((s) => s.threads),
        1,
        0,
      ),
    });
    // Merges make the index breathe; a leak of files would show as a trend.
    spreads.push({
      name: 'data folder',
      spread: disk,
      bytes: true,
      growth: growthOf(
        times,
        window.map((s) => s.diskBytes),
        0,
        0.25,
      ),
    });
  }
  const spreadTable: TableRow[] = spreads.map(({ name, spread, bytes, flat, growth }) => {
    const f = (v: number): string => (bytes ? formatBytes(v) : String(Math.round(v)));
    const allowed =
      growth === undefined ? '' : bytes ? `+${formatBytes(growth.allowance)}` : `+${growth.allowance}`;
    return {
      gauge: name,
      min: f(spread.min),
      median: f(spread.median),
      max: f(spread.max),
      'spread around median': `±${(spread.deviation * 100).toFixed(1)}%`,
      'slope per minute': bytes ? formatBytes(spread.slopePerMinute) : spread.slopePerMinute.toFixed(2),
      verdict:
        flat !== undefined
          ? `${flat ? 'flat' : 'NOT flat'} (±10%)`
          : `${growth!.grows ? 'GROWS' : 'does not grow'} (median ${f(growth!.firstMedian)} → ${f(growth!.secondMedian)}, allowed ${allowed})`,
    };
  });
  const rssFlat = spreads.find((s) => s.name === 'RSS')?.flat;
  const fdsGrow = spreads.find((s) => s.name === 'open fds')?.growth?.grows;

  const verificationPassed = load !== undefined && mix !== undefined && checks.every((c) => c.failed === 0);
  const passed = api.errorCount === 0 && verificationPassed;
  const published = mix === undefined ? 0 : mix.commitsAfter - mix.commitsBefore;
  const verdict = [
    api.errorCount === 0 ? '**errors: 0**' : `**errors: ${api.errorCount} — FAILED** (see Errors)`,
    verificationPassed ? '**verification: passed**' : '**verification: FAILED** (see Verification)',
    rssFlat === undefined
      ? 'RSS: too few samples to judge'
      : rssFlat
        ? 'RSS: flat (within ±10% of its median over the second half)'
        : '**RSS: NOT flat** (beyond ±10% of its median over the second half)',
    fdsGrow === undefined
      ? 'open fds: too few samples to judge'
      : fdsGrow
        ? '**open fds: GROW**'
        : 'open fds: do not grow',
  ];

  const loadText =
    load === undefined
      ? 'The load did not finish.'
      : `${formatCount(load.docs)} pages (${formatBytes(load.bytes)}), one PUT each over ${settings.loadConnections} keep-alive connections: ` +
        `${load.seconds.toFixed(1)} s = **${formatCount(load.docsPerSecond)} docs/s** (${(load.bytes / 1048576 / load.seconds).toFixed(1)} MiB/s, ` +
        `auto-commit on); then one commit: ${formatMs(load.commitMs)}. Documents after it: ${formatCount(load.documentsAfter)}.`;
  const mixText =
    mix === undefined
      ? 'The mix did not finish.'
      : `${mix.seconds.toFixed(0)} s with ${settings.concurrency} workers (each turn: 40% PUT replacing a live page, 10% PUT adding one — ` +
        `half deleted pages put back, half new keys —, 10% DELETE, 3% GET, 37% search over ${mixQueries().length} queries of every class: words, AND, OR, phrases, prefixes, exclusions, metadata), ` +
        `an API commit every ${settings.commitSeconds} s (alternately wait=true and wait=false), a snapshot created, listed and deleted every ` +
        `${settings.snapshotSeconds} s, a state and a /metrics call every ${settings.sampleSeconds} s. ` +
        `${formatCount(mix.puts)} PUTs and ${formatCount(mix.deletes)} DELETEs acknowledged; ` +
        `**${published} commits published, ${mix.apiCommits} asked for through the API: at least ${published - mix.apiCommits} auto-commits** ` +
        `(collection.cfg: push.auto-commit.timeout-seconds=${settings.autoCommitSeconds}, push.auto-commit.max-changes=${settings.autoCommitChanges}).`;

  const checkTable: TableRow[] = checks.map((c) => ({
    check: c.check,
    checked: c.checked,
    failed: c.failed,
    result: c.failed === 0 ? 'ok' : 'FAILED',
  }));
  const failures = checks.flatMap((c) => [
    ...c.failures.map((f) => `- ${c.check}: ${f}`),
    ...c.notes.map((n) => `- ${c.check}: note: ${n}`),
  ]);
  const errorLines = api.errors.map(
    (e) =>
      `- ${e.t.toFixed(1)} s, ${e.phase}, ${e.call}: \`${e.request}\` → ${e.status}: ${e.detail.replace(/\s+/g, ' ').slice(0, 300)}`,
  );

  const every = Math.max(1, Math.ceil(samples.length / 90));
  const shown = samples.filter((_, i) => i % every === 0 || i === samples.length - 1);
  const seriesTable: TableRow[] = shown.map((s) => ({
    t: `${s.t.toFixed(0)} s`,
    phase: s.phase,
    RSS: formatBytes(s.rss),
    heap: formatBytes(s.heapUsed),
    fds: s.fds,
    threads: s.threads,
    'cpu %': Math.round(s.cpuPercent),
    load: Number(s.loadAverage.toFixed(1)),
    disk: formatBytes(s.diskBytes),
    docs: s.documents,
    gens: s.generations,
    staged: s.stagedChanges,
    commits: s.commits,
    merges: s.mergesRunning,
    'calls/s': Math.round(s.callsPerSecond),
    'loop p99 ms': Number(s.eventLoopP99Ms.toFixed(1)),
    errors: s.errors,
  }));

  const machine = `${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${formatBytes(totalmem())} memory, Node ${process.version}, load average at the end ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')}`;
  const command = `node dist/bench/soak.js --docs ${settings.docs} --minutes ${settings.minutes} --concurrency ${settings.concurrency}`;
  const parts = [
    `# Soak: ${settings.minutes} min of mixed push traffic on ${formatCount(load?.docs ?? settings.docs)} RFC pages`,
    `\`${command}\` (${new Date().toISOString()}). Machine: ${machine}. The server is \`pushsearch serve\` in a child process (LOG_LEVEL=warn), its SEARCH_HOME on ${settings.folder}; latencies are measured by the client, over keep-alive connections, with token auth.`,
    `## Verdict\n\n${verdict.map((v) => `- ${v}`).join('\n')}`,
    `## Load\n\n${loadText}`,
    `## Mix\n\n${mixText}`,
    markdownTable(callTable),
    `Calls of the other phases (latencies as the client saw them; verify-search is a search for one unique word, which finds 1 or 0 documents):`,
    markdownTable(otherTable),
    `## Memory, descriptors and disk over the second half of the mix\n\n${window.length} samples from ${halfway.toFixed(0)} s. RSS is flat when every sample is within ±10% of the median. The others grow when the median of the later half of the window exceeds the earlier half's by more than the allowance: fds max(2, 5%), threads 1, heap 10% (a GC sawtooth is no trend), data folder 25% (merges make it breathe; snapshot hard links count twice).`,
    spreadTable.length > 0 ? markdownTable(spreadTable) : 'Too few samples.',
    `## Verification\n\nAfter the mix: a final commit (wait=true), then GETs and searches over a random sample of up to ${settings.verify} keys of each kind (put during the mix, deleted, loaded and never touched since). Then the server is stopped (SIGTERM), started again on the same SEARCH_HOME, and the count and the same keys are checked again.`,
    markdownTable(checkTable),
    failures.length > 0 ? `Failures and notes:\n\n${failures.join('\n')}` : 'No failure.',
    `## Errors\n\n${api.errorCount === 0 ? 'None: every call answered as expected.' : `${api.errorCount} calls failed; the first ${errorLines.length}:\n\n${errorLines.join('\n')}`}`,
    `## Time series (every ${(every * settings.sampleSeconds).toFixed(0)} s)\n\nt: seconds since the server started. RSS, open fds, threads and CPU (% of one core since the previous sample) from /proc; load: the machine's 1-minute load average; heap and event-loop lag p99 from /metrics; disk: the data folder (index, journal, generation logs, snapshots).`,
    markdownTable(seriesTable),
  ];
  const consoleText = [
    '',
    ...verdict.map((v) => v.replace(/\*\*/g, '')),
    '',
    formatTable(callTable),
    '',
    spreadTable.length > 0 ? formatTable(spreadTable) : 'too few samples to judge RSS and fds',
    '',
    formatTable(checkTable),
    ...failures,
  ].join('\n');
  return {
    markdown: parts.join('\n\n') + '\n',
    console: consoleText,
    passed,
    json: {
      command,
      date: new Date().toISOString(),
      machine,
      settings,
      passed,
      errors: api.errorCount,
      verificationPassed,
      load,
      mix:
        mix === undefined
          ? undefined
          : { ...mix, commitsPublished: published, autoCommitsAtLeast: published - mix.apiCommits },
      calls,
      otherCalls,
      secondHalf: Object.fromEntries(
        spreads.map((s) => [s.name, { ...s.spread, flat: s.flat, growth: s.growth }]),
      ),
      checks,
      errorList: api.errors,
      samples,
    },
  };
}

// ---------------------------------------------------------------------------------------

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, Math.max(0, ms)));
}

async function sleepUntil(time: number): Promise<void> {
  await sleep(time - Date.now());
}

try {
  process.exitCode = await main();
} catch (error) {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exitCode = 2;
  } else {
    console.error(error);
    process.exitCode = 1;
  }
}
