import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SearchError } from '../../src/errors.js';
import { SearchIndex } from '../../src/index/search-index.js';
import { FsDirectory } from '../../src/index/store/fs-directory.js';
import type { Query } from '../../src/query/query-tree.js';
import { parseByteRange } from '../../src/replication/byte-range.js';
import { ReplicaIndex } from '../../src/replication/replica-index.js';
import { ReplicationPuller, type PullerEvent } from '../../src/replication/replication-puller.js';
import {
  LiveIndexSource,
  ReplicaSource,
  ReplicationMaster,
  type ReplicationSource,
} from '../../src/replication/replication-master.js';
import { signSyncRequest, verifySyncRequest } from '../../src/replication/sync-signature.js';
import { waitFor } from '../support/wait.js';
import { answer, removeTempFolders, serveMaster, tempFolder, untilInstalled } from './helpers.js';

after(removeTempFolders);

const SECRET = 'correct horse battery staple';
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa', 'lambda', 'sigma'];

function doc(key: string, n: number) {
  const body = Array.from({ length: 8 + (n % 13) }, (_, i) => WORDS[(n * 7 + i * i) % WORDS.length]).join(
    ' ',
  );
  return { key, fields: { body, t: WORDS[n % WORDS.length]! }, stored: { body } };
}

const QUERIES: Query[] = [
  { kind: 'term', term: 'alpha' },
  { kind: 'term', term: 'sigma' },
  {
    kind: 'bool',
    must: [
      { kind: 'term', term: 'beta' },
      { kind: 'term', term: 'gamma' },
    ],
  },
  { kind: 'phrase', terms: ['delta', 'epsilon'] },
  { kind: 'term', field: 't', term: 'kappa' },
];

function verify(
  secret: string | undefined,
  headers: Record<string, string>,
  path = '/x?y=1',
  body?: Uint8Array,
  now?: number,
) {
  verifySyncRequest(secret, { method: 'GET', path, headers, ...(body ? { body } : {}) }, now);
}

function codeOf(action: () => void): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return (error as SearchError).code;
  }
}

describe('sync signature', () => {
  it('accepts a request signed with the shared secret and refuses every other', () => {
    const now = Date.now();
    const headers = signSyncRequest(SECRET, 'GET', '/x?y=1', undefined, now);
    assert.equal(
      codeOf(() => verify(SECRET, headers)),
      undefined,
    );
    assert.equal(
      codeOf(() => verify('another secret', headers)),
      'SYNC_SIGNATURE_INVALID',
    );
    assert.equal(
      codeOf(() => verify(SECRET, headers, '/x?y=2')),
      'SYNC_SIGNATURE_INVALID',
    );
    assert.equal(
      codeOf(() => verify(SECRET, {})),
      'SYNC_SIGNATURE_MISSING',
    );
    assert.equal(
      codeOf(() => verify(undefined, headers)),
      'SYNC_NOT_CONFIGURED',
    );
    assert.equal(
      codeOf(() => verify(SECRET, headers, '/x?y=1', undefined, now + 6 * 60_000)),
      'SYNC_SIGNATURE_STALE',
    );
    const body = new TextEncoder().encode('{"batch":"a","lines":[]}');
    const signed = signSyncRequest(SECRET, 'GET', '/x?y=1', body, now);
    assert.equal(
      codeOf(() => verify(SECRET, signed, '/x?y=1', body)),
      undefined,
    );
    assert.equal(
      codeOf(() => verify(SECRET, signed, '/x?y=1', new TextEncoder().encode('{"batch":"b","lines":[]}'))),
      'SYNC_SIGNATURE_INVALID',
    );
  });
});

describe('parseByteRange', () => {
  it('resolves the ranges a resuming download sends', () => {
    assert.deepEqual(parseByteRange('bytes=10-', 100), { start: 10, end: 99 });
    assert.deepEqual(parseByteRange('bytes=10-19', 100), { start: 10, end: 19 });
    assert.deepEqual(parseByteRange('bytes=-5', 100), { start: 95, end: 99 });
    assert.equal(parseByteRange('bytes=100-', 100), null);
    assert.equal(parseByteRange(undefined, 100), undefined);
    assert.equal(parseByteRange('bytes=1-2,5-6', 100), undefined);
  });
});

interface Chain {
  admin: SearchIndex;
  adminFolder: string;
  adminMaster: ReplicationMaster;
  qp1: ReplicaIndex;
  qp2: ReplicaIndex;
  puller1: ReplicationPuller;
  puller2: ReplicationPuller;
  /** What puller1 told its onEvent (the server writes these to push.log). */
  events1: PullerEvent[];
  adminServer: Awaited<ReturnType<typeof serveMaster>>;
  qp1Server: Awaited<ReturnType<typeof serveMaster>>;
  close(): Promise<void>;
}

