import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/build-app.js';
import {
  ADMIN_AUTH,
  TEST_SECURITY,
  commit,
  putDocument,
  route,
  tempHome,
  testApp,
  writeGlobalCfg,
  type TestApp,
} from '../http/helpers.js';
import { errorOf } from '../support/response-body.js';
import { parsePromText, valueOf, type PromText } from './prom-text.js';

async function scrape(app: FastifyInstance, headers: Record<string, string> = {}): Promise<PromText> {
  const response = await app.inject({ method: 'GET', url: '/metrics', headers });
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parsePromText(response.body);
}

const REQUESTS = 'pushsearch_http_requests_total';
/** Debian's prometheus package's promtool, when installed (.ci/run installs it). */
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((path) => existsSync(path));
const DOCS_ROUTE = '/push-api/v1/collections/:collection/documents';

describe('GET /metrics', () => {
  let current: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(current.map((t) => t.close()));
    current = [];
  });
  async function app(...args: Parameters<typeof testApp>): Promise<TestApp> {
    const t = await testApp(...args);
    current.push(t);
    return t;
  }

  it('counts requests by route pattern and status, never by raw URL', async () => {
    const t = await app(['docs']);
    const before = await scrape(t.app);
    assert.equal(valueOf(before, REQUESTS, { route: DOCS_ROUTE }), undefined);
    for (const key of ['local:a', 'local:b', 'local:c']) {
      assert.equal((await putDocument(t.app, 'v1', 'docs', key, `text ${key}`)).statusCode, 200);
    }
    assert.equal((await putDocument(t.app, 'v1', 'docs', 'no-scheme', 'x')).statusCode, 400);
    await t.app.inject({ method: 'GET', url: '/no/such/route?secret=1' });
    await t.app.inject({ method: 'GET', url: '/another/unknown/path' });

    const after = await scrape(t.app);
    assert.equal(valueOf(after, REQUESTS, { method: 'PUT', route: DOCS_ROUTE, status: '200' }), 3);
    assert.equal(valueOf(after, REQUESTS, { method: 'PUT', route: DOCS_ROUTE, status: '400' }), 1);
    assert.equal(valueOf(after, REQUESTS, { method: 'GET', route: 'unmatched', status: '404' }), 2);
    assert.equal(
      valueOf(after, 'pushsearch_http_request_duration_seconds_count', { method: 'PUT', route: DOCS_ROUTE }),
      4,
    );
    assert.equal(after.types.get(REQUESTS), 'counter');
    assert.equal(after.types.get('pushsearch_http_request_duration_seconds'), 'histogram');
    // Only patterns as route labels: no key, collection name or unknown path leaks in.
    for (const sample of after.samples.filter((s) => s.labels.route !== undefined)) {
      const label = sample.labels.route!;
      assert.ok(
        label === 'unmatched' || !/local:|\/docs\b|no\/such|\?/.test(label),
        `raw URL as route label: ${label}`,
      );
    }
    // The scrape before this one is counted too (it was answered before this scrape began).
    assert.equal(valueOf(after, REQUESTS, { method: 'GET', route: '/metrics', status: '200' }), 1);
  });

  it('shows collection gauges and engine counters after a commit, and query latency after searches', async () => {
    const t = await app(['docs']);
    for (const key of ['local:a', 'local:b', 'local:c'])
      await putDocument(t.app, 'v1', 'docs', key, `apple ${key}`);
    const staged = await scrape(t.app);
    assert.equal(valueOf(staged, 'pushsearch_collection_staged_changes', { collection: 'docs' }), 3);
    assert.equal(valueOf(staged, 'pushsearch_collection_documents', { collection: 'docs' }), 0);
    assert.equal(valueOf(staged, 'pushsearch_journal_appends_total', { collection: 'docs' }), 3);
    assert.ok(valueOf(staged, 'pushsearch_journal_fsyncs_total', { collection: 'docs' })! >= 1);
    assert.ok(valueOf(staged, 'pushsearch_journal_last_fsync_seconds', { collection: 'docs' })! > 0);

    assert.equal((await commit(t.app, 'v1', 'docs')).statusCode, 200);
    const committed = await scrape(t.app);
    const docs = { collection: 'docs' };
    assert.equal(valueOf(committed, 'pushsearch_collection_state', { ...docs, state: 'RUNNING' }), 1);
    assert.equal(valueOf(committed, 'pushsearch_collection_state', { ...docs, state: 'STOPPED' }), 0);
    assert.equal(valueOf(committed, 'pushsearch_collection_documents', docs), 3);
    assert.equal(valueOf(committed, 'pushsearch_collection_staged_changes', docs), 0);
    // A commit may write one generation per indexing thread.
    assert.ok(valueOf(committed, 'pushsearch_collection_generations', docs)! >= 1);
    assert.equal(valueOf(committed, 'pushsearch_collection_commits_total', docs), 1);
    assert.equal(valueOf(committed, 'pushsearch_collection_merges_total', { ...docs, result: 'done' }), 0);
    assert.equal(valueOf(committed, 'pushsearch_collection_merges_total', { ...docs, result: 'failed' }), 0);
    assert.equal(valueOf(committed, 'pushsearch_collection_merges_running', docs), 0);
    assert.ok(valueOf(committed, 'pushsearch_collection_bytes_on_disk', docs)! > 0);
    const commitTime = valueOf(committed, 'pushsearch_collection_last_commit_timestamp_seconds', docs)!;
    assert.ok(Math.abs(commitTime - Date.now() / 1000) < 600, `last commit at ${commitTime}`);
    assert.equal(committed.types.get('pushsearch_collection_commits_total'), 'counter');
    assert.equal(committed.types.get('pushsearch_collection_documents'), 'gauge');

    await t.app.inject({ method: 'DELETE', url: route('v1', 'docs', '/documents?key=local%3Aa') });
    await commit(t.app, 'v1', 'docs');
    const search = await t.app.inject({ method: 'GET', url: '/s/search.json?collection=docs&query=apple' });
    assert.equal(search.statusCode, 200, search.body);
    assert.equal((await t.app.inject({ method: 'GET', url: '/s/search.json?query=apple' })).statusCode, 400);
    const later = await scrape(t.app);
    assert.equal(valueOf(later, 'pushsearch_collection_documents', docs), 2);
    assert.equal(valueOf(later, 'pushsearch_collection_commits_total', docs), 2);
    assert.equal(valueOf(later, 'pushsearch_collection_documents_deleted_total', docs), 1);
    // Only the successful search is a query latency sample.
    assert.equal(valueOf(later, 'pushsearch_query_duration_seconds_count', { route: '/s/search.json' }), 1);
    assert.equal(
      valueOf(later, 'pushsearch_query_duration_seconds_bucket', { route: '/s/search.json', le: '+Inf' }),
      1,
    );
  });

  it(
    'passes promtool check metrics (Prometheus naming rules: _total only on counters, units, help) after every kind of traffic',
    {
      skip:
        PROMTOOL === undefined
          ? "promtool is missing: install Debian's prometheus package (apt-get install -y prometheus) to run this check"
          : false,
    },
    async () => {
      const t = await app(['docs']);
      for (const key of ['local:a', 'local:b']) await putDocument(t.app, 'v1', 'docs', key, `apple ${key}`);
      assert.equal((await commit(t.app, 'v1', 'docs')).statusCode, 200);
      await t.app.inject({ method: 'GET', url: '/s/search.json?collection=docs&query=apple' });
      await t.app.inject({ method: 'GET', url: '/no/such/route' });
      const response = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(response.statusCode, 200);
      const check = spawnSync(PROMTOOL!, ['check', 'metrics'], { input: response.body, encoding: 'utf8' });
      assert.equal(check.status, 0, `promtool check metrics: ${check.stdout}${check.stderr}`);
      assert.equal(`${check.stdout}${check.stderr}`.trim(), '', 'no warning either');
    },
  );

  it('a scrape never starts a collection: STOPPED ones show only their state, stopped ones lose their gauges', async () => {
    const t = await app(['idle', 'busy']);
    await putDocument(t.app, 'v1', 'busy', 'local:a', 'a');
    for (let i = 0; i < 2; i++) {
      const text = await scrape(t.app);
      assert.equal(t.manager.collection('idle').state, 'STOPPED');
      assert.equal(valueOf(text, 'pushsearch_collection_state', { collection: 'idle', state: 'STOPPED' }), 1);
      assert.equal(valueOf(text, 'pushsearch_collection_documents', { collection: 'idle' }), undefined);
      assert.equal(valueOf(text, 'pushsearch_collection_staged_changes', { collection: 'busy' }), 1);
    }
    const stop = await t.app.inject({ method: 'POST', url: route('v1', 'busy', '/state/stop') });
    assert.equal(stop.statusCode, 200, stop.body);
    const text = await scrape(t.app);
    assert.equal(t.manager.collection('busy').state, 'STOPPED');
    assert.equal(valueOf(text, 'pushsearch_collection_state', { collection: 'busy', state: 'STOPPED' }), 1);
    assert.equal(valueOf(text, 'pushsearch_collection_staged_changes', { collection: 'busy' }), undefined);
    assert.equal(valueOf(text, 'pushsearch_collection_commits_total', { collection: 'busy' }), undefined);
  });

  it('shows process metrics: RSS, open file descriptors, event loop lag', async () => {
    const t = await app([]);
    const text = await scrape(t.app);
    assert.ok(valueOf(text, 'process_resident_memory_bytes')! > 0);
    assert.ok(valueOf(text, 'process_open_fds')! > 0);
    assert.ok(valueOf(text, 'nodejs_eventloop_lag_seconds')! >= 0);
    assert.ok(valueOf(text, 'nodejs_eventloop_lag_p99_seconds')! >= 0);
  });

  it('keeps the counts of two apps in one process apart', async () => {
    const one = await app(['docs']);
    const two = await app(['docs']);
    await putDocument(one.app, 'v1', 'docs', 'local:a', 'a');
    await putDocument(one.app, 'v1', 'docs', 'local:b', 'b');
    await putDocument(two.app, 'v1', 'docs', 'local:a', 'a');
    assert.equal(valueOf(await scrape(one.app), REQUESTS, { route: DOCS_ROUTE, status: '200' }), 2);
    assert.equal(valueOf(await scrape(two.app), REQUESTS, { route: DOCS_ROUTE, status: '200' }), 1);
  });

  it('metrics.public=false in global.cfg: needs sec.administer', async () => {
    const t = await app(['docs'], { global: ['metrics.public=false'] });
    const anonymous = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(anonymous.statusCode, 401, anonymous.body);
    assert.equal(errorOf(anonymous).error, 'UNAUTHENTICATED');
    const text = await scrape(t.app, { authorization: ADMIN_AUTH });
    assert.equal(valueOf(text, REQUESTS, { route: '/metrics', status: '401' }), 1);
    // Health probes stay public.
    assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  });

  it('a metrics.public value other than true or false stops the build with CONFIG_INVALID', async () => {
    const temp = tempHome();
    try {
      writeGlobalCfg(temp.home, ['metrics.public=flase']);
      await assert.rejects(buildApp({ home: temp.home, security: TEST_SECURITY }), (error: unknown) => {
        assert.equal((error as { code?: string }).code, 'CONFIG_INVALID');
        assert.match((error as Error).message, /metrics\.public must be true or false, found "flase"/);
        return true;
      });
    } finally {
      temp.cleanup();
    }
  });
});
