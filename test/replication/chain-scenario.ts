/**
 * The chained-replication scenario on real processes: an admin, query processor QP1 pulling
 * from it and QP2 pulling from QP1 (`cluster.test.ts` runs it with the issue's 5,000
 * documents). Documents are pushed with commits, replaced, deleted,
 * merged, re-indexed, restored from a snapshot; QP1 is killed mid-transfer and the admin
 * mid-commit. After each step both query processors must answer a set of queries exactly as
 * the admin does (keys, order, scores), within a bound. Throughout, a poller searches QP2
 * for the witness documents every commit adds: it must never see a part of a commit, nor a
 * later commit without the earlier ones (a state the admin never published).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { addCollectionCfg } from '../http/helpers.js';
import { seededRandom } from '../support/seeded-random.js';
import { waitFor } from '../support/wait.js';
import { Cluster, type ClusterServer, writeClusterGlobalCfg } from './cluster-helpers.js';

export interface ChainSizes {
  documents: number;
  /** Documents of the transfer QP1 is killed in (each ~`bigBytes`). */
  bigDocuments: number;
  bigBytes: number;
  /** How long the query processors may take to converge after a step. */
  convergeMs: number;
  /** QP1's kill must land while a download is staged (on a fast machine the small run may miss it). */
  requireKillMidTransfer?: boolean;
}

const C = 'c';
const PUSH = `/push-api/v1/collections/${C}`;
const SYNC = `/push-api/v1/sync/collections/${C}/state`;
const SECRET = 'replication test secret 0123456789';
const WITNESSES = 4;
const VOCABULARY = Array.from({ length: 60 }, (_, i) => `w${(i * 7919) % 997}q`);
const QUERIES = [
  VOCABULARY[0]!,
  VOCABULARY[1]!,
  VOCABULARY[7]!,
  `${VOCABULARY[2]} ${VOCABULARY[3]}`,
  `"${VOCABULARY[4]} ${VOCABULARY[5]}"`,
  `${VOCABULARY[6]} -${VOCABULARY[8]}`,
  'common',
  'overwritten',
];

/** Connection errors of a server that is down, not a wrong answer. */
const DOWN = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

interface Packet {
  response: {
    resultPacket: {
      resultsSummary: { totalMatching: number };
      results: { liveUrl: string; score: number; rank: number }[];
    };
  };
}

interface SyncState {
  state: string;
  reason?: string;
  lastSyncedGeneration: number | null;
  lastSyncedId: string | null;
  lagSeconds: number;
  bytesPulled: number;
  lastError: { code: string; message: string } | null;
}

