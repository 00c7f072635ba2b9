import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { firstPageParams } from '../../src/search/run-search.js';
import { SearchService, type SearchResponse } from '../../src/search/search-service.js';
import type { SearchPoolEvent } from '../../src/search/threads/search-thread-pool.js';
import { ADMIN_AUTH, adminRequest, route, testApp, type TestApp } from '../http/helpers.js';
import { assertSearchTiming, pushAndCommit, searchJson, urls, type TestDocument } from './helpers.js';

/**
 * Queries on search threads (issue #19): budgets, load shedding, crashes, and point-in-time
 * views while commits and merges publish new manifests. Bounds on time are generous (a loaded
 * 2-core machine): what they check is that nothing waits for a busy thread.
 */

/** Random words `a?xxxxx`: each two-letter prefix `a?` expands to thousands of terms. */
function randomVocabulary(documents: number, wordsPerDocument: number): TestDocument[] {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const letter = () => String.fromCharCode(97 + Math.floor(random() * 26));
  return Array.from({ length: documents }, (_, d) => ({
    key: `http://example.com/random/${d}`,
    body: Array.from(
      { length: wordsPerDocument },
      () => 'a' + letter() + letter() + letter() + letter() + letter(),
    ).join(' '),
  }));
}

/** 26 two-letter prefixes: `aa* ab* ... az*`. */
const PATHOLOGICAL = Array.from({ length: 26 }, (_, i) => `a${String.fromCharCode(97 + i)}*`).join(' ');

function search(app: FastifyInstance, query: string, extra: Record<string, string> = {}) {
  return app.inject({
    method: 'GET',
    url: `/s/search.json?${new URLSearchParams({ collection: 'c', query, ...extra }).toString()}`,
  });
}

/** Resolves with the next pool event of a type. */
function nextEvent(
  events: SearchPoolEvent[],
  listeners: ((e: SearchPoolEvent) => void)[],
  type: SearchPoolEvent['type'],
) {
  return new Promise<SearchPoolEvent>((resolve) => {
    const listener = (event: SearchPoolEvent) => {
      if (event.type !== type) return;
      listeners.splice(listeners.indexOf(listener), 1);
      resolve(event);
    };
    listeners.push(listener);
  });
}

/** An app with one collection `c` of random vocabulary, and its pool's events. */
async function pathologicalApp(global: string[], threads = 2) {
  const events: SearchPoolEvent[] = [];
  const listeners: ((e: SearchPoolEvent) => void)[] = [];
  const t = await testApp(['c'], {
    global,
    searchThreads: threads,
    onSearchPoolEvent: (event) => {
      events.push(event);
      for (const listener of [...listeners]) listener(event);
    },
  });
  await pushAndCommit(t.app, 'c', randomVocabulary(20, 4000));
  return { t, events, next: (type: SearchPoolEvent['type']) => nextEvent(events, listeners, type) };
}

describe('search threads: budgets', () => {
  let t: TestApp;
  before(async () => {
    ({ t } = await pathologicalApp(['search.timeout-ms=50', 'search.max-prefix-terms=64']));
  });
  after(() => t.close());

  it('a pathological query answers what it found within its budget, flagged timedOut', async () => {
    // The first query starts a thread; its start-up is not the query's time.
    assert.equal((await search(t.app, 'warm up')).statusCode, 200);
    // Every thread was started by the first query: none of the next ones waits for a start-up.
    assert.equal(t.searchService.threads?.stats().threads, 2);
    const started = performance.now();
    const response = await search(t.app, PATHOLOGICAL);
    const elapsed = performance.now() - started;
    assert.equal(response.statusCode, 200, response.body);
    const summary = response.json<SearchResponse>().response.resultPacket.resultsSummary;
    assert.equal(summary.timedOut, true, 'tens of thousands of expansions do not fit in 50 ms');
    assert.equal(summary.totalMatchingExact, false);
    // The budget is 50 ms; the bound is generous (a loaded machine), far below the seconds the query needs.
    assert.ok(elapsed < 50 + 1500, `answered after ${Math.round(elapsed)} ms`);
  });
});

