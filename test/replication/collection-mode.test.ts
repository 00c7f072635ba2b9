/**
 * Collection modes, the sync API, push.run=false, readiness and metrics of query processors,
 * on apps in this process: an admin listening on loopback and query processors built over
 * their own homes (the real-process chain is `cluster.test.ts`).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { FromSchema } from 'json-schema-to-ts';
import type { DocumentResponse, Snapshot, StateResponse } from '../../src/client/types.js';
import type { SYNC_STATE_RESPONSE } from '../../src/http/push-api/replication-api.js';
import { addCollectionCfg, keyQuery, state, testApp, type TestApp } from '../http/helpers.js';
import { waitFor } from '../support/wait.js';
import { errorOf } from '../support/response-body.js';

/** The answer of the sync API's state, stop and start. */
type SyncState = FromSchema<typeof SYNC_STATE_RESPONSE>;

const SECRET = 'mode test secret 0123456789abcdef';
const GLOBAL = [`server_secret=${SECRET}`, 'push.worker-thread-count=1'];
const NO_AUTO_COMMIT = ['push.auto-commit.timeout-seconds=0', 'push.auto-commit.max-changes=0'];

const apps: TestApp[] = [];
after(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function admin(): Promise<{ app: TestApp; url: string }> {
  const app = await testApp(['c'], { global: GLOBAL, collectionCfg: NO_AUTO_COMMIT, searchThreads: 1 });
  apps.push(app);
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}` };
}

async function queryProcessor(masterUrl: string, extra: string[] = [], global = GLOBAL): Promise<TestApp> {
  const app = await testApp(['c'], {
    global,
    collectionCfg: ['push.initial-mode=SLAVE', `push.replication.master-url=${masterUrl}`, ...extra],
    searchThreads: 1,
  });
  apps.push(app);
  await app.app.ready();
  return app;
}

async function push(app: TestApp, docs: Record<string, string>): Promise<void> {
  for (const [key, text] of Object.entries(docs)) {
    const put = await app.app.inject({
      method: 'PUT',
      url: `/push-api/v1/collections/c/documents${keyQuery(key)}`,
      headers: { 'content-type': 'text/plain' },
      payload: text,
    });
    assert.equal(put.statusCode, 200, put.body);
  }
  const commit = await app.app.inject({ method: 'POST', url: '/push-api/v1/collections/c/commit' });
  assert.equal(commit.statusCode, 200, commit.body);
}

async function keys(app: TestApp, query: string): Promise<string[]> {
  const answer = await app.app.inject({ method: 'GET', url: `/s/search.json?collection=c&query=${query}` });
  assert.equal(answer.statusCode, 200, answer.body);
  return (
    answer.json() as { response: { resultPacket: { results: { liveUrl: string }[] } } }
  ).response.resultPacket.results
    .map((r) => r.liveUrl)
    .sort();
}

async function syncState(app: TestApp): Promise<Record<string, unknown>> {
  const answer = await app.app.inject({ method: 'GET', url: '/push-api/v1/sync/collections/c/state' });
  assert.equal(answer.statusCode, 200, answer.body);
  return answer.json();
}

describe('collection modes and the sync API', () => {
  it('a query processor syncs from its start, refuses writes naming its master, snapshots what it serves and becomes an admin again with what it served', async () => {
    const { app: master, url } = await admin();
    await push(master, { 'local:a': 'apple pie', 'local:b': 'apple tart' });
    const qp = await queryProcessor(url);
    await waitFor('the first sync', async () => (await syncState(qp)).state === 'IN_SYNC');
    assert.deepEqual(await keys(qp, 'apple'), ['local:a', 'local:b']);
    const served = (await state(qp.app, 'v1', 'c')).json();
    assert.equal(served.mode, 'SLAVE');
    assert.equal(served.master, url);
    assert.equal(served.documents, 2);

    for (const [method, path] of [
      ['PUT', `/documents${keyQuery('local:c')}`],
      ['DELETE', `/documents${keyQuery('local:a')}`],
      ['POST', '/commit'],
      ['POST', '/vacuum?vacuum-type=RE_INDEX'],
      ['POST', '/click-logs'],
      ['POST', '/restore/from-snapshot/x'],
    ] as const) {
      const answer = await qp.app.inject({
        method,
        url: `/push-api/v1/collections/c${path}`,
        headers: { 'content-type': 'text/plain' },
        ...(method === 'PUT' ? { payload: 'refused' } : {}),
      });
      assert.equal(answer.statusCode, 409, `${method} ${path}: ${answer.body}`);
      assert.equal(errorOf(answer).error, 'COLLECTION_READ_ONLY');
      assert.match(errorOf(answer).message, new RegExp(`master at ${url.replace(/\./g, '\\.')}`));
    }
    // Reads work: a committed document by key, and a snapshot of the installed state.
    const got = await qp.app.inject({
      method: 'GET',
      url: `/push-api/v1/collections/c/documents${keyQuery('local:a')}`,
    });
    assert.equal(got.json<DocumentResponse>().committed, true);
    const snapshot = await qp.app.inject({ method: 'PUT', url: '/push-api/v1/collections/c/snapshot/s1' });
    assert.equal(snapshot.statusCode, 200, snapshot.body);
    assert.equal(snapshot.json<Snapshot>().documents, 2);

    // The sync stops and starts through the API; a stopped sync misses the master's commits.
    const stopped = await qp.app.inject({
      method: 'POST',
      url: '/push-api/v1/sync/collections/c/state/stop',
    });
    assert.equal(stopped.json<SyncState>().state, 'STOPPED');
    assert.equal(stopped.json<SyncState>().reason, 'stopped through the sync API');
    await push(master, { 'local:c': 'apple crumble' });
    assert.deepEqual(await keys(qp, 'apple'), ['local:a', 'local:b']);
    const started = await qp.app.inject({
      method: 'POST',
      url: '/push-api/v1/sync/collections/c/state/start',
    });
    assert.equal(started.statusCode, 200, started.body);
    await waitFor('the sync after start', async () => (await keys(qp, 'apple')).length === 3);
    const view = await syncState(qp);
    assert.equal(view.master, url);
    assert.ok((view.bytesPulled as number) > 0);
    assert.equal(typeof view.lastSyncedGeneration, 'number');

    // Back to DEFAULT: the served state becomes the live index, and writes are taken.
    const promoted = await qp.app.inject({
      method: 'POST',
      url: '/push-api/v1/collections/c/mode?mode=DEFAULT',
    });
    assert.equal(promoted.statusCode, 200, promoted.body);
    assert.equal(promoted.json<StateResponse>().mode, 'DEFAULT');
    await push(qp, { 'local:d': 'apple sauce' });
    assert.deepEqual(await keys(qp, 'apple'), ['local:a', 'local:b', 'local:c', 'local:d']);
    assert.equal(existsSync(join(qp.home, 'data', 'c', 'replica')), false, 'the replica folder is removed');
    const refused = await qp.app.inject({
      method: 'POST',
      url: '/push-api/v1/sync/collections/c/state/start',
    });
    assert.equal(refused.statusCode, 409);
    assert.equal(errorOf(refused).error, 'WRONG_STATE');
  });

  it("clicks on a query processor's results reach its master's click log, once", async () => {
    const { app: master, url } = await admin();
    await push(master, { 'local:fig': 'fig jam' });
    const qp = await queryProcessor(url);
    await waitFor('the first sync', async () => (await syncState(qp)).state === 'IN_SYNC');
    const search = await qp.app.inject({ method: 'GET', url: '/s/search.json?collection=c&query=fig' });
    const result = (
      search.json() as { response: { resultPacket: { results: { clickTrackingUrl: string }[] } } }
    ).response.resultPacket.results[0]!;
    const click = await qp.app.inject({ method: 'GET', url: result.clickTrackingUrl });
    assert.equal(click.statusCode, 302, click.body);
    const masterLog = join(master.home, 'data', 'c', 'clicks', 'clicks.log');
    const clicksOnMaster = () =>
      existsSync(masterLog)
        ? readFileSync(masterLog, 'utf8')
            .split('\n')
            .filter((line) => line.includes('local:fig'))
        : [];
    // Handed over in signed batches every 5 s (the log is rotated at one run, sent at the next).
    await waitFor('the click on the master', () => clicksOnMaster().length > 0, 20_000);
    assert.equal(clicksOnMaster().length, 1);
    assert.equal((JSON.parse(clicksOnMaster()[0]!) as { query: string }).query, 'fig');
  });

  it('switching an admin to SLAVE commits what is staged first and refuses writes from then on', async () => {
    const { app: master } = await admin();
    await push(master, { 'local:a': 'kiwi' });
    const put = await master.app.inject({
      method: 'PUT',
      url: `/push-api/v1/collections/c/documents${keyQuery('local:b')}`,
      headers: { 'content-type': 'text/plain' },
      payload: 'kiwi staged',
    });
    assert.equal(put.statusCode, 200);
    const bad = await master.app.inject({
      method: 'POST',
      url: '/push-api/v1/collections/c/mode?mode=MASTER',
    });
    assert.equal(bad.statusCode, 400);
    const slave = await master.app.inject({
      method: 'POST',
      url: '/push-api/v1/collections/c/mode?mode=SLAVE',
    });
    assert.equal(slave.statusCode, 200, slave.body);
    assert.equal(slave.json<StateResponse>().mode, 'SLAVE');
    const refused = await master.app.inject({
      method: 'PUT',
      url: `/push-api/v1/collections/c/documents${keyQuery('local:c')}`,
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    assert.equal(errorOf(refused).error, 'COLLECTION_READ_ONLY');
    assert.match(errorOf(refused).message, /push\.replication\.master-url is not set/);
    // Without a master nothing is served yet; back to DEFAULT, both documents are there (the staged one committed).
    const back = await master.app.inject({
      method: 'POST',
      url: '/push-api/v1/collections/c/mode?mode=DEFAULT',
    });
    assert.equal(back.statusCode, 200, back.body);
    assert.deepEqual(await keys(master, 'kiwi'), ['local:a', 'local:b']);
  });

  it('a wrong server_secret is refused and the sync state says so; /ready with a maximum lag takes the server out', async () => {
    const { url } = await admin();
    const qp = await queryProcessor(url, [], [`server_secret=another secret entirely`]);
    await waitFor('the refusal', async () => (await syncState(qp)).state === 'ERROR');
    const view = await syncState(qp);
    assert.equal((view.lastError as { code: string }).code, 'SYNC_SIGNATURE_INVALID');
    assert.equal(view.lastSyncedGeneration, null);
    const ready = await qp.app.inject({ method: 'GET', url: '/ready?max-lag-seconds=60' });
    assert.equal(ready.statusCode, 503, ready.body);
    assert.equal(ready.json<{ collections: { state: string }[] }>().collections[0]?.state, 'LAGGING');
    assert.equal(
      (await qp.app.inject({ method: 'GET', url: '/ready' })).statusCode,
      200,
      'lag unchecked by default',
    );
    const metrics = (await qp.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /pushsearch_replication_state\{collection="c",state="ERROR"\} 1/);
    assert.match(metrics, /pushsearch_replication_lag_seconds\{collection="c"\} /);
  });

  it('push.run=false stops the collection and its sync within seconds; writes and masters refuse it, searches still answer', async () => {
    const { app: master, url } = await admin();
    await push(master, { 'local:a': 'melon' });
    const qp = await queryProcessor(url);
    await waitFor('the first sync', async () => (await syncState(qp)).state === 'IN_SYNC');
    addCollectionCfg(master.home, 'c', ['push.run=false']);
    await waitFor(
      'the admin collection to stop',
      async () => (await state(master.app, 'v1', 'c')).json().state === 'STOPPED',
    );
    const put = await master.app.inject({
      method: 'PUT',
      url: `/push-api/v1/collections/c/documents${keyQuery('local:b')}`,
      headers: { 'content-type': 'text/plain' },
      payload: 'melon',
    });
    assert.equal(put.statusCode, 409);
    assert.equal(errorOf(put).error, 'COLLECTION_DISABLED');
    assert.match(errorOf(put).message, /push\.run=false/);
    assert.deepEqual(await keys(master, 'melon'), ['local:a'], 'the admin still answers searches');
    assert.equal((await state(master.app, 'v1', 'c')).json().state, 'STOPPED', 'searching did not start it');
    await waitFor(
      'the query processor refused',
      async () => {
        const view = await syncState(qp);
        return (view.lastError as { code?: string } | null)?.code === 'COLLECTION_DISABLED';
      },
      30_000,
    );
    assert.deepEqual(await keys(qp, 'melon'), ['local:a']);

    addCollectionCfg(qp.home, 'c', ['push.run=false']);
    await waitFor('the sync to stop', async () => (await syncState(qp)).state === 'STOPPED');
    assert.match(String((await syncState(qp)).reason), /push\.run=false/);
    assert.deepEqual(await keys(qp, 'melon'), ['local:a'], 'the query processor still answers searches');
    const start = await qp.app.inject({ method: 'POST', url: '/push-api/v1/sync/collections/c/state/start' });
    assert.equal(errorOf(start).error, 'COLLECTION_DISABLED');
    assert.deepEqual(
      readdirSync(join(qp.home, 'data', 'c', 'replica', 'staging')),
      [],
      'nothing left half-downloaded',
    );
  });
});
