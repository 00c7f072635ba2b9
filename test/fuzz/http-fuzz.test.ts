/**
 * Bad input (issue 7): random and hostile requests against every route family of a real
 * listening server, sent as raw bytes. Properties:
 * - every request gets an answer (no hang) with a status below 500, or 503 with a reason;
 *   no answer body carries a stack trace;
 * - the server never crashes (it runs in this process: a crash fails the file);
 * - every few requests, a valid authenticated PUT + commit + GET works, every document
 *   acknowledged so far (by the checks and by the fuzz itself) is still found, and search
 *   finds every check document.
 * `PUSHSEARCH_LONG_TESTS=1` runs many more requests; `PUSHSEARCH_FUZZ_SEED` replays a reported seed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { ADMIN_AUTH, TEST_SECURITY, basicAuth, tempHome } from '../http/helpers.js';
import { waitFor } from '../support/wait.js';
import {
  DOCS,
  SCRATCH,
  hostileRequestArb,
  renderRequest,
  type Credentials,
  type HostileRequest,
} from './hostile-requests.js';
import { printable, rawRequest, type RawOutcome } from './raw-http.js';

const LONG = process.env.PUSHSEARCH_LONG_TESTS === '1';
/** Requests per run; the default keeps the file well under a minute on two cores. */
const NUM_RUNS = LONG ? 30_000 : 3000;
/** Valid-request checks every this many hostile requests. */
const CHECK_EVERY = LONG ? 500 : 150;
/** `PUSHSEARCH_FUZZ_SEED=<n>` replays the run that fast-check reported with that seed. */
const SEED =
  process.env.PUSHSEARCH_FUZZ_SEED === undefined ? {} : { seed: Number(process.env.PUSHSEARCH_FUZZ_SEED) };
/** Longest a single hostile request may go unanswered. */
const ANSWER_TIMEOUT_MS = 15_000;

const PUSHER_PASSWORD = 'pusher-password-123';
const CREDENTIALS: Credentials = {
  admin: ADMIN_AUTH,
  pusher: basicAuth('pusher', PUSHER_PASSWORD),
  wrongPassword: basicAuth('admin', 'not-the-password'),
};
/** A stack frame in an answer would leak internals (`at fn (/path/file.js:1:2)`). */
const STACK_FRAME = /\n\s+at .+:\d+:\d+\)?/;

/** ` CODE` of a JSON error answer, for the diagnostics; empty otherwise. */
function errorCode(body: Buffer): string {
  try {
    const code = (JSON.parse(body.toString('utf8')) as { error?: unknown }).error;
    return typeof code === 'string' ? ` ${code}` : '';
  } catch {
    return '';
  }
}