describe('search threads: load shedding, crashes, isolation', () => {
  let app: Awaited<ReturnType<typeof pathologicalApp>>;
  before(async () => {
    // One thread, no queue: a second query while one runs is refused.
    app = await pathologicalApp(['search.timeout-ms=60000', 'search.queue-size=0'], 1);
  });
  after(() => app.t.close());

  it('answers 503 SEARCH_OVERLOADED with Retry-After when every thread is busy and the queue is full, /health meanwhile', async () => {
    const dispatched = app.next('dispatched');
    const slow = search(app.t.app, PATHOLOGICAL);
    await dispatched;
    const refused = await search(app.t.app, 'anything');
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.json<{ error: string }>().error, 'SEARCH_OVERLOADED');
    assert.equal(refused.headers['retry-after'], '1');
    const started = performance.now();
    const health = await app.t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 200);
    assert.equal(app.t.searchService.threads?.stats().busyThreads, 1, 'the query still runs');
    assert.ok(performance.now() - started < 1000, '/health does not wait for the query');
    const metrics = await app.t.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /^pushsearch_search_rejected_total 1$/m);
    assert.match(metrics.body, /^pushsearch_search_threads_busy 1$/m);
    assert.equal((await slow).statusCode, 200);
  });

  it('a thread killed mid-query answers that query 503 SEARCH_THREAD_FAILED; the next query is answered', async () => {
    const dispatched = app.next('dispatched');
    const doomed = search(app.t.app, PATHOLOGICAL);
    const event = await dispatched;
    assert.ok(event.type === 'dispatched');
    assert.equal(await app.t.searchService.threads!.terminateThreadOf(event.taskId), true);
    const answer = await doomed;
    assert.equal(answer.statusCode, 503, answer.body);
    assert.equal(answer.json<{ error: string }>().error, 'SEARCH_THREAD_FAILED');
    assert.match(answer.json<{ message: string }>().message, /stopped/);
    const next = await search(app.t.app, 'aardvark');
    assert.equal(next.statusCode, 200, next.body);
    assert.equal(app.t.searchService.threads?.stats().TotThreadFailures, 1);
  });

  it("says in Server-Timing what the query's trip to its thread and back took, apart from the search", async () => {
    const onThread = assertSearchTiming((await search(app.t.app, 'ab*')).headers['server-timing']);
    assert.ok(onThread.get('hop')! > 0, 'the task and its answer crossed between threads');
    // The same query on the event loop: no hop.
    const here = await testApp(['c'], { searchThreads: 0 });
    try {
      await pushAndCommit(here.app, 'c', randomVocabulary(2, 100));
      const onLoop = assertSearchTiming((await search(here.app, 'ab*')).headers['server-timing']);
      assert.equal(onLoop.get('hop'), 0);
    } finally {
      await here.close();
    }
  });

  it('flags a prefix that met search.max-prefix-terms', async () => {
    // One prefix: the expansion is capped at 256 of its terms (thousands exist).
    const response = await search(app.t.app, 'ab*');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(
      response.json<SearchResponse>().response.resultPacket.resultsSummary.prefixTermsCapped,
      true,
    );
    const plain = await search(app.t.app, 'nothing');
    const summary = plain.json<SearchResponse>().response.resultPacket.resultsSummary;
    assert.deepEqual([summary.prefixTermsCapped, summary.timedOut], [false, false]);
  });

  it('names its threads ps-search for the operating system', { skip: process.platform !== 'linux' }, () => {
    const names = readdirSync('/proc/self/task').map((tid) => {
      try {
        return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      } catch {
        return '';
      }
    });
    assert.ok(names.includes('ps-search'), names.join(', '));
  });

  it("explains the query tester's results on a search thread", async () => {
    const dispatched = app.next('dispatched');
    const { response, explanations } = await app.t.searchService.explain(firstPageParams('c', 'ab*', 5));
    await dispatched;
    const results = response.response.resultPacket.results;
    assert.ok(results.length > 0);
    assert.equal(explanations.length, results.length);
    for (const explanation of explanations) {
      assert.equal(explanation.description, 'score');
      assert.match(explanation.details[0]!.description, /^text \(BM25F\)/);
    }
  });
});

