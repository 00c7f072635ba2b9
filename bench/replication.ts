/**
 * Replication through real servers (`pushsearch serve` in child processes): an admin with a
 * collection of `--docs` RFC pages (200,000 by default), query processor QP1 pulling from it
 * and QP2 pulling from QP1 (two hops).
 *
 * 1. Initial sync: QP1 starts empty and copies the whole collection; printed in MB/s beside a
 *    `cp -r` of the admin's `live/` folder to the same disk, timed in the same run (the
 *    baseline: the fastest a plain copy of those bytes goes here).
 * 2. Rounds: each PUTs `--staged` replacements (10,000 by default; each page gets a word of its
 *    own) into the admin, commits with wait=true, and from the moment the commit answered,
 *    searches QP2 for the words of five of the round's pages until each is found. Printed per
 *    round, then the median of the rounds (the issue's target: under 2 s; our aim: under 1 s).
 *
 * Needs the RFC corpus (see bench/lib/rfc-corpus.ts). A wall-clock benchmark: run it on a
 * quiet machine; the load average is printed with the results.
 *
 * Usage: node dist/bench/replication.js [--docs 200000] [--staged 10000] [--rounds 5] [--connections 64] [--folder <dir>]
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PushClient } from '../src/client/push-client.js';
import { CollectionManager } from '../src/collection/collection-manager.js';
import { silentPushLog } from '../src/collection/push-log.js';
import { SearchHome } from '../src/collection/search-home.js';
import { formatMs, median } from './lib/measure.js';
import {
  corpusAvailable,
  corpusMissingMessage,
  loadRfcCorpusIntoMemory,
  repositoryRoot,
  type RfcPage,
} from './lib/rfc-corpus.js';
import { ServerProcess } from './lib/server-process.js';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '200000' },
    staged: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    folder: { type: 'string' },
  },
});

const COLLECTION = 'bench';
const PASSWORD = 'bench-password-1';
const SECRET = 'replication benchmark secret 0123456789';
const LOAD_COMMIT_EVERY = 10_000;
const PROBES = 5;

const docs = Number(values.docs);
const staged = Number(values.staged);
const rounds = Number(values.rounds);
const connections = Number(values.connections);

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
    const admin = await ServerProcess.start(adminHome, join(root, 'admin.out'), PASSWORD);
    servers.push(admin);
    const adminClient = client(admin, clients);
    console.log(
      `replication: ${docs} RFC pages on the admin, then QP1 (from the admin) and QP2 (from QP1); data in ${root}`,
    );

    const loadStarted = performance.now();
    for (let from = 0; from < pages.length; from += LOAD_COMMIT_EVERY) {
      await putAll(
        adminClient,
        pages.slice(from, from + LOAD_COMMIT_EVERY).map((page) => ({ key: page.key, text: page.text })),
      );
      await adminClient.commit(COLLECTION, true);
    }
    while ((await adminClient.state(COLLECTION)).mergesRunning! > 0) await pause(250);
    console.log(`load: ${docs} pages in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);

    // Initial sync of QP1, then the baseline copy of the same folder on the same disk.
    const qp1Home = home(root, 'qp1', [`push.replication.master-url=http://127.0.0.1:${admin.port}`]);
    const qp1 = await ServerProcess.start(qp1Home, join(root, 'qp1.out'), PASSWORD);
    servers.push(qp1);
    const syncStarted = performance.now();
    const synced = await untilInSync(qp1);
    const syncSeconds = (performance.now() - syncStarted) / 1000;
    const copyTarget = join(root, 'cp-baseline');
    const copyStarted = performance.now();
    const copy = spawnSync('cp', ['-r', join(adminHome, 'data', COLLECTION, 'live'), copyTarget]);
    const copySeconds = (performance.now() - copyStarted) / 1000;
    if (copy.status !== 0) throw new Error(`cp -r failed: ${copy.stderr.toString()}`);
    const copiedBytes = Number(spawnSync('du', ['-sb', copyTarget]).stdout.toString().split('\t')[0]);
    rmSync(copyTarget, { recursive: true, force: true });
    const mb = (bytes: number) => bytes / 1024 / 1024;
    console.log(
      `initial sync: ${mb(synced.bytesPulled).toFixed(1)} MB in ${syncSeconds.toFixed(2)} s = ${(mb(synced.bytesPulled) / syncSeconds).toFixed(1)} MB/s ` +
        `(from QP1 answering /health to IN_SYNC) | cp -r of live/ (${mb(copiedBytes).toFixed(1)} MB, journal included): ` +
        `${copySeconds.toFixed(2)} s = ${(mb(copiedBytes) / copySeconds).toFixed(1)} MB/s`,
    );

    const qp2Home = home(root, 'qp2', [`push.replication.master-url=http://127.0.0.1:${qp1.port}`]);
    const qp2 = await ServerProcess.start(qp2Home, join(root, 'qp2.out'), PASSWORD);
    servers.push(qp2);
    await untilInSync(qp2);
    const qp2Client = client(qp2, clients);

    const searchableMs: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const chosen = sample(pages, staged);
      const changes = chosen.map((page, i) => ({ key: page.key, text: `${page.text}\nzqr${round}d${i}\n` }));
      await putAll(adminClient, changes);
      const asked = performance.now();
      await adminClient.commit(COLLECTION, true);
      const committed = performance.now();
      const probes = Array.from({ length: PROBES }, (_, i) => Math.floor(((i + 1) * staged) / PROBES) - 1);
      for (const i of probes) {
        for (;;) {
          const results = (await qp2Client.search(COLLECTION, `zqr${round}d${i}`)).response.resultPacket
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
      while ((await adminClient.state(COLLECTION)).mergesRunning! > 0) await pause(250);
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
  new CollectionManager(new SearchHome(folder), silentPushLog()).create(COLLECTION, 'push');
  appendFileSync(
    join(folder, 'conf', COLLECTION, 'collection.cfg'),
    [
      'push.auto-commit.max-changes=0',
      'push.auto-commit.timeout-seconds=0',
      ...(replication.length > 0 ? ['push.initial-mode=SLAVE', ...replication] : []),
    ].join('\n') + '\n',
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

function sample(pages: RfcPage[], count: number): RfcPage[] {
  const indexes = new Set<number>();
  while (indexes.size < Math.min(count, pages.length)) indexes.add(Math.floor(Math.random() * pages.length));
  return [...indexes].map((i) => pages[i]!);
}

async function putAll(target: PushClient, changes: { key: string; text: string }[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < changes.length) {
        const change = changes[next++]!;
        await target.add(COLLECTION, change.key, change.text, { contentType: 'text/plain; charset=utf-8' });
      }
    }),
  );
}
