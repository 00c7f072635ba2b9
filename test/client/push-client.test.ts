import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PushApiError, PushClient, needsMultipart } from '../../src/client/index.js';
import { ADMIN_PASSWORD } from '../http/helpers.js';
import { testServer, type TestServer } from '../support/test-server.js';

const C = 'docs';

async function rejectsWith(promise: Promise<unknown>, code: string, status: number): Promise<PushApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PushApiError, `expected a PushApiError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.equal(error.status, status);
    return error;
  }
  assert.fail(`expected ${code}`);
}

describe('PushClient tokens', () => {
  it('close() logs out (no live login token left behind); an API token is sent as it is and survives close()', async () => {
    const server = await testServer({ collections: [C] });
    try {
      const admin = new PushClient({ url: server.url, user: 'admin', password: ADMIN_PASSWORD });
      await admin.putUser('pusher', {
        password: 'pusher-password',
        permissions: ['sec.continuous.rest'],
        collections: [C],
      });
      const pusher = new PushClient({ url: server.url, user: 'pusher', password: 'pusher-password' });
      await pusher.add(C, 'local:a', 'logged in');
      assert.equal((await admin.getUser('pusher')).activeTokens, 1);
      await pusher.close();
      assert.equal((await admin.getUser('pusher')).activeTokens, 0, 'close() revoked its login token');

      const { token } = await admin.createApiToken('pusher', { name: 'cms' });
      const program = new PushClient({ url: server.url, apiToken: token });
      await program.add(C, 'local:b', 'with an API token');
      await program.close();
      assert.equal((await program.add(C, 'local:c', 'still valid')).storedKeys.length, 1);
      assert.deepEqual(
        (await admin.listApiTokens('pusher')).map((t) => t.name),
        ['cms'],
      );
      await admin.revokeApiToken('pusher', 'cms');
      await rejectsWith(program.add(C, 'local:d', 'revoked'), 'UNAUTHENTICATED', 401);
      await program.close();
      await admin.close();
    } finally {
      await server.dispose();
    }
  });
});

describe('PushClient against a running server', () => {
  let server: TestServer;
  let client: PushClient;

  before(async () => {
    server = await testServer({ collections: [C] });
    client = new PushClient({ url: server.url, user: 'admin', password: ADMIN_PASSWORD });
  });
  after(async () => {
    await client.close();
    await server.dispose();
  });

  it('adds, reads, commits and finds a document; concurrent first calls share one login', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.add(C, `https://example.org/doc/${i}#frag`, `zebra number ${i}`, {
          metadata: { author: ['ann', 'bob'] },
        }),
      ),
    );
    assert.equal(client.logins, 1);
    assert.deepEqual(results[3].storedKeys, ['https://example.org/doc/3']);
    const document = await client.get(C, 'https://example.org/doc/3');
    assert.equal(document.content.toString('utf8'), 'zebra number 3');
    assert.equal(document.pushContent.contentType, 'text/plain; charset=utf-8');
    assert.deepEqual(document.pushContent.metadata.author, ['ann', 'bob']);
    assert.equal(document.committed, false);

    const committed = await client.commit(C, true);
    assert.equal(committed.changes, 10);
    const found = await client.search(C, 'zebra', { numRanks: 3 });
    assert.equal(found.response.resultPacket.resultsSummary.totalMatching, 10);
    assert.equal(found.response.resultPacket.results.length, 3);
    assert.equal((await client.get(C, 'https://example.org/doc/3')).committed, true);
  });

  it('sends metadata that headers would lose (case, Unicode, line breaks) through multipart', async () => {
    const metadata = { Author: ['Zoë Ångström'], author: ['lower'], Note: ['line one\nline two'] };
    assert.equal(needsMultipart(metadata), true);
    assert.equal(needsMultipart({ author: ['plain ascii'] }), false);
    assert.equal(needsMultipart({ author: ['x'.repeat(5000)] }), true);

    await client.add(C, 'https://example.org/meta', 'body', { metadata });
    const document = await client.get(C, 'https://example.org/meta');
    assert.deepEqual(document.pushContent.metadata.Author, ['Zoë Ångström']);
    assert.deepEqual(document.pushContent.metadata.author, ['lower']);
    assert.deepEqual(document.pushContent.metadata.Note, ['line one\nline two']);
    assert.equal(document.content.toString(), 'body');

    // Forced into headers, the line break cannot be sent: auto did choose multipart above.
    await assert.rejects(
      client.add(C, 'https://example.org/meta2', 'body', { metadata, transport: 'headers' }),
    );
    // Forced into multipart, simple metadata arrives the same.
    await client.add(C, 'https://example.org/meta3', Buffer.from('<p>hi</p>'), {
      contentType: 'text/html',
      metadata: { author: 'one' },
      transport: 'multipart',
    });
    const html = await client.get(C, 'https://example.org/meta3');
    assert.equal(html.pushContent.contentType, 'text/html');
    assert.deepEqual(html.pushContent.metadata.author, ['one']);
  });

  it("encodes strings with the content type's charset, UTF-8 where it cannot", async () => {
    await client.add(C, 'https://example.org/latin1', 'café', {
      contentType: 'text/plain; charset=ISO-8859-1',
    });
    const latin1 = await client.get(C, 'https://example.org/latin1');
    assert.deepEqual([...latin1.content], [0x63, 0x61, 0x66, 0xe9]);
    assert.equal(latin1.pushContent.contentType, 'text/plain; charset=ISO-8859-1');

    await client.add(C, 'https://example.org/cp', 'naïve €', {
      contentType: 'text/plain; charset=windows-1252',
    });
    const rewritten = await client.get(C, 'https://example.org/cp');
    assert.equal(rewritten.content.toString('utf8'), 'naïve €');
    assert.equal(rewritten.pushContent.contentType, 'text/plain; charset=utf-8');

    await client.add(C, 'https://example.org/html', '<title>Größe</title>', { contentType: 'text/html' });
    const html = await client.get(C, 'https://example.org/html');
    assert.equal(html.pushContent.contentType, 'text/html; charset=utf-8');
    assert.equal(html.content.toString('utf8'), '<title>Größe</title>');
  });

  it('throws typed errors with the server code, status and message', async () => {
    // The server answers 200 with pushContent null; the client reports it as not found.
    const missing = await rejectsWith(client.get(C, 'https://example.org/none'), 'DOCUMENT_NOT_FOUND', 404);
    assert.match(missing.message, /no document with key https:\/\/example\.org\/none/);
    await rejectsWith(client.state('nope'), 'COLLECTION_NOT_FOUND', 404);
    await rejectsWith(client.add(C, 'no scheme', 'x'), 'KEY_INVALID', 400);
    await rejectsWith(client.upgradeStatus(), 'UPGRADE_NOT_STARTED', 503);
    const wrong = new PushClient({ url: server.url, user: 'admin', password: 'not-the-password' });
    try {
      await rejectsWith(wrong.state(C), 'UNAUTHENTICATED', 401);
    } finally {
      await wrong.close();
    }
    const refused = new PushClient({
      url: 'http://127.0.0.1:1',
      user: 'a',
      password: 'b',
      retries: 1,
      retryDelayMs: 1,
    });
    await rejectsWith(refused.state(C), 'CONNECTION_FAILED', 0);
  });

  it('deletes, redirects, vacuums, processes click logs and reports state', async () => {
    await client.add(C, 'https://example.org/gone', 'x');
    assert.deepEqual((await client.delete(C, 'https://example.org/gone')).storedKeys, [
      'https://example.org/gone',
    ]);
    await client.redirect(C, 'https://example.org/old', 'https://example.org/doc/1');
    assert.equal((await client.get(C, 'https://example.org/old')).redirect, 'https://example.org/doc/1');
    await client.commit(C);
    const vacuum = await client.vacuum(C, 'MERGE', true);
    assert.equal(vacuum.state, 'DONE');
    assert.equal(vacuum.type, 'MERGE');
    const clicks = await client.processClickLogs(C);
    assert.equal(clicks.clicksProcessed, 0);
    const state = await client.state(C);
    assert.equal(state.state, 'RUNNING');
    assert.equal(state.generations, 1);
  });

  it('snapshots, stops, restores and deletes snapshots', async () => {
    await client.add(C, 'https://example.org/snap', 'kept in the snapshot');
    await client.commit(C);
    const snapshot = await client.createSnapshot(C, 'before');
    assert.equal(snapshot.name, 'before');
    await rejectsWith(client.createSnapshot(C, 'before'), 'SNAPSHOT_EXISTS', 409);
    await client.delete(C, 'https://example.org/snap');
    await client.commit(C);
    await rejectsWith(client.restoreSnapshot(C, 'before'), 'WRONG_STATE', 409);
    assert.equal((await client.stop(C)).state, 'STOPPED');
    await client.restoreSnapshot(C, 'before');
    assert.equal(
      (await client.get(C, 'https://example.org/snap')).content.toString(),
      'kept in the snapshot',
    );
    assert.deepEqual(
      (await client.listSnapshots(C)).map((s) => s.name),
      ['before'],
    );
    await client.deleteSnapshot(C, 'before');
    assert.deepEqual(await client.listSnapshots(C), []);
    await rejectsWith(client.deleteSnapshot(C, 'before'), 'SNAPSHOT_NOT_FOUND', 404);
  });

  it('logs in again after its tokens are revoked; a changed password needs a new client', async () => {
    const logins = client.logins;
    const admin = new PushClient({ url: server.url, user: 'admin', password: ADMIN_PASSWORD, auth: 'basic' });
    try {
      // Revoke every token of admin: the client's next call gets 401, logs in, repeats.
      const revoke = await fetch(`${server.url}/admin-api/v1/users/admin/tokens`, {
        method: 'DELETE',
        headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` },
      });
      assert.equal(revoke.status, 200);
      assert.equal((await client.state(C)).state, 'RUNNING');
      assert.equal(client.logins, logins + 1);

      // Basic auth: no login at all.
      assert.equal((await admin.state(C)).collection, C);
      assert.equal(admin.logins, 0);

      await admin.putUser('pusher', {
        password: 'first-password',
        permissions: ['sec.continuous.rest'],
        collections: [C],
      });
      const pusher = new PushClient({ url: server.url, user: 'pusher', password: 'first-password' });
      try {
        await pusher.add(C, 'https://example.org/by-pusher', 'x');
        await rejectsWith(pusher.listUsers(), 'FORBIDDEN', 403);
        await admin.putUser('pusher', {
          password: 'second-password',
          permissions: ['sec.continuous.rest'],
          collections: [C],
        });
        // Its token died with the password change; the new login with the old password fails.
        await rejectsWith(pusher.add(C, 'https://example.org/by-pusher', 'x'), 'UNAUTHENTICATED', 401);
      } finally {
        await pusher.close();
      }
    } finally {
      await admin.close();
    }
  });

  it('refuses writes while preparing for an upgrade, without waiting longer than allowed', async () => {
    const impatient = new PushClient({
      url: server.url,
      user: 'admin',
      password: ADMIN_PASSWORD,
      maxRetryAfterMs: 1000,
    });
    try {
      await client.prepareUpgrade();
      const refused = await rejectsWith(
        impatient.add(C, 'https://example.org/late', 'x'),
        'UPGRADE_PREPARING',
        503,
      );
      assert.ok((refused.retryAfterSeconds ?? 0) > 1);
      assert.ok(['IN_PROGRESS', 'PREPARED'].includes((await client.upgradeStatus()).state));
    } finally {
      await impatient.close();
    }
  });
});

describe('PushClient token expiry', () => {
  it('fetches a new token when the old one expired, and repeats the call once', async () => {
    // The server's clock of users and tokens, moved past the token's lifetime instead of waited out.
    let now = Date.now();
    const server = await testServer({ collections: [C], security: { tokenTtlMs: 400, clock: () => now } });
    const client = new PushClient({ url: server.url, user: 'admin', password: ADMIN_PASSWORD });
    try {
      await client.add(C, 'https://example.org/a', 'first');
      assert.equal(client.logins, 1);
      now += 600;
      await client.add(C, 'https://example.org/b', 'second');
      assert.equal(client.logins, 2);
      assert.equal((await client.get(C, 'https://example.org/b')).content.toString(), 'second');
    } finally {
      await client.close();
      await server.dispose();
    }
  });
});

describe('PushClient retries', () => {
  let fake: Server;
  let url: string;
  let answers: { status: number; headers?: Record<string, string> }[] = [];
  let requests = 0;

  before(async () => {
    fake = createServer((request, response) => {
      requests++;
      request.resume();
      const next = answers.shift() ?? { status: 200 };
      const body =
        next.status === 200
          ? JSON.stringify({ collection: C, state: 'RUNNING', changes: 0 })
          : JSON.stringify({ status: next.status, error: 'INDEX_CLOSED', message: 'closing' });
      response.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      response.end(body);
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => fake.close(() => resolve()));
  });

  it('retries idempotent calls on 503 with backoff, and nothing else without Retry-After', async () => {
    const retries: string[] = [];
    const client = new PushClient({
      url,
      user: 'u',
      password: 'p',
      auth: 'basic',
      retryDelayMs: 5,
      onRetry: (r) => retries.push(r.reason),
    });
    try {
      answers = [{ status: 503 }, { status: 503 }];
      requests = 0;
      assert.equal((await client.state(C)).state, 'RUNNING');
      assert.equal(requests, 3);
      assert.deepEqual(retries, ['503 INDEX_CLOSED', '503 INDEX_CLOSED']);

      answers = [{ status: 503 }];
      requests = 0;
      await rejectsWith(client.commit(C), 'INDEX_CLOSED', 503);
      assert.equal(requests, 1);

      // With Retry-After the server did nothing: even a commit is sent again.
      answers = [{ status: 503, headers: { 'retry-after': '0' } }];
      requests = 0;
      assert.equal((await client.commit(C)).changes, 0);
      assert.equal(requests, 2);

      answers = [{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }];
      requests = 0;
      await rejectsWith(client.state(C), 'INDEX_CLOSED', 503);
      assert.equal(requests, 4);
    } finally {
      await client.close();
    }
  });
});