/** Runs the scenario; `note` receives what a reader of the test output may want (kills caught mid-transfer or not). */
export async function runChainScenario(sizes: ChainSizes, note: (message: string) => void): Promise<void> {
  const cluster = new Cluster(C, SECRET);
  const random = seededRandom(21);
  const words = (count: number) =>
    Array.from({ length: count }, () => VOCABULARY[Math.floor(random() * random() * VOCABULARY.length)]).join(
      ' ',
    );
  let commitNumber = 0;
  /** Commits (by number) in the order the admin's current history contains them. */
  let lineage: number[] = [];
  const lineages: number[][] = [];
  let pollers: { stop: () => Promise<{ polls: number; problems: string[] }> }[] = [];
  try {
    const admin = await cluster.add({ name: 'admin' });
    /** Waits for both query processors to answer as the admin; notes how long that took. */
    const step = async (name: string) => {
      const started = Date.now();
      await converge(name, [admin, qp1, qp2], sizes.convergeMs);
      note(`${name}: converged in ${Date.now() - started} ms`);
    };
    const qp1 = await cluster.add({ name: 'qp1', master: admin });
    // QP2 starts with another secret: QP1 must refuse it, and its sync state must say so.
    const qp2 = await cluster.add({ name: 'qp2', master: qp1, secret: 'not the shared secret' });
    await Promise.all([admin.start(), qp1.start(), qp2.start()]);

    const put = async (key: string, content: string) => {
      const answer = await admin.request('PUT', `${PUSH}/documents?key=${encodeURIComponent(key)}`, content);
      assert.equal(answer.status, 200, answer.body);
    };
    /** Commits with this commit's witness documents (all-or-nothing on every server). */
    const commit = async () => {
      const number = ++commitNumber;
      for (let j = 0; j < WITNESSES; j++) await put(`local:w/${number}/${j}`, `witnessdoc commit ${number}`);
      // Part of the history before it is published (a query processor may install it before the answer).
      lineage.push(number);
      await admin.json('POST', `${PUSH}/commit`);
      return number;
    };

    const debug = (m: string) => {
      if (process.env.CLUSTER_DEBUG) console.error(new Date().toISOString(), m);
    };
    debug('started');
    const wrong = await waitFor(
      'QP2 refused by QP1 (wrong secret)',
      async () => {
        const state = await qp2.json<SyncState>('GET', SYNC);
        return state.state === 'ERROR' && state.lastError?.code === 'SYNC_SIGNATURE_INVALID'
          ? state
          : undefined;
      },
      sizes.convergeMs,
    );
    assert.match(wrong.lastError!.message, /secret|signature/i);
    assert.equal(wrong.lastSyncedGeneration, null, 'nothing installed with a wrong secret');
    // The secret corrected in global.cfg applies without a restart.
    writeClusterGlobalCfg(qp2.home, SECRET);

    // Documents in batches, each committed.
    const batches = 5;
    for (let b = 0; b < batches; b++) {
      for (let i = b; i < sizes.documents; i += batches)
        await put(`local:d/${i}`, `common ${words(12 + (i % 20))}`);
      await commit();
    }
    debug('pushed');
    const histories = () => lineages.concat([lineage]);
    pollers = [startPoller(qp1, histories), startPoller(qp2, histories)];
    await step('initial documents');

    // Overwrites and deletes, then a merge of everything.
    for (let i = 0; i < sizes.documents; i += 5) await put(`local:d/${i}`, `overwritten ${words(10)}`);
    for (let i = 3; i < sizes.documents; i += 10) {
      const answer = await admin.request(
        'DELETE',
        `${PUSH}/documents?key=${encodeURIComponent(`local:d/${i}`)}`,
      );
      assert.equal(answer.status, 200, answer.body);
    }
    await commit();
    debug('converged initial');
    await step('overwrites and deletes');
    await admin.json('POST', `${PUSH}/vacuum?vacuum-type=MERGE`);
    await step('after a MERGE');
    const merged = await qp2.json<{ generations: number; documents: number; mode: string }>(
      'GET',
      `${PUSH}/state`,
    );
    const adminState = await admin.json<{ generations: number; documents: number }>('GET', `${PUSH}/state`);
    assert.equal(merged.mode, 'SLAVE');
    assert.equal(merged.documents, adminState.documents);
    assert.equal(merged.generations, adminState.generations);

    // Writes on a query processor: refused, naming the master; nothing changes.
    for (const [server, master] of [
      [qp1, admin],
      [qp2, qp1],
    ] as const) {
      for (const [method, path, body] of [
        ['PUT', `${PUSH}/documents?key=local:x`, 'refused'],
        ['DELETE', `${PUSH}/documents?key=local:d/1`, undefined],
        ['PUT', `${PUSH}/redirects?key=local:r&target=local:d/1`, undefined],
        ['POST', `${PUSH}/commit`, undefined],
        ['POST', `${PUSH}/vacuum?vacuum-type=MERGE`, undefined],
      ] as const) {
        const answer = await server.request(method, path, body);
        assert.equal(answer.status, 409, `${server.name} ${method} ${path}: ${answer.body}`);
        const error = JSON.parse(answer.body) as { error: string; message: string };
        assert.equal(error.error, 'COLLECTION_READ_ONLY');
        assert.ok(error.message.includes(master.url), error.message);
      }
    }

    // kill -9 of QP1 in the middle of a transfer; it resumes after a restart.
    for (let i = 0; i < sizes.bigDocuments; i++)
      await put(
        `local:big/${i}`,
        `bigdoc ${Array.from({ length: sizes.bigBytes / 6 }, () => `${Math.floor(random() * 1e5)}`).join(' ')}`,
      );
    const staging = join(qp1.home, 'data', C, 'replica', 'staging');
    let committedAt: number | undefined;
    const bigCommit = commit().then(() => (committedAt = Date.now()));
    let caught = false;
    // Watched closely (the transfer takes a few ms on loopback); given up 2 s after the commit.
    while (committedAt === undefined || Date.now() - committedAt < 2000) {
      if (existsSync(staging) && readdirSync(staging).length > 0) {
        caught = true;
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await qp1.kill();
    // What the dead QP1 left in staging/: downloads it had not finished moving into place.
    const stagedAtKill = existsSync(staging) ? readdirSync(staging).length : 0;
    note(
      caught && stagedAtKill > 0
        ? `QP1 was killed with ${stagedAtKill} download(s) in staging/`
        : 'QP1 had finished the transfer before the kill',
    );
    if (sizes.requireKillMidTransfer === true)
      assert.ok(caught && stagedAtKill > 0, 'QP1 was killed in the middle of a transfer');
    await bigCommit;
    await qp1.start();
    await step('after kill -9 of QP1');

    // kill -9 of the admin while a commit runs: the changes are durable, the commit may or may not be published.
    for (let i = 0; i < sizes.documents; i += 7) await put(`local:d/${i}`, `common again ${words(9)}`);
    const number = ++commitNumber;
    for (let j = 0; j < WITNESSES; j++) await put(`local:w/${number}/${j}`, `witnessdoc commit ${number}`);
    lineage.push(number);
    const inFlight = admin.request('POST', `${PUSH}/commit`).then(
      (answer) => `answered ${answer.status}`,
      () => 'cut by the kill',
    );
    // The delay is the behaviour under test: the kill lands while the commit may or may not be published.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await admin.kill();
    note(`the commit in flight when the admin was killed: ${await inFlight}`);
    await admin.start();
    await admin.json('POST', `${PUSH}/commit`);
    // Every acknowledged PUT before the kill is there: the commit's witnesses, all of them.
    const witnesses = await admin.json<Packet>(
      'GET',
      `/s/search.json?collection=${C}&num_ranks=1000&query=${encodeURIComponent(`witnessdoc ${number}`)}`,
    );
    assert.equal(
      witnesses.response.resultPacket.results.filter((r) => r.liveUrl.startsWith(`local:w/${number}/`))
        .length,
      WITNESSES,
      'the PUTs acknowledged before kill -9 of the admin survive it',
    );
    await step('after kill -9 of the admin');

    // Restore on the admin: its manifest numbers go back; the query processors follow.
    await admin.json('PUT', `${PUSH}/snapshot/before`);
    const atSnapshot = [...lineage];
    await commit();
    await step('commit after the snapshot');
    const ahead = await qp2.json<SyncState>('GET', SYNC);
    await admin.json('POST', `${PUSH}/state/stop`);
    await admin.json('POST', `${PUSH}/restore/from-snapshot/before`);
    lineages.push(lineage);
    lineage = atSnapshot;
    await admin.json('GET', `/s/search.json?collection=${C}&query=common`); // starts it on the snapshot
    await step('after a restore');
    const back = await qp2.json<SyncState>('GET', SYNC);
    assert.notEqual(back.lastSyncedId, ahead.lastSyncedId);
    await commit();

    // RE_INDEX of every document.
    await admin.json('POST', `${PUSH}/vacuum?vacuum-type=RE_INDEX`);
    await step('after a RE_INDEX');

    const [seen1, seen2] = await Promise.all(pollers.map((poller) => poller.stop()));
    pollers = [];
    assert.deepEqual(seen1!.problems, [], 'QP1 served only states the admin published');
    assert.deepEqual(seen2!.problems, [], 'QP2 served only states the admin published');
    assert.ok(
      seen1!.polls > 10 && seen2!.polls > 10,
      `the pollers searched (${seen1!.polls}, ${seen2!.polls} polls)`,
    );
    note(
      `pollers: ${seen1!.polls} searches of QP1, ${seen2!.polls} of QP2, every one a whole published state`,
    );

    // push.run=false on QP1: it stops syncing and serving QP2 within seconds; searches still run.
    addCollectionCfg(qp1.home, C, ['push.run=false']);
    await waitFor(
      'QP1 stopped by push.run=false',
      async () => {
        const state = await qp1.json<SyncState>('GET', SYNC);
        return state.state === 'STOPPED' && /push\.run=false/.test(state.reason ?? '');
      },
      30_000,
    );
    await commit();
    await waitFor(
      'QP2 refused by QP1 (push.run=false)',
      async () => {
        const state = await qp2.json<SyncState>('GET', SYNC);
        return state.lastError?.code === 'COLLECTION_DISABLED';
      },
      sizes.convergeMs + 25_000,
    );
    const stale = await answers(qp1);
    assert.deepEqual(await answers(qp2), stale, 'QP1 and QP2 still answer (their last state)');
    assert.notDeepEqual(await answers(admin), stale, 'the last commit did not reach them');
  } finally {
    await Promise.all(pollers.map((poller) => poller.stop()));
    await cluster.close();
  }
}

/** The answers of a server to every query: keys, scores and totals. */
async function answers(server: ClusterServer): Promise<unknown[]> {
  const all: unknown[] = [];
  for (const query of QUERIES) {
    const packet = await server.json<Packet>(
      'GET',
      `/s/search.json?collection=${C}&num_ranks=20&query=${encodeURIComponent(query)}`,
    );
    const { resultsSummary, results } = packet.response.resultPacket;
    all.push({
      query,
      total: resultsSummary.totalMatching,
      results: results.map((r) => [r.rank, r.liveUrl, r.score]),
    });
  }
  return all;
}

/** Waits until every server answers every query as the first does. */
async function converge(step: string, servers: ClusterServer[], timeoutMs: number): Promise<void> {
  let last: unknown;
  await waitFor(
    `the query processors to answer as the admin (${step})`,
    async () => {
      const expected = await answers(servers[0]!);
      for (const server of servers.slice(1)) {
        const got = await answers(server);
        try {
          assert.deepEqual(got, expected);
        } catch (error) {
          last = { server: server.name, error: (error as Error).message.slice(0, 2000) };
          return false;
        }
      }
      return true;
    },
    timeoutMs,
    () => JSON.stringify(last),
  );
}

/**
 * Searches `server` for witness documents over and over: every commit's witnesses must be
 * all there or all absent, and the commits seen must be a prefix of one of the admin's
 * histories (a restore starts another). While the server is down (killed on purpose) a
 * refused connection is no problem: it served nothing.
 */
function startPoller(
  server: ClusterServer,
  histories: () => number[][],
): { stop: () => Promise<{ polls: number; problems: string[] }> } {
  let stopped = false;
  let polls = 0;
  const problems: string[] = [];
  const loop = (async () => {
    while (!stopped) {
      let packet: Packet;
      try {
        packet = await server.json<Packet>(
          'GET',
          `/s/search.json?collection=${C}&num_ranks=1000&query=witnessdoc`,
        );
      } catch (error) {
        if (DOWN.has((error as NodeJS.ErrnoException).code ?? '')) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        problems.push(`search failed: ${(error as Error).message}`);
        break;
      }
      polls++;
      const counts = new Map<number, number>();
      for (const result of packet.response.resultPacket.results) {
        const match = /^local:w\/(\d+)\/\d+$/.exec(result.liveUrl);
        if (match === null) continue;
        counts.set(Number(match[1]), (counts.get(Number(match[1])) ?? 0) + 1);
      }
      const seen = [...counts.keys()].sort((a, b) => a - b);
      for (const [number, count] of counts)
        if (count !== WITNESSES) problems.push(`commit ${number}: ${count} of ${WITNESSES} witnesses`);
      const isPrefix = histories().some(
        (history) =>
          seen.length <= history.length && seen.every((n, i) => [...history].sort((a, b) => a - b)[i] === n),
      );
      if (!isPrefix && seen.length > 0) problems.push(`commits ${seen.join(',')} are no published history`);
      if (problems.length > 20) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { polls, problems };
    },
  };
}
