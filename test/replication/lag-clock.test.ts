/**
 * Replication lag measured on one clock: masters and query processors whose clocks are
 * hours apart must still report the lag the admin sees (the age of the oldest state not
 * installed), never the skew. The admin is a master on loopback whose answers are built by
 * the test (its clock set back two hours); query processors run real pullers with their own
 * clocks set forward.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { emptyManifest } from '../../src/index/manifest.js';
import { listingId, type ReplicatedFile } from '../../src/replication/listing.js';
import { ReplicaIndex } from '../../src/replication/replica-index.js';
import { ReplicaSource, ReplicationMaster } from '../../src/replication/replication-master.js';
import { ReplicationPuller } from '../../src/replication/replication-puller.js';
import { removeTempFolders, serveMaster, tempFolder, untilInstalled } from './helpers.js';

const SECRET = 'lag clock secret 0123456789';
const HOUR = 3_600_000;
/** How old the admin's newest state is, by the admin's clock, when the test starts. */
const AGE_MS = 42_000;

const closers: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  removeTempFolders();
});

/**
 * A master whose clock is `skewMs` off: it lists one state published {@link AGE_MS} before
 * it started (on its clock), with `files`, and answers file requests with 503.
 */
async function skewedAdmin(skewMs: number, files: ReplicatedFile[]): Promise<string> {
  const clock = () => Date.now() + skewMs;
  const publishedAt = new Date(clock() - AGE_MS).toISOString();
  const manifest = { ...emptyManifest(), number: 7 };
  const listing = { id: listingId(manifest, files), manifest, files, publishedAt };
  const server = http.createServer((request, response) => {
    if (request.url?.includes('/manifest?')) {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ ...listing, now: new Date(clock()).toISOString() }));
      return;
    }
    response.statusCode = 503;
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({ status: 503, error: 'UNAVAILABLE', message: 'files are not served today' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function puller(masterUrl: string, replica: ReplicaIndex, skewMs: number): ReplicationPuller {
  const p = new ReplicationPuller({
    collection: 'c',
    masterUrl,
    secret: () => SECRET,
    replica,
    longPollMs: 500,
    retryMinMs: 50,
    retryMaxMs: 100,
    now: () => Date.now() + skewMs,
  });
  closers.push(() => p.close());
  return p;
}

describe('replication lag on one clock', () => {
  for (const qpSkewMs of [HOUR, -3 * HOUR]) {
    it(`a query processor ${qpSkewMs > 0 ? 'ahead of' : 'behind'} its master's clock reports the state's age as lag, not the skew`, async () => {
      const started = Date.now();
      // A file the query processor cannot get: it stays behind the admin's state.
      const file = { name: '1.del', size: 3, sha256: createHash('sha256').update('abc').digest('hex') };
      const adminUrl = await skewedAdmin(-2 * HOUR, [file]);
      const replica = ReplicaIndex.open(tempFolder());
      closers.push(() => replica.close());
      const qp = puller(adminUrl, replica, qpSkewMs);
      qp.start();
      let view = qp.view();
      for (const deadline = Date.now() + 10_000; view.lastError === null && Date.now() < deadline;) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        view = qp.view();
      }
      assert.equal(view.state, 'ERROR', JSON.stringify(view));
      assert.equal(view.masterGeneration, 7);
      assert.equal(view.lagGenerations, 7);
      const elapsed = (Date.now() - started) / 1000;
      assert.ok(
        view.lagSeconds >= AGE_MS / 1000 && view.lagSeconds <= AGE_MS / 1000 + elapsed + 1,
        `lag ${view.lagSeconds} s: the state is ${AGE_MS / 1000} s old (clocks ${qpSkewMs / HOUR + 2} h apart)`,
      );
    });
  }

  it("down a chain of three clocks, each query processor keeps the admin's age of a state on its own clock", async () => {
    const started = Date.now();
    const adminUrl = await skewedAdmin(-2 * HOUR, []);
    const qp1Skew = HOUR;
    const qp2Skew = 3 * HOUR;
    const qp1 = ReplicaIndex.open(tempFolder());
    const qp2 = ReplicaIndex.open(tempFolder());
    closers.push(
      () => qp1.close(),
      () => qp2.close(),
    );
    const qp1Master = new ReplicationMaster(new ReplicaSource(qp1));
    closers.push(() => qp1Master.close());
    const qp1Server = await serveMaster({
      secret: () => SECRET,
      masterFor: () => Promise.resolve(qp1Master),
      receiveClicks: () => Promise.resolve({ duplicate: false, accepted: 0, dropped: 0 }),
      now: () => Date.now() + qp1Skew,
    });
    closers.push(() => qp1Server.app.close());
    puller(adminUrl, qp1, qp1Skew).start();
    const qp2Puller = puller(qp1Server.url, qp2, qp2Skew);
    qp2Puller.start();
    await untilInstalled(qp2, () => qp2.listing !== null, 10_000);
    const elapsed = Date.now() - started;
    for (const [replica, skew] of [
      [qp1, qp1Skew],
      [qp2, qp2Skew],
    ] as const) {
      const age = Date.now() + skew - Date.parse(replica.listing!.publishedAt);
      assert.ok(
        age >= AGE_MS && age <= AGE_MS + elapsed + 1000,
        `age ${age} ms on a clock ${skew / HOUR} h ahead`,
      );
    }
    const view = qp2Puller.view();
    assert.equal(view.lagSeconds, 0);
    assert.equal(view.lastSyncedGeneration, 7);
  });
});
