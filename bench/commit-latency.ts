/**
 * Commit latency on a large collection: how long after a commit of `--staged` changes (10,000
 * by default) they are searchable, in a collection of `--docs` RFC pages (200,000 by default),
 * through the real server (`pushsearch serve` in a child process) and the real client.
 *
 * 1. Load: every page PUT once (64 keep-alive connections), committed every 10,000 changes
 *    as the default auto-commit would, then a quiet wait until no merge runs.
 * 2. Rounds: each PUTs `--staged` replacements of random pages (their text plus a word of
 *    their own, `zqr<round>d<i>`), then, the moment the last PUT was acknowledged, asks for
 *    a commit with `wait=true` and searches for the words of five of the round's pages until
 *    each is found once. Printed per round: the commit's own time and the time from asking
 *    for the commit until all five were found (what a user of the search sees); then medians.
 *
 * Auto-commit is off (`push.auto-commit.max-changes=0`, `timeout-seconds=0`) so that every
 * round's commit holds exactly its staged changes; merges run as usual.
 *
 * Usage: node dist/bench/commit-latency.js [--docs 200000] [--staged 10000] [--rounds 5] [--connections 64] [--folder <dir>]
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PushClient } from '../src/client/push-client.js';
import { formatMs, median } from './lib/measure.js';
import {
  createBenchCollection,
  LOAD_COMMIT_EVERY,
  loadPages,
  putAll,
  roundWord,
  samplePages,
  waitForMerges,
} from './lib/push-load.js';
import { ServerProcess } from './lib/server-process.js';
import {
  corpusAvailable,
  corpusMissingMessage,
  loadRfcCorpusIntoMemory,
  repositoryRoot,
} from './lib/rfc-corpus.js';

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
/** Pages of each round whose words are searched for after its commit. */
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

async function run(): Promise<void> {
  const folder = resolve(values.folder ?? join(repositoryRoot(), 'bench', 'results', 'tmp'));
  mkdirSync(folder, { recursive: true });
  const home = mkdtempSync(join(folder, 'commit-latency-'));
  let server: ServerProcess | undefined;
  let client: PushClient | undefined;
  try {
    const pages = await loadRfcCorpusIntoMemory(docs);
    if (pages.length < docs)
      throw new Error(`the corpus has ${pages.length} pages, fewer than --docs ${docs}`);
    createBenchCollection(home, COLLECTION);
    server = await ServerProcess.start(home, join(home, 'server.out'), PASSWORD);
    client = new PushClient({
      url: `http://127.0.0.1:${server.port}`,
      user: 'admin',
      password: PASSWORD,
      maxSockets: connections,
    });
    console.log(
      `commit-latency: ${docs} RFC pages loaded, then ${rounds} rounds of ${staged} staged replacements and a commit; ` +
        `${connections} connections; data in ${home}`,
    );

    const loadSeconds = await loadPages(client, COLLECTION, pages, connections);
    const quiet = await waitForMerges(client, COLLECTION);
    const loaded = await client.state(COLLECTION);
    console.log(
      `load: ${docs} pages in ${loadSeconds.toFixed(1)} s (${(docs / loadSeconds).toFixed(0)} docs/s, commits every ${LOAD_COMMIT_EVERY}); ` +
        `merges settled ${quiet.toFixed(1)} s later: ${loaded.documents} documents in ${loaded.generations} generations`,
    );

    const commitMs: number[] = [];
    const searchableMs: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const chosen = samplePages(pages, staged);
      const changes = chosen.map((page, i) => ({
        key: page.key,
        text: `${page.text}\n${roundWord(round, i)}\n`,
      }));
      const putStarted = performance.now();
      await putAll(client, COLLECTION, changes, connections);
      const putSeconds = (performance.now() - putStarted) / 1000;
      const probes = Array.from({ length: PROBES }, (_, i) => Math.floor(((i + 1) * staged) / PROBES) - 1);
      const asked = performance.now();
      const commit = await client.commit(COLLECTION, true);
      const committed = performance.now();
      for (const i of probes) await expectFound(client, roundWord(round, i), changes[i]!.key);
      const found = performance.now();
      const state = await client.state(COLLECTION);
      commitMs.push(committed - asked);
      searchableMs.push(found - asked);
      console.log(
        `round ${round}: ${staged} PUTs in ${putSeconds.toFixed(1)} s (${(staged / putSeconds).toFixed(0)} docs/s) | ` +
          `commit of ${commit.changes} changes ${formatMs(committed - asked)} | all ${PROBES} probes found ${formatMs(found - asked)} after asking | ` +
          `${state.documents} documents, ${state.generations} generations, ${state.mergesRunning} merges running`,
      );
      await waitForMerges(client, COLLECTION);
    }
    console.log(
      `median of ${rounds}: commit of ${staged} staged into ${docs} documents ${formatMs(median(commitMs))}, ` +
        `searchable ${formatMs(median(searchableMs))} after asking (target < 1 s); worst ${formatMs(Math.max(...searchableMs))}`,
    );
    console.log(
      `load average at the end: ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')} on ${availableParallelism()} cores`,
    );
  } finally {
    await client?.close();
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Throws unless a search for `word` finds exactly the page at `key`. */
async function expectFound(client: PushClient, word: string, key: string): Promise<void> {
  const answer = await client.search(COLLECTION, word);
  const results = answer.response.resultPacket.results;
  if (results.length !== 1 || results[0]!.liveUrl !== key) {
    throw new Error(
      `a search for ${word} right after the commit found ${JSON.stringify(results.map((r) => r.liveUrl))}, not ${key}`,
    );
  }
}
