/**
 * Replication through real servers (`pushsearch serve` in child processes): an admin with a
 * collection of `--docs` RFC pages (200,000 by default), query processor QP1 pulling from it
 * and QP2 pulling from QP1 (two hops).
 *
 * 1. Initial sync: QP1 starts empty and copies the whole collection; printed in MB/s beside a
 *    `cp -r` of the admin's `live/` folder to the same disk, timed in the same run (the
 *    fastest a plain copy of those bytes goes here), and beside the same copy followed by
 *    `sync` of every copied file and folder (a copy as durable as the query processor's).
 * 2. Rounds: each PUTs `--staged` replacements (10,000 by default; each page gets a word of its
 *    own) into the admin, commits with wait=true, and from the moment the commit answered,
 *    searches QP2 for the words of five of the round's pages until each is found. Printed per
 *    round, then the median of the rounds (the issue's target: under 2 s; our aim: under 1 s).
 *
 * Needs the RFC corpus (see bench/lib/rfc-corpus.ts). A wall-clock benchmark: run it on a
 * quiet machine; the load average is printed with the results.
 *
 * `--cpu-prof-dir <dir>`: the admin (restarted after the load) and QP1 write V8 CPU profiles
 * there when they stop, to see where the initial sync's time goes.
 *
 * Usage: node dist/bench/replication.js [--docs 200000] [--staged 10000] [--rounds 5] [--connections 64] [--folder <dir>] [--cpu-prof-dir <dir>]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PushClient } from '../src/client/push-client.js';
import { formatMs, median } from './lib/measure.js';
import {
  createBenchCollection,
  loadPages,
  putAll,
  roundWord,
  samplePages,
  waitForMerges,
} from './lib/push-load.js';
import {
  corpusAvailable,
  corpusMissingMessage,
  loadRfcCorpusIntoMemory,
  repositoryRoot,
} from './lib/rfc-corpus.js';
import { ServerProcess } from './lib/server-process.js';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '200000' },
    staged: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    folder: { type: 'string' },
    'cpu-prof-dir': { type: 'string' },
  },
});

const COLLECTION = 'bench';
const PASSWORD = 'bench-password-1';
const SECRET = 'replication benchmark secret 0123456789';
const PROBES = 5;

const docs = Number(values.docs);
const staged = Number(values.staged);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
/** `--cpu-prof-dir`: the admin and QP1 write V8 CPU profiles there when they stop. */
const nodeArgs =
  values['cpu-prof-dir'] === undefined
    ? []
    : ['--cpu-prof', `--cpu-prof-dir=${resolve(values['cpu-prof-dir'])}`];

if (!corpusAvailable()) {
  console.log(corpusMissingMessage());
} else {
  await run();
}

interface SyncView {
  state: string;
  lastSyncedGeneration: number | null;
  bytesPulled: number;
  lastError: { message: string } | null;
}