async function chain(options: { qp1Secret?: string } = {}): Promise<Chain> {
  const adminFolder = tempFolder();
  const admin = await SearchIndex.open({
    directory: new FsDirectory(adminFolder),
    mergeThreads: 0,
    autoMerge: false,
  });
  const holder = { admin };
  const adminMaster = new ReplicationMaster(
    new LiveIndexSource(adminFolder, () => Promise.resolve(holder.admin.acquireSearcher())),
  );
  const adminServer = await serveMaster({
    secret: () => SECRET,
    masterFor: () => Promise.resolve(adminMaster),
    receiveClicks: () => Promise.resolve({ duplicate: false, accepted: 0, dropped: 0 }),
  });
  const qp1 = ReplicaIndex.open(tempFolder());
  const qp1Master = new ReplicationMaster(new ReplicaSource(qp1));
  const qp1Server = await serveMaster({
    secret: () => SECRET,
    masterFor: () => Promise.resolve(qp1Master),
    receiveClicks: () => Promise.resolve({ duplicate: false, accepted: 0, dropped: 0 }),
  });
  const qp2 = ReplicaIndex.open(tempFolder());
  const events1: PullerEvent[] = [];
  const puller1 = new ReplicationPuller({
    collection: 'c',
    masterUrl: adminServer.url,
    secret: () => options.qp1Secret ?? SECRET,
    replica: qp1,
    onEvent: (event) => events1.push(event),
    longPollMs: 2000,
    retryMaxMs: 500,
  });
  const puller2 = new ReplicationPuller({
    collection: 'c',
    masterUrl: qp1Server.url,
    secret: () => SECRET,
    replica: qp2,
    longPollMs: 2000,
    retryMaxMs: 500,
  });
  return {
    get admin() {
      return holder.admin;
    },
    set admin(index: SearchIndex) {
      holder.admin = index;
    },
    adminFolder,
    adminMaster,
    qp1,
    qp2,
    puller1,
    puller2,
    events1,
    adminServer,
    qp1Server,
    async close() {
      await puller1.close();
      await puller2.close();
      await adminServer.app.close();
      await qp1Server.app.close();
      adminMaster.close();
      qp1Master.close();
      await qp1.close();
      await qp2.close();
      await holder.admin.close();
    },
  };
}

function adminListingId(c: Chain): Promise<string> {
  return c.adminMaster.listing().then((listing) => listing.id);
}

async function converge(c: Chain): Promise<string> {
  const id = await adminListingId(c);
  const describe = () => JSON.stringify({ qp1: c.puller1.view(), qp2: c.puller2.view() });
  await untilInstalled(c.qp1, () => c.qp1.listing?.id === id, 30_000, describe);
  await untilInstalled(c.qp2, () => c.qp2.listing?.id === id, 30_000, describe);
  return id;
}

function assertSameAnswers(c: Chain): void {
  const adminSearcher = c.admin.acquireSearcher();
  const one = c.qp1.acquireSearcher();
  const two = c.qp2.acquireSearcher();
  try {
    assert.equal(one.manifestNumber, adminSearcher.manifestNumber);
    assert.equal(one.documentCount, adminSearcher.documentCount);
    assert.equal(two.documentCount, adminSearcher.documentCount);
    for (const query of QUERIES) {
      const expected = answer(adminSearcher, query);
      assert.deepEqual(answer(one, query), expected, JSON.stringify(query));
      assert.deepEqual(answer(two, query), expected, JSON.stringify(query));
    }
  } finally {
    adminSearcher.release();
    one.release();
    two.release();
  }
}

/** Every file under the replica's generations/ and killed/ folders. */
function installedFiles(replica: ReplicaIndex): string[] {
  const files: string[] = [];
  for (const name of readdirSync(join(replica.folder, 'generations')))
    for (const file of readdirSync(join(replica.folder, 'generations', name))) files.push(`${name}/${file}`);
  for (const file of readdirSync(join(replica.folder, 'killed'))) files.push(`killed/${file}`);
  return files.sort();
}