describe('search threads: point-in-time views while commits and merges publish', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp(['c'], { searchThreads: 2 });
  });
  after(() => t.close());

  it('every answer shows exactly one release of every document while releases are committed and merged', async () => {
    const KEYS = 12;
    const release = async (n: number) => {
      for (let k = 0; k < KEYS; k++) {
        const response = await t.app.inject({
          method: 'PUT',
          url: route('v2', 'c', `/documents?key=${encodeURIComponent(`http://example.com/doc/${k}`)}`),
          headers: { 'content-type': 'text/plain', authorization: ADMIN_AUTH },
          payload: `common release${n} document${k}`,
        });
        assert.equal(response.statusCode, 200, response.body);
      }
      const committed = await t.app.inject({
        method: 'POST',
        url: route('v2', 'c', '/commit'),
        headers: { authorization: ADMIN_AUTH },
      });
      assert.equal(committed.statusCode, 200, committed.body);
    };
    await release(0);
    let releasing = true;
    const writer = (async () => {
      try {
        for (let n = 1; n <= 12; n++) {
          await release(n);
          if (n % 4 === 0) {
            const merged = await t.app.inject({
              method: 'POST',
              url: route('v2', 'c', '/vacuum?vacuum-type=MERGE'),
              headers: { authorization: ADMIN_AUTH },
            });
            assert.equal(merged.statusCode, 200, merged.body);
          }
        }
      } finally {
        releasing = false;
      }
    })();
    let answers = 0;
    const reader = async () => {
      while (releasing) {
        const response = await search(t.app, 'common', { num_ranks: '50' });
        assert.equal(response.statusCode, 200, response.body);
        const packet = response.json<SearchResponse>().response.resultPacket;
        const releases = new Set(packet.results.map((r) => /release(\d+)/.exec(r.summary)?.[1]));
        assert.equal(packet.results.length, KEYS, 'every document once');
        assert.equal(releases.size, 1, `one manifest per answer, saw releases ${[...releases].join(', ')}`);
        answers++;
      }
    };
    await Promise.all([writer, reader(), reader(), reader(), reader()]);
    assert.ok(answers >= 4, `${answers} answers`);
    const stats = t.searchService.threads!.stats();
    assert.equal(stats.threads, 2, 'both threads served');
    assert.equal(stats.TotThreadFailures, 0);
  });
});

describe('search threads: points in time named by id', () => {
  let t: TestApp;
  before(async () => {
    // One thread: it holds every point in time the queries below used, and is told which to drop.
    t = await testApp(['c', 'd'], { searchThreads: 1 });
  });
  after(() => t.close());

  it('a delete committed reaches a thread that searched the generation before, for more commits than a thread keeps points in time', async () => {
    const DOCUMENTS = 24;
    const key = (n: number) => `http://example.com/doc/${n}`;
    await pushAndCommit(
      t.app,
      'c',
      Array.from({ length: DOCUMENTS }, (_, n) => ({ key: key(n), body: `common document${n}` })),
    );
    await pushAndCommit(t.app, 'd', [{ key: 'http://example.com/other', body: 'common other' }]);
    for (let deleted = 0; deleted <= DOCUMENTS; deleted++) {
      // No new generation: the same generation with more of it killed, in a new manifest.
      const packet = (await searchJson(t.app, { collection: 'c', query: 'common', num_ranks: '50' })).response
        .resultPacket;
      const expected = Array.from({ length: DOCUMENTS - deleted }, (_, n) => key(deleted + n)).sort();
      assert.deepEqual(packet.results.map((r) => r.liveUrl).sort(), expected, `after ${deleted} deletes`);
      // A collection whose point in time stays the same while c's change: sent again once dropped.
      const other = await searchJson(t.app, { collection: 'd', query: 'common' });
      assert.deepEqual(urls(other), ['http://example.com/other']);
      if (deleted === DOCUMENTS) break;
      const removed = await t.app.inject({
        method: 'DELETE',
        url: route('v2', 'c', `/documents?key=${encodeURIComponent(key(deleted))}`),
        headers: { authorization: ADMIN_AUTH },
      });
      assert.equal(removed.statusCode, 200, removed.body);
      const committed = await t.app.inject({
        method: 'POST',
        url: route('v2', 'c', '/commit'),
        headers: { authorization: ADMIN_AUTH },
      });
      assert.equal(committed.statusCode, 200, committed.body);
    }
    const stats = t.searchService.threads!.stats();
    assert.equal(stats.TotThreadFailures, 0);
    assert.equal(stats.TotQueries, 2 * (DOCUMENTS + 1), 'every query ran on the thread');
  });
});