async function run(): Promise<void> {
  const folder = resolve(values.folder ?? join(repositoryRoot(), 'bench', 'results', 'tmp'));
  mkdirSync(folder, { recursive: true });
  const root = mkdtempSync(join(folder, 'replication-'));
  const servers: ServerProcess[] = [];
  const clients: PushClient[] = [];
  try {
    const pages = await loadRfcCorpusIntoMemory(docs);
    if (pages.length < docs)
      throw new Error(`the corpus has ${pages.length} pages, fewer than --docs ${docs}`);
    const adminHome = home(root, 'admin', []);
    let admin = await ServerProcess.start(adminHome, join(root, 'admin.out'), PASSWORD);
    servers.push(admin);
    let adminClient = client(admin, clients);
    console.log(
      `replication: ${docs} RFC pages on the admin, then QP1 (from the admin) and QP2 (from QP1); data in ${root}`,
    );

    const loadSeconds = await loadPages(adminClient, COLLECTION, pages, connections);
    await waitForMerges(adminClient, COLLECTION);
    console.log(`load: ${docs} pages in ${loadSeconds.toFixed(1)} s`);
    if (nodeArgs.length > 0) {
      // Profiled from here: the admin's profile shows the sync, not the load.
      await admin.stop();
      servers.splice(servers.indexOf(admin), 1);
      admin = await ServerProcess.start(adminHome, join(root, 'admin.out'), PASSWORD, { nodeArgs });
      servers.push(admin);
      adminClient = client(admin, clients);
    }

    // Initial sync of QP1, then the baseline copy of the same folder on the same disk.
    const qp1Home = home(root, 'qp1', [`push.replication.master-url=http://127.0.0.1:${admin.port}`]);
    const qp1 = await ServerProcess.start(qp1Home, join(root, 'qp1.out'), PASSWORD, { nodeArgs });
    servers.push(qp1);
    const syncStarted = performance.now();
    const synced = await untilInSync(qp1);
    const syncSeconds = (performance.now() - syncStarted) / 1000;
    const live = join(adminHome, 'data', COLLECTION, 'live');
    const copy = copyBaseline(live, join(root, 'cp-baseline'), false);
    const durable = copyBaseline(live, join(root, 'cp-baseline'), true);
    const mb = (bytes: number) => bytes / 1024 / 1024;
    const rate = (bytes: number, seconds: number) =>
      `${mb(bytes).toFixed(1)} MB in ${seconds.toFixed(2)} s = ${(mb(bytes) / seconds).toFixed(1)} MB/s`;
    console.log(
      `initial sync: ${rate(synced.bytesPulled, syncSeconds)} (from QP1 answering /health to IN_SYNC: ` +
        `listing, transfer, fsync, opening the index) | cp -r of live/ (journal included): ${rate(copy.bytes, copy.seconds)} | ` +
        `cp -r, then sync of every copied file and folder (durable, as the sync is): ${rate(durable.bytes, durable.seconds)}`,
    );

    const qp2Home = home(root, 'qp2', [`push.replication.master-url=http://127.0.0.1:${qp1.port}`]);
    const qp2 = await ServerProcess.start(qp2Home, join(root, 'qp2.out'), PASSWORD);
    servers.push(qp2);
    await untilInSync(qp2);
    const qp2Client = client(qp2, clients);

    const searchableMs: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const chosen = samplePages(pages, staged);
      const changes = chosen.map((page, i) => ({
        key: page.key,
        text: `${page.text}\n${roundWord(round, i)}\n`,
      }));
      await putAll(adminClient, COLLECTION, changes, connections);
      const asked = performance.now();
      await adminClient.commit(COLLECTION, true);
      const committed = performance.now();
      const probes = Array.from({ length: PROBES }, (_, i) => Math.floor(((i + 1) * staged) / PROBES) - 1);
      for (const i of probes) {
        for (;;) {
          const results = (await qp2Client.search(COLLECTION, roundWord(round, i))).response.resultPacket
            .results;
          if (results.length === 1 && results[0]!.liveUrl === changes[i]!.key) break;
          await pause(5);
        }
      }
      const found = performance.now();
      searchableMs.push(found - committed);
      console.log(
        `round ${round}: commit of ${staged} changes ${formatMs(committed - asked)} on the admin | ` +
          `all ${PROBES} probes found on QP2 ${formatMs(found - committed)} after the commit answered`,
      );
      await waitForMerges(adminClient, COLLECTION);
      await untilInSync(qp2);
    }
    console.log(
      `median of ${rounds}: searchable on QP2 (two hops) ${formatMs(median(searchableMs))} after the commit answered ` +
        `(target < 2 s, aim < 1 s); worst ${formatMs(Math.max(...searchableMs))}`,
    );
    console.log(
      `load average at the end: ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')} on ${availableParallelism()} cores`,
    );
  } finally {
    for (const c of clients) await c.close();
    for (const server of servers.reverse()) await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** A home with the collection (an admin, or with `push.replication.master-url`, a query processor) and the shared secret. */
function home(root: string, name: string, replication: string[]): string {
  const folder = join(root, name);
  mkdirSync(join(folder, 'conf'), { recursive: true });
  writeFileSync(join(folder, 'conf', 'global.cfg'), `server_secret=${SECRET}\n`);
  createBenchCollection(
    folder,
    COLLECTION,
    replication.length > 0 ? ['push.initial-mode=SLAVE', ...replication] : [],
  );
  return folder;
}

function client(server: ServerProcess, clients: PushClient[]): PushClient {
  const made = new PushClient({
    url: `http://127.0.0.1:${server.port}`,
    user: 'admin',
    password: PASSWORD,
    maxSockets: connections,
  });
  clients.push(made);
  return made;
}

/**
 * The baseline: `cp -r` of `from` to `to` (and, when `durable`, `sync` of every copied file and
 * folder, the fsyncs a query processor does before it installs a state); timed, then removed.
 */
function copyBaseline(from: string, to: string, durable: boolean): { bytes: number; seconds: number } {
  const started = performance.now();
  const copy = spawnSync('cp', ['-r', from, to]);
  if (copy.status !== 0) throw new Error(`cp -r failed: ${copy.stderr.toString()}`);
  if (durable) {
    const synced = spawnSync('sync', listTree(to));
    if (synced.status !== 0) throw new Error(`sync failed: ${synced.stderr.toString()}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const bytes = Number(spawnSync('du', ['-sb', to]).stdout.toString().split('\t')[0]);
  rmSync(to, { recursive: true, force: true });
  return { bytes, seconds };
}

/** A folder and everything below it. */
function listTree(folder: string): string[] {
  return [
    folder,
    ...readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? listTree(join(folder, entry.name)) : [join(folder, entry.name)],
    ),
  ];
}

/** Polls the sync state of a query processor until it is IN_SYNC with something installed. */
async function untilInSync(server: ServerProcess): Promise<SyncView> {
  const auth = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
  for (;;) {
    const answer = await fetch(
      `http://127.0.0.1:${server.port}/push-api/v1/sync/collections/${COLLECTION}/state`,
      {
        headers: { authorization: auth },
      },
    );
    const view = (await answer.json()) as SyncView;
    if (view.state === 'IN_SYNC' && view.lastSyncedGeneration !== null) return view;
    await pause(20);
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolvePause) => setTimeout(resolvePause, ms));
}