describe('replication admin → QP1 → QP2', () => {
  it('copies commits, deletes, overwrites and merges down the chain; both answer as the admin', async () => {
    const c = await chain();
    try {
      c.puller1.start();
      c.puller2.start();
      for (let round = 0; round < 4; round++) {
        for (let i = 0; i < 300; i++)
          c.admin.put(doc(`http://x/${(round * 200 + i) % 700}`, round * 1000 + i));
        for (let i = 0; i < 20; i++) c.admin.delete(`http://x/${(round * 37 + i * 11) % 700}`);
        await c.admin.commit();
        await converge(c);
        assertSameAnswers(c);
      }
      const before = c.puller1.view().bytesPulled;
      await c.admin.forceMerge();
      await converge(c);
      assertSameAnswers(c);
      assert.ok(c.puller1.view().bytesPulled > before, 'the merged generation was pulled');
      assert.equal(c.puller1.view().state, 'IN_SYNC');
      assert.equal(c.puller2.view().lagGenerations, 0);
      // Files of replaced states are gone once no searcher holds them.
      const listing = c.qp2.listing!;
      assert.equal(installedFiles(c.qp2).length, listing.files.length);
    } finally {
      await c.close();
    }
  });

  it('reports every byte and file of a first sync in its install event (downloads run at once)', async () => {
    const c = await chain();
    try {
      for (let i = 0; i < 1500; i++) c.admin.put(doc(`http://b/${i}`, i));
      await c.admin.commit();
      for (let i = 0; i < 1500; i++) c.admin.put(doc(`http://b/${1500 + i}`, i));
      await c.admin.commit();
      const listing = await c.adminMaster.listing();
      assert.ok(listing.files.length > 4, 'more files than downloads at once');
      c.puller1.start();
      await untilInstalled(
        c.qp1,
        () => c.qp1.listing?.id === listing.id,
        30_000,
        () => JSON.stringify(c.puller1.view()),
      );
      // The event follows the install by a few ticks.
      const deadline = Date.now() + 5000;
      while (!c.events1.some((e) => e.type === 'installed') && Date.now() < deadline)
        await new Promise((resolve) => setImmediate(resolve));
      // Files of identical content travel once.
      const contents = new Map(listing.files.map((f) => [f.sha256, f.size]));
      const total = [...contents.values()].reduce((n, size) => n + size, 0);
      const installed = c.events1.filter((e) => e.type === 'installed');
      assert.equal(installed.length, 1);
      assert.equal(installed[0]!.bytes, total);
      assert.equal(installed[0]!.files, listing.files.length);
      assert.equal(c.puller1.view().bytesPulled, total);
      for (const file of listing.files)
        assert.deepEqual(
          readFileSync(c.qp1.pathOf(listing, file)),
          readFileSync(join(c.adminFolder, file.name)),
          file.name,
        );
    } finally {
      await c.close();
    }
  });

  it('resumes a download from its staged part and discards a staged part that fails its checksum', async () => {
    const c = await chain();
    try {
      for (let i = 0; i < 2000; i++) c.admin.put(doc(`http://r/${i}`, i));
      await c.admin.commit();
      const listing = await c.adminMaster.listing();
      const biggest = [...listing.files].sort((a, b) => b.size - a.size)[0]!;
      const whole = readFileSync(join(c.adminFolder, biggest.name));
      const half = Math.floor(whole.length / 2);
      // A download killed half-way: its first half staged under the checksum.
      writeFileSync(join(c.qp1.stagingFolder, biggest.sha256), whole.subarray(0, half));
      // Another one, whose staged bytes were damaged.
      const second = [...listing.files].sort((a, b) => b.size - a.size)[1]!;
      const damaged = Buffer.from(readFileSync(join(c.adminFolder, second.name)).subarray(0, 64));
      damaged[3] ^= 0xff;
      writeFileSync(join(c.qp1.stagingFolder, second.sha256), damaged);
      c.puller1.start();
      await untilInstalled(
        c.qp1,
        () => c.qp1.listing?.id === listing.id,
        30_000,
        () => JSON.stringify(c.puller1.view()),
      );
      const ranged = c.adminServer.requests.filter((r) => r.range !== undefined);
      assert.ok(
        ranged.some((r) => r.url.includes(`/files/${biggest.name}?`) && r.range === `bytes=${half}-`),
        JSON.stringify(ranged),
      );
      assert.equal(c.puller1.view().lastError?.code, 'SYNC_CHECKSUM_MISMATCH');
      const total = listing.files.reduce((n, f) => n + f.size, 0);
      // The damaged part was fetched twice (resumed, refused, then whole); the good half never.
      assert.equal(c.puller1.view().bytesPulled, total - half + (second.size - 64));
      const searcher = c.qp1.acquireSearcher();
      assert.equal(searcher.documentCount, 2000);
      searcher.release();
      assert.deepEqual(readdirSync(c.qp1.stagingFolder), []);
    } finally {
      await c.close();
    }
  });

  it('refuses a query processor with another server_secret and says so in its state', async () => {
    const c = await chain({ qp1Secret: 'not the secret' });
    try {
      c.admin.put(doc('http://s/1', 1));
      await c.admin.commit();
      c.puller1.start();
      await waitFor('the refusal', () => c.puller1.view().lastError !== null);
      const view = c.puller1.view();
      assert.equal(view.state, 'ERROR');
      assert.equal(view.lastError?.code, 'SYNC_SIGNATURE_INVALID');
      assert.match(view.lastError!.message, /server_secret/);
      assert.equal(c.qp1.listing, null, 'nothing installed');
    } finally {
      await c.close();
    }
  });

  it('follows the admin when a restore takes generation numbers backwards', async () => {
    const c = await chain();
    try {
      c.puller1.start();
      c.puller2.start();
      for (let i = 0; i < 200; i++) c.admin.put(doc(`http://b/${i}`, i));
      await c.admin.commit();
      const snapshotFolder = tempFolder();
      await c.admin.snapshot(new FsDirectory(snapshotFolder));
      for (let i = 0; i < 200; i++) c.admin.put(doc(`http://b/${i + 200}`, i + 200));
      await c.admin.commit();
      await converge(c);
      // Restore: the old manifest and generation numbers come back, then other documents
      // are committed under numbers the query processors have seen with other content.
      await c.admin.close();
      await SearchIndex.restore(new FsDirectory(snapshotFolder), new FsDirectory(c.adminFolder));
      const reopened = await SearchIndex.open({
        directory: new FsDirectory(c.adminFolder),
        mergeThreads: 0,
        autoMerge: false,
      });
      c.admin = reopened;
      for (let i = 0; i < 50; i++) reopened.put(doc(`http://after/${i}`, 5000 + i));
      await reopened.commit();
      await converge(c);
      assertSameAnswers(c);
      const searcher = c.qp2.acquireSearcher();
      assert.equal(searcher.documentCount, 250);
      assert.equal(searcher.getDocument('http://b/300'), null);
      searcher.release();
    } finally {
      await c.close();
    }
  });
});

