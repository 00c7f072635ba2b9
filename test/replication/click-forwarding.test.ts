/**
 * Clicks handed from query processors to their master, and the limits the master puts on
 * them: the click log's cap (`search.clicks.max-log-bytes`), the size of one batch, lines
 * that are no click, and a batch sent again after a lost acknowledgement. The master is a
 * real app listening on loopback; batches are sent signed, as a query processor sends them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SearchHome } from '../../src/collection/search-home.js';
import { SearchError } from '../../src/errors.js';
import { ClickForwarder, ClickReceiver } from '../../src/replication/click-forwarder.js';
import { readText, SyncClient, SyncRequestError } from '../../src/replication/sync-client.js';
import { testApp, type TestApp } from '../http/helpers.js';
import { freePort } from './cluster-helpers.js';
import { removeTempFolders, serveMaster, tempFolder } from './helpers.js';

const SECRET = 'click forwarding secret 0123456789';
const MAX_LOG_BYTES = 4096;

const apps: TestApp[] = [];
const clients: SyncClient[] = [];
after(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const app of apps.splice(0)) await app.close();
  removeTempFolders();
});

/** One click log line (about 130 bytes). */
function click(n: number): string {
  return JSON.stringify({
    time: new Date(Date.UTC(2026, 10, 27, 8, 0, 0, n)).toISOString(),
    collection: 'c',
    query: `query ${n}`,
    rank: 1 + (n % 10),
    url: `http://example.com/page/${n}`,
  });
}

function linesOf(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

async function masterApp(): Promise<{ app: TestApp; client: SyncClient; log: string }> {
  const app = await testApp(['c'], {
    global: [`server_secret=${SECRET}`, `search.clicks.max-log-bytes=${MAX_LOG_BYTES}`],
  });
  apps.push(app);
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const client = new SyncClient(
    `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`,
    () => SECRET,
  );
  clients.push(client);
  return { app, client, log: join(app.home, 'data', 'c', 'clicks', 'clicks.log') };
}

/** Sends a batch as a query processor does; resolves with the master's answer (or its error). */
async function send(
  client: SyncClient,
  body: unknown,
): Promise<{ batch: string; accepted: number; dropped: number; duplicate: boolean }> {
  const response = await client.send('POST', '/collections/c/clicks', {
    body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  });
  return JSON.parse(await readText(response)) as {
    batch: string;
    accepted: number;
    dropped: number;
    duplicate: boolean;
  };
}

async function refusal(
  promise: Promise<unknown>,
): Promise<{ status: number; code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as SyncRequestError;
    return { status: e.status ?? 0, code: e.code, message: e.message };
  }
  throw new Error('the master accepted it');
}

describe('clicks forwarded to a master', () => {
  it('a batch sent again after a retry is appended once', async () => {
    const { client, log } = await masterApp();
    const lines = Array.from({ length: 10 }, (_, n) => click(n));
    assert.deepEqual(await send(client, { batch: 'qp1:b1', lines }), {
      batch: 'qp1:b1',
      duplicate: false,
      accepted: 10,
      dropped: 0,
    });
    const again = await send(client, { batch: 'qp1:b1', lines });
    assert.equal(again.duplicate, true);
    assert.equal(again.accepted, 0);
    assert.deepEqual(linesOf(log), lines);
  });

  it("the master's click log cap holds for forwarded clicks; logging resumes once the log is processed", async () => {
    const { app, client, log } = await masterApp();
    const lines = Array.from({ length: 100 }, (_, n) => click(n));
    const first = await send(client, { batch: 'qp1:big', lines });
    assert.ok(first.accepted > 0 && first.accepted < 100, JSON.stringify(first));
    assert.equal(first.accepted + first.dropped, 100);
    assert.ok(statSync(log).size <= MAX_LOG_BYTES, `clicks.log is ${statSync(log).size} bytes`);
    // The lines that fit, in order, whole.
    assert.deepEqual(linesOf(log), lines.slice(0, first.accepted));
    // Another query processor, another batch: nothing fits any more.
    const full = await send(client, { batch: 'qp2:next', lines: [click(500), click(501)] });
    assert.deepEqual([full.accepted, full.dropped], [0, 2]);
    assert.equal(linesOf(log).length, first.accepted);
    const pushLog = readFileSync(new SearchHome(app.home).pushLogFile, 'utf8');
    assert.equal(pushLog.match(/click log full/g)?.length, 1, 'push.log says so once');

    const processed = await app.app.inject({ method: 'POST', url: '/push-api/v1/collections/c/click-logs' });
    assert.equal(processed.statusCode, 200, processed.body);
    const after = await send(client, { batch: 'qp2:after', lines: [click(600)] });
    assert.equal(after.accepted, 1);
    assert.deepEqual(linesOf(log), [click(600)]);
  });

  it('refuses a batch of too many lines or bytes (413, nothing appended) and keeps answering', async () => {
    const { client, log } = await masterApp();
    const many = await refusal(
      send(client, { batch: 'qp1:many', lines: Array.from({ length: 10_001 }, () => '{}') }),
    );
    assert.equal(many.status, 413);
    assert.equal(many.code, 'BODY_TOO_LARGE');
    assert.match(many.message, /at most 10000 lines/);
    const huge = await refusal(send(client, { batch: 'qp1:huge', lines: ['x'.repeat(9 * 1024 * 1024)] }));
    assert.equal(huge.status, 413);
    assert.equal(huge.code, 'BODY_TOO_LARGE');
    assert.deepEqual(linesOf(log), []);
    // Lines that are no click log line are dropped; the rest of the batch is taken.
    const mixed = await send(client, {
      batch: 'qp1:mixed',
      lines: [click(1), 'not json', '[1,2]', JSON.stringify({ url: 'x'.repeat(70_000) }), click(2)],
    });
    assert.deepEqual([mixed.accepted, mixed.dropped], [2, 3]);
    assert.deepEqual(linesOf(log), [click(1), click(2)]);
  });

  it('a batch that is not signed with the shared secret is refused', async () => {
    const { app, log } = await masterApp();
    const stranger = new SyncClient(
      `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`,
      () => 'another secret',
    );
    clients.push(stranger);
    const refused = await refusal(send(stranger, { batch: 'x:1', lines: [click(1)] }));
    assert.equal(refused.code, 'SYNC_SIGNATURE_INVALID');
    assert.deepEqual(linesOf(log), []);
  });
});