describe('search threads: a meta collection of more members than a thread keeps points in time', () => {
  // One more than the points a thread keeps (16): the first query teaches all, past the limit.
  const MEMBERS = Array.from({ length: 17 }, (_, n) => `m${n}`);
  let t: TestApp;
  before(async () => {
    t = await testApp(MEMBERS, { searchThreads: 1 });
    for (const name of MEMBERS)
      await pushAndCommit(t.app, name, [{ key: `http://example.com/${name}`, body: `common ${name}` }]);
    t.manager.create('all', 'meta', MEMBERS);
  });
  after(() => t.close());

  const remove = async (name: string) => {
    const removed = await t.app.inject({
      method: 'DELETE',
      url: route('v2', name, `/documents?key=${encodeURIComponent(`http://example.com/${name}`)}`),
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(removed.statusCode, 200, removed.body);
    const committed = await t.app.inject({
      method: 'POST',
      url: route('v2', name, '/commit'),
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(committed.statusCode, 200, committed.body);
  };
  const found = async () =>
    urls(await searchJson(t.app, { collection: 'all', query: 'common', num_ranks: '50' })).sort();

  it('answers every member each time, while members change one by one', async () => {
    const live = new Set(MEMBERS);
    const expected = () => [...live].map((name) => `http://example.com/${name}`).sort();
    assert.deepEqual(await found(), expected());
    // The last member changes: the points the task reads that the thread held are kept, whatever their age.
    for (const name of ['m16', 'm0', 'm9']) {
      await remove(name);
      live.delete(name);
      assert.deepEqual(await found(), expected(), `after ${name} changed`);
    }
    assert.equal(t.searchService.threads!.stats().TotThreadFailures, 0);
  });
});

describe('search threads: views opened at once, or after a start', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp(['p', 'q'], { searchThreads: 1 });
    await pushAndCommit(t.app, 'p', [{ key: 'http://example.com/p', body: 'shared words of p' }]);
    await pushAndCommit(t.app, 'q', [{ key: 'http://example.com/q', body: 'shared words of q' }]);
    t.manager.create('pq', 'meta', ['p', 'q']);
  });
  after(() => t.close());

  const stop = async (name: string) => {
    const stopped = await t.app.inject({
      method: 'POST',
      url: route('v2', name, '/state/stop'),
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(stopped.statusCode, 200, stopped.body);
    assert.equal(t.manager.collection(name).acquireSearcherNow(), undefined, `${name} stopped`);
  };
  const found = async (collection: string) =>
    urls(await searchJson(t.app, { collection, query: 'shared' })).sort();

  it('a search of a stopped collection, or of a meta collection with a stopped member, starts it; the next is answered at once', async () => {
    assert.deepEqual(await found('p'), ['http://example.com/p']);
    // Running: the view opens without waiting, and its searcher is released after the query.
    const now = t.manager.collection('p').acquireSearcherNow();
    assert.ok(now !== undefined, 'a running collection gives its searcher at once');
    now.release();

    await stop('p');
    assert.deepEqual(await found('p'), ['http://example.com/p'], 'started by the search');
    assert.deepEqual(await found('p'), ['http://example.com/p'], 'then at once');

    await stop('q');
    assert.deepEqual(await found('pq'), ['http://example.com/p', 'http://example.com/q']);
    assert.deepEqual(await found('pq'), ['http://example.com/p', 'http://example.com/q']);
    const stats = t.searchService.threads!.stats();
    assert.equal(stats.TotThreadFailures, 0);
    assert.equal(stats.busyThreads, 0, 'no thread is left opening or running');
  });

  it('a collection with push.run=false is searched in its last state (never at once: it does not run)', async () => {
    const original = readFileSync(join(t.home, 'conf', 'q', 'collection.cfg'), 'utf8');
    const put = async (text: string) => {
      const response = await adminRequest(t.app, 'PUT', '/collections/q/config', {
        files: { 'collection.cfg': text },
      });
      assert.equal(response.statusCode, 200, response.body);
    };
    await put(`${original}push.run=false\n`);
    try {
      assert.equal(t.manager.collection('q').acquireSearcherNow(), undefined);
      assert.deepEqual(await found('q'), ['http://example.com/q']);
      assert.deepEqual(await found('pq'), ['http://example.com/p', 'http://example.com/q']);
    } finally {
      await put(original);
    }
  });
});

describe('search threads: a query waiting for its thread to start', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp(['c']);
    await pushAndCommit(t.app, 'c', [{ key: 'http://example.com/1', body: 'apple pie' }]);
  });
  after(() => t.close());

  it('keeps the process alive until the thread listens, even once its budget has run out', async () => {
    // With a budget of 0 ms its timer fires while a slow start-up goes on and waits on (the
    // budget starts once the thread listens): the starting thread is then all that keeps the
    // process alive. Without it a command line run (no server socket) would exit unanswered.
    const service = new SearchService(t.manager, { threads: 1, timeoutMs: 0 });
    try {
      const ports = () => process.getActiveResourcesInfo().filter((kind) => kind === 'MessagePort').length;
      const idle = ports();
      const answer = service.searchJson(firstPageParams('c', 'apple', 10));
      assert.equal(ports(), idle + 1, 'the starting thread holds the process');
      const packet = JSON.parse(Buffer.from((await answer).json).toString('utf8')) as SearchResponse;
      // Answered, over budget as asked (what it found by its first check).
      assert.equal(packet.response.resultPacket.resultsSummary.timedOut, true);
      assert.equal(ports(), idle, 'an idle thread does not hold the process');
    } finally {
      await service.close();
    }
  });
});

describe('search threads: the first search after a start', () => {
  it('answers the error of a collection that fails to open while its thread starts, and the server goes on', async () => {
    const t = await testApp(['c', 'd']);
    try {
      await pushAndCommit(t.app, 'c', [{ key: 'http://example.com/1', body: 'apple pie' }]);
      await pushAndCommit(t.app, 'd', [{ key: 'http://example.com/2', body: 'apple tart' }]);
      await t.manager.collection('c').stop();
      const live = t.manager.home.liveFolder('c');
      const terms = readdirSync(live).find((name) => name.endsWith('.tim'))!;
      writeFileSync(join(live, terms), 'not a term dictionary');
      // A service of its own: its thread starts with this first search, which opens the
      // collection meanwhile and fails.
      const service = new SearchService(t.manager, { threads: 1 });
      try {
        await assert.rejects(service.searchJson(firstPageParams('c', 'apple', 10)), (error: Error) => {
          assert.match(error.message, /\.tim/);
          return true;
        });
        const packet = JSON.parse(
          Buffer.from((await service.searchJson(firstPageParams('d', 'apple', 10))).json).toString('utf8'),
        ) as SearchResponse;
        assert.equal(packet.response.resultPacket.resultsSummary.totalMatching, 1);
      } finally {
        await service.close();
      }
    } finally {
      await t.close();
    }
  });
});