describe('HTTP fuzz: hostile requests on every route family', () => {
  let server: RunningServer;
  let home: string;
  let cleanup: () => void;
  /** Canonical key → where it came from, for every document the server acknowledged in `docs` and did not delete since. */
  const acknowledged = new Map<string, string>();
  /** Check documents (all in `docs`, all carrying the word `canarymark`). */
  const canaries = new Map<string, string>();
  const runId = randomUUID();
  let sent = 0;
  /** `family status` → count, printed as a diagnostic so that a run shows what it reached. */
  const statuses = new Map<string, number>();

  before(async () => {
    ({ home, cleanup } = tempHome());
    server = await startServer({
      home,
      port: 0,
      // Wrong passwords are part of the fuzz; the login throttle would (rightly) lock the
      // admin name and 127.0.0.1 after a few, and the checks need them. The throttle has its own tests.
      security: { ...TEST_SECURITY, throttle: { freeFailuresPerUser: 1e9, freeFailuresPerAddress: 1e9 } },
    });
    server.manager.create(DOCS, 'push');
    server.manager.create(SCRATCH, 'push');
    const user = await fetch(`${server.url}/admin-api/v1/users/pusher`, {
      method: 'PUT',
      headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({
        password: PUSHER_PASSWORD,
        permissions: ['sec.continuous.rest'],
        collections: [DOCS, SCRATCH],
      }),
    });
    assert.equal(user.status, 200, await user.text());
    // A first commit on scratch: a snapshot of a never-committed collection is a known bug
    // (see the todo test below) that the fuzz would otherwise hit in every run.
    const put = await fetch(
      `${server.url}/push-api/v1/collections/${SCRATCH}/documents?key=https%3A%2F%2Fscratch.example%2F`,
      {
        method: 'PUT',
        headers: { authorization: ADMIN_AUTH, 'content-type': 'text/plain' },
        body: 'scratch',
      },
    );
    assert.equal(put.status, 200, await put.text());
    const commit = await fetch(`${server.url}/push-api/v1/collections/${SCRATCH}/commit`, {
      method: 'POST',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(commit.status, 200, await commit.text());
  });

  after(async () => {
    await server.close();
    cleanup();
  });

  /** The last lines of push.log (where the server writes its own failures, with stacks). */
  function pushLogTail(): string {
    const file = join(home, 'web', 'log', 'push.log');
    if (!existsSync(file)) return '(no push.log)';
    return readFileSync(file, 'utf8').trim().split('\n').slice(-3).join('\n');
  }

  function describeExchange(request: HostileRequest, bytes: Buffer, outcome: RawOutcome): string {
    const answer =
      outcome.kind === 'answer'
        ? `${outcome.head}\n\n${printable(outcome.body, 800)}`
        : `${outcome.kind}; received: ${printable(outcome.received, 400)}`;
    return `[${request.family}] request:\n${printable(bytes)}\n--- answer:\n${answer}\n--- push.log tail:\n${pushLogTail()}`;
  }

  /** The properties every single answer must have. */
  function checkAnswer(request: HostileRequest, bytes: Buffer, outcome: RawOutcome): void {
    const what = () => describeExchange(request, bytes, outcome);
    assert.notEqual(outcome.kind, 'timeout', `no answer within ${ANSWER_TIMEOUT_MS} ms: ${what()}`);
    assert.equal(outcome.kind, 'answer', `connection closed without an answer: ${what()}`);
    if (outcome.kind !== 'answer') return;
    const { status, body, headers } = outcome;
    const text = body.toString('utf8');
    assert.doesNotMatch(text, STACK_FRAME, `stack trace in the answer: ${what()}`);
    // While an upgrade is prepared, writes are refused (503) before any limit is looked at.
    if (request.expect !== undefined && errorCode(body).trim() !== 'UPGRADE_PREPARING') {
      // A limit answers its own status and code (the pusher may push to scratch; admin anywhere).
      assert.equal(status, request.expect.status, `a limit's status: ${what()}`);
      assert.equal(errorCode(body).trim(), request.expect.code, `a limit's code: ${what()}`);
    }
    if (status >= 400 && request.method !== 'HEAD' && /json/.test(headers['content-type'] ?? '')) {
      // Every JSON error, whoever raised it (a route, Fastify's router, Node's parser), in the
      // contract's form, so that a client handles all of them with one piece of code.
      const error = JSON.parse(text) as { status?: unknown; error?: unknown; message?: unknown };
      assert.equal(error.status, status, `error body without its status: ${what()}`);
      assert.match(String(error.error), /^[A-Z][A-Z_]+$/, `error body without a stable code: ${what()}`);
      assert.ok(
        typeof error.message === 'string' && error.message !== '',
        `error body without a message: ${what()}`,
      );
    }
    if (status < 500) return;
    assert.equal(status, 503, `server error: ${what()}`);
    if (request.method === 'HEAD') return; // no body to carry the reason
    if (/json/.test(headers['content-type'] ?? '')) {
      const reason = JSON.parse(text) as { error?: unknown; message?: unknown };
      assert.ok(
        typeof reason.error === 'string' && typeof reason.message === 'string' && reason.message !== '',
        `503 without a reason: ${what()}`,
      );
    } else {
      assert.ok(text.trim() !== '', `503 without a reason: ${what()}`);
    }
  }

  /**
   * Keeps `acknowledged` in step with what the fuzz did to `docs`: a 200 with `storedKeys`
   * adds the key (document stored) or removes it (deleted, or replaced by a redirect).
   */
  function track(request: HostileRequest, outcome: RawOutcome): void {
    if (outcome.kind !== 'answer' || outcome.status !== 200) return;
    let answer: { storedKeys?: unknown; message?: unknown };
    try {
      answer = JSON.parse(outcome.body.toString('utf8')) as typeof answer;
    } catch {
      return;
    }
    if (!Array.isArray(answer.storedKeys) || typeof answer.message !== 'string') return;
    let path: string;
    try {
      path = decodeURIComponent(request.target.split('?')[0]!);
    } catch {
      path = request.target.split('?')[0]!;
    }
    const collection = /\/collections\/([^/]*)\//.exec(path)?.[1];
    if (collection !== DOCS) return;
    const stored = /^document .* stored/.test(answer.message);
    for (const key of answer.storedKeys as string[]) {
      if (stored) acknowledged.set(key, `${request.family} #${sent}`);
      else acknowledged.delete(key);
    }
  }

  async function sendHostile(request: HostileRequest): Promise<void> {
    const bytes = renderRequest(request, CREDENTIALS);
    const outcome = await rawRequest(server.port, bytes, {
      timeoutMs: ANSWER_TIMEOUT_MS,
      head: request.method === 'HEAD',
    });
    sent++;
    const label = `${request.family} ${outcome.kind === 'answer' ? `${outcome.status}${errorCode(outcome.body)}` : outcome.kind}`;
    statuses.set(label, (statuses.get(label) ?? 0) + 1);
    checkAnswer(request, bytes, outcome);
    track(request, outcome);
  }

  /** A valid PUT + commit + GET works, and everything acknowledged so far is still there. */
  async function checkStillWorks(): Promise<void> {
    const round = canaries.size;
    const key = `https://canary.invalid/${runId}/${round}`;
    const content = `canarymark check document ${round}`;
    const put = await fetch(
      `${server.url}/push-api/v1/collections/${DOCS}/documents?key=${encodeURIComponent(key)}`,
      {
        method: 'PUT',
        headers: {
          authorization: ADMIN_AUTH,
          'content-type': 'text/plain',
          'x-service-push-metadata-round': String(round),
        },
        body: content,
      },
    );
    const putText = await put.text();
    assert.equal(put.status, 200, `valid PUT after ${sent} hostile requests: ${putText}\n${pushLogTail()}`);
    const storedKey = (JSON.parse(putText) as { storedKeys: string[] }).storedKeys[0]!;
    canaries.set(storedKey, content);
    acknowledged.set(storedKey, 'check PUT');

    const commit = await fetch(`${server.url}/push-api/v2/collections/${DOCS}/commit`, {
      method: 'POST',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(
      commit.status,
      200,
      `commit after ${sent} hostile requests: ${await commit.text()}\n${pushLogTail()}`,
    );

    for (const [stored, origin] of acknowledged) {
      const get = await fetch(
        `${server.url}/push-api/v1/collections/${DOCS}/documents?key=${encodeURIComponent(stored)}`,
        {
          headers: { authorization: ADMIN_AUTH },
        },
      );
      const text = await get.text();
      assert.equal(
        get.status,
        200,
        `acknowledged document ${JSON.stringify(stored)} (from ${origin}) is gone: ${text}\n${pushLogTail()}`,
      );
      const expected = canaries.get(stored);
      if (expected !== undefined) {
        const document = JSON.parse(text) as { pushContent: { content: string }; committed: boolean };
        assert.equal(Buffer.from(document.pushContent.content, 'base64').toString('utf8'), expected);
        assert.equal(document.committed, true, `${stored} was committed`);
      }
    }

    const search = await fetch(
      `${server.url}/s/search.json?collection=${DOCS}&query=canarymark&num_ranks=1000`,
    );
    const found = (await search.json()) as {
      response: {
        resultPacket: { resultsSummary: { totalMatching: number }; results: { liveUrl: string }[] };
      };
    };
    assert.equal(search.status, 200);
    const packet = found.response.resultPacket;
    // Each check document exactly once (sorted lists, so that a duplicate shows).
    assert.deepEqual(
      packet.results.map((r) => r.liveUrl).sort(),
      [...canaries.keys()].sort(),
      `search for the check documents after ${sent} hostile requests\n${pushLogTail()}`,
    );
    assert.equal(
      packet.resultsSummary.totalMatching,
      canaries.size,
      'totalMatching counts each check document once',
    );
  }

  it(`answers ${NUM_RUNS} hostile requests below 500 and keeps every acknowledged document`, async (t) => {
    await checkStillWorks();
    await fc.assert(
      fc.asyncProperty(hostileRequestArb, async (request) => {
        await sendHostile(request);
        if (sent % CHECK_EVERY === 0) await checkStillWorks();
      }),
      { numRuns: NUM_RUNS, includeErrorInReport: true, ...SEED },
    );
    await checkStillWorks();
    t.diagnostic(
      `answers by family and status: ${[...statuses]
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ')}`,
    );
    t.diagnostic(`documents acknowledged by the fuzz and still found: ${acknowledged.size - canaries.size}`);
    assert.ok(acknowledged.size > canaries.size, 'the fuzz itself stored documents that the checks followed');
  });

  it('a stalled body (slow loris) neither blocks other requests nor keeps its body reservation once the client leaves', async () => {
    const stalled = [
      // Half a declared body.
      `PUT /push-api/v1/collections/${DOCS}/documents?key=https%3A%2F%2Fslow.example%2Fa HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN_AUTH}\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n${'h'.repeat(500)}`,
      // A chunked body that stops inside a chunk.
      `PUT /push-api/v2/collections/${DOCS}/documents/content-and-metadata?key=https%3A%2F%2Fslow.example%2Fb HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN_AUTH}\r\nContent-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n100\r\n--b\r\nContent-Disposition: form-data; name="content"\r\n\r\nhalf`,
      // A small route's body, half sent.
      `POST /admin-api/account/v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nusername=adm`,
    ];
    const sockets: { socket: Socket; state: { answered: string; closed: boolean } }[] = [];
    try {
      await stallAndCheck(stalled, sockets);
    } finally {
      // Whatever happened, let the server's close() finish: it waits for requests in flight.
      for (const { socket } of sockets) socket.destroy();
    }
  });

  /** Opens the stalled requests (into `sockets`, which the caller destroys), then checks the server around them. */
  async function stallAndCheck(
    stalled: string[],
    sockets: { socket: Socket; state: { answered: string; closed: boolean } }[],
  ): Promise<void> {
    const opened = stalled.map((text) => {
      const socket = connect(server.port, '127.0.0.1');
      const state = { answered: '', closed: false };
      socket.on('data', (chunk: Buffer) => (state.answered += chunk.toString('latin1')));
      socket.on('close', () => (state.closed = true));
      socket.on('error', () => {});
      socket.write(text);
      return { socket, state };
    });
    sockets.push(...opened);
    // Two document bodies in flight hold their reservations: 1000 bytes declared, and the
    // most a chunked body may grow to.
    await waitFor('the stalled bodies to hold their reservations', () => server.bodyBudget.inUse >= 1000);

    // Meanwhile everything else is served.
    await checkStillWorks();
    for (const { state } of sockets) {
      // No answer yet is fine (the body is not complete); an answer must not be a 5xx.
      assert.doesNotMatch(state.answered, /^HTTP\/1\.1 5(?!03)/);
    }

    // The test stops waiting (the server's own body timeout is tested in test/http/body-timeout.test.ts).
    for (const { socket } of sockets) socket.destroy();
    sockets.length = 0;
    await waitFor(
      'the reservations to be released when the stalled clients left',
      () => server.bodyBudget.inUse === 0,
    );
    assert.equal((await fetch(`${server.url}/s/search.json?collection=${DOCS}&query=slow`)).status, 200);
    await checkStillWorks();
    // The stalled documents were never acknowledged, so never stored.
    for (const key of ['https://slow.example/a', 'https://slow.example/b']) {
      const get = await fetch(
        `${server.url}/push-api/v1/collections/${DOCS}/documents?key=${encodeURIComponent(key)}`,
        { headers: { authorization: ADMIN_AUTH } },
      );
      assert.equal(get.status, 200);
      assert.equal(((await get.json()) as { pushContent: unknown }).pushContent, null, key);
    }
  }

  it('a snapshot of a collection that has no commit yet answers below 500', async () => {
    server.manager.create('never-committed', 'push');
    const answer = await fetch(`${server.url}/push-api/v1/collections/never-committed/snapshot/first`, {
      method: 'PUT',
      headers: { authorization: ADMIN_AUTH },
    });
    const text = await answer.text();
    assert.ok(answer.status < 500, `${answer.status} ${text}\n${pushLogTail()}`);
  });

  it('while preparing for an upgrade, hostile requests still answer below 500 or 503 with a reason, and nothing acknowledged is lost', async () => {
    const prepare = await fetch(`${server.url}/push-api/v1/upgrade/prepare`, {
      method: 'POST',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(prepare.status, 200, await prepare.text());
    await fc.assert(fc.asyncProperty(hostileRequestArb, sendHostile), {
      numRuns: Math.ceil(NUM_RUNS / 5),
      includeErrorInReport: true,
    });

    const refused = await fetch(
      `${server.url}/push-api/v1/collections/${DOCS}/documents?key=${encodeURIComponent('https://canary.invalid/refused')}`,
      {
        method: 'PUT',
        headers: { authorization: ADMIN_AUTH, 'content-type': 'text/plain' },
        body: 'refused while preparing',
      },
    );
    assert.equal(refused.status, 503);
    assert.equal(((await refused.json()) as { error: string }).error, 'UPGRADE_PREPARING');
    assert.ok(refused.headers.get('retry-after') !== null);
    for (const [stored, origin] of acknowledged) {
      const get = await fetch(
        `${server.url}/push-api/v1/collections/${DOCS}/documents?key=${encodeURIComponent(stored)}`,
        { headers: { authorization: ADMIN_AUTH } },
      );
      assert.equal(
        get.status,
        200,
        `acknowledged document ${stored} (from ${origin}) is gone: ${await get.text()}`,
      );
    }
  });
});