describe('ClickForwarder', () => {
  it('cuts a big click log into batches the master takes, and sends each once across a lost acknowledgement', async () => {
    const masterFolder = tempFolder();
    const receiver = new ClickReceiver(masterFolder, { maxLogBytes: 1 << 30 });
    let loseNextAnswer = true;
    const batches: { batch: string; lines: number }[] = [];
    const master = await serveMaster({
      secret: () => SECRET,
      masterFor: () => Promise.reject(new SearchError('NOT_FOUND', 'no collection here')),
      receiveClicks: async (_collection, batch, lines) => {
        const result = await receiver.receive(batch, lines);
        batches.push({ batch, lines: lines.length });
        if (loseNextAnswer) {
          // Appended, then the answer is lost: the query processor must send it again.
          loseNextAnswer = false;
          throw new SearchError('INTERNAL', 'connection lost');
        }
        return result;
      },
    });
    const client = new SyncClient(master.url, () => SECRET);
    clients.push(client);
    const qpFolder = tempFolder();
    const lines = Array.from({ length: 12_000 }, (_, n) => click(n));
    writeFileSync(join(qpFolder, 'clicks.log'), lines.map((line) => `${line}\n`).join(''));
    const forwarder = new ClickForwarder({ collection: 'c', clickFolder: qpFolder, client, serverId: 'qp' });
    try {
      await forwarder.forwardNow(); // moves clicks.log to the outbox
      assert.equal(batches.length, 0);
      await assert.rejects(forwarder.forwardNow(), /connection lost/);
      assert.equal(readdirSync(join(qpFolder, 'outbox')).length, 1, 'kept until acknowledged');
      await forwarder.forwardNow();
      assert.deepEqual(readdirSync(join(qpFolder, 'outbox')), []);
      await master.app.close();
    } finally {
      await forwarder.stop();
    }
    // 12,000 lines of ~130 bytes: three batches of at most 5,000 lines; the first sent twice.
    assert.deepEqual(
      batches.map((b) => b.lines),
      [5000, 5000, 5000, 2000],
    );
    assert.equal(batches[0]!.batch, batches[1]!.batch);
    assert.match(batches[0]!.batch, /^qp:\d{15}-[0-9a-f]{8}\.log:0$/);
    assert.deepEqual(linesOf(join(masterFolder, 'clicks.log')), lines);
    assert.equal(forwarder.forwarded, 12_000);
  });

  it('a query processor cut off from its master keeps its click log and one outbox file', async () => {
    const port = await freePort(); // nothing listens there
    const client = new SyncClient(`http://127.0.0.1:${port}`, () => SECRET);
    clients.push(client);
    const qpFolder = tempFolder();
    mkdirSync(qpFolder, { recursive: true });
    const forwarder = new ClickForwarder({ collection: 'c', clickFolder: qpFolder, client, serverId: 'qp' });
    try {
      for (let round = 0; round < 3; round++) {
        writeFileSync(join(qpFolder, 'clicks.log'), `${click(round)}\n`, { flag: 'a' });
        await forwarder.forwardNow().catch(() => undefined);
      }
      assert.equal(readdirSync(join(qpFolder, 'outbox')).length, 1);
      // New clicks wait in clicks.log, which the click routes cap (search.clicks.max-log-bytes).
      assert.deepEqual(linesOf(join(qpFolder, 'clicks.log')), [click(1), click(2)]);
      assert.match(forwarder.lastError?.message ?? '', /ECONNREFUSED|connect/);
    } finally {
      await forwarder.stop();
    }
  });
});