describe('ReplicaIndex', () => {
  it('reopens the installed state after a restart and removes files no state needs', async () => {
    const c = await chain();
    let reopened: ReplicaIndex | undefined;
    try {
      for (let i = 0; i < 100; i++) c.admin.put(doc(`http://o/${i}`, i));
      await c.admin.commit();
      c.puller1.start();
      const id = await adminListingId(c);
      await untilInstalled(c.qp1, () => c.qp1.listing?.id === id);
      await c.puller1.stop();
      // A crash after a download was moved into place but before its state was published.
      const stray = join(c.qp1.folder, 'generations', 'g99-0000000000000000');
      await import('node:fs').then((fs) => fs.mkdirSync(stray, { recursive: true }));
      writeFileSync(join(stray, 'g99.doc'), 'partial');
      writeFileSync(join(c.qp1.folder, 'killed', '0123456789abcdef-g1_1.del'), 'x');
      await c.qp1.close();
      reopened = ReplicaIndex.open(c.qp1.folder);
      assert.equal(reopened.listing?.id, id);
      assert.ok(!existsSync(stray));
      assert.ok(!existsSync(join(c.qp1.folder, 'killed', '0123456789abcdef-g1_1.del')));
      const searcher = reopened.acquireSearcher();
      assert.equal(searcher.documentCount, 100);
      searcher.release();
      assert.ok(statSync(join(c.qp1.folder, 'state.json')).size > 0);
    } finally {
      await reopened?.close();
      await c.close();
    }
  });

  it('a master long poll answers as soon as a new state is published', async () => {
    const c = await chain();
    try {
      c.admin.put(doc('http://p/1', 1));
      await c.admin.commit();
      const first = await c.adminMaster.listing();
      const waiting = c.adminMaster.listing({ since: first.id, waitMs: 20_000 });
      c.admin.put(doc('http://p/2', 2));
      const started = Date.now();
      await c.admin.commit();
      const next = await waiting;
      assert.notEqual(next.id, first.id);
      assert.ok(Date.now() - started < 10_000);
      const source: ReplicationSource = new ReplicaSource(c.qp2);
      await assert.rejects(source.pin(), (e: SearchError) => e.code === 'SYNC_NOTHING_TO_SERVE');
    } finally {
      await c.close();
    }
  });
});
