import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { ADMIN_AUTH, isAbsent, keyQuery, TEST_SECURITY, tempHome, writeGlobalCfg } from './helpers.js';
import { waitFor } from '../support/wait.js';
import { errorOf } from '../support/response-body.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The answer to a node:http request, once its body has arrived. */
function answerOf(response: http.IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () =>
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        body: Buffer.concat(chunks).toString(),
      }),
    );
    response.on('error', reject);
  });
}

/** One request with node:http as the test admin; header names are sent exactly as given. */
function send(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    agent?: http.Agent;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: { authorization: ADMIN_AUTH, ...options.headers },
        agent: options.agent ?? false,
      },
      (response) => void answerOf(response).then(resolve, reject),
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** The admin's Authorization header added after the request line of a raw request. */
function withAuth(text: string | Buffer): Buffer {
  const bytes = Buffer.from(text);
  const end = bytes.indexOf('\r\n');
  return Buffer.concat([
    bytes.subarray(0, end + 2),
    Buffer.from(`Authorization: ${ADMIN_AUTH}\r\n`),
    bytes.subarray(end + 2),
  ]);
}

/** Writes a raw HTTP/1.1 request (as the test admin) on a socket and reads until the server closes or the reply is complete. */
function raw(port: number, text: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(withAuth(text)));
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString();
      const end = data.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(data);
      if (end !== -1 && length !== null && data.length >= end + 4 + Number(length[1])) socket.end();
    });
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

async function withServer(
  run: (server: RunningServer, home: string) => Promise<void>,
  options: { global?: string[]; bodyBudgetBytes?: number } = {},
): Promise<void> {
  const { home, cleanup } = tempHome();
  if (options.global !== undefined) writeGlobalCfg(home, options.global);
  const server = await startServer({
    home,
    port: 0,
    security: TEST_SECURITY,
    ...(options.bodyBudgetBytes !== undefined ? { bodyBudgetBytes: options.bodyBudgetBytes } : {}),
  });
  server.manager.create('c', 'push');
  try {
    await run(server, home);
  } finally {
    await server.close();
    cleanup();
  }
}

describe('the push API over a real socket', () => {
  it('metadata header names keep the case the client sent; UTF-8 header bytes are decoded', async () => {
    await withServer(async (server) => {
      const path = `/push-api/v1/collections/c/documents${keyQuery('local:case')}`;
      const head = [
        `PUT ${path} HTTP/1.1`,
        'Host: x',
        'Content-Type: text/plain',
        'X-Service-Push-Metadata-CamelCase: one',
        'x-service-push-metadata-lowercase: two',
        'X-Funnelback-Push-Meta-Data-Compat: three',
        'X-Service-Push-Metadata-Author: Zoë 作者', // sent as UTF-8 bytes below
        'Content-Length: 7',
        'Connection: close',
      ].join('\r\n');
      const put = await raw(server.port, Buffer.from(`${head}\r\n\r\ncontent`, 'utf8'));
      assert.match(put, /^HTTP\/1\.1 200 /, put);
      const got = JSON.parse((await send(`${server.url}${path}`)).body) as {
        pushContent: { metadata: Record<string, string[]> };
      };
      assert.deepEqual(got.pushContent.metadata.CamelCase, ['one']);
      assert.deepEqual(got.pushContent.metadata.lowercase, ['two']);
      assert.deepEqual(got.pushContent.metadata.Compat, ['three']);
      assert.deepEqual(got.pushContent.metadata.Author, ['Zoë 作者']);
      assert.equal(got.pushContent.metadata.camelcase, undefined);
    });
  });

  it('"..", "%2E%2E" and "..%2F" as a collection or snapshot name are refused without touching the disk', async () => {
    await withServer(async (server, home) => {
      const before = readdirSync(home).sort();
      for (const name of ['..', '%2E%2E', '..%2F..%2Ftmp']) {
        const put = await raw(
          server.port,
          `PUT /push-api/v2/collections/${name}/documents?key=local:x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx`,
        );
        assert.match(put, /^HTTP\/1\.1 (400|404) /, put);
        const snap = await raw(
          server.port,
          `PUT /push-api/v2/collections/c/snapshot/${name} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
        assert.match(snap, /^HTTP\/1\.1 (400|404) /, snap);
        assert.match(snap, /"error":"(SNAPSHOT_NAME_INVALID|NOT_FOUND)"/);
      }
      assert.deepEqual(readdirSync(home).sort(), before);
      assert.deepEqual(readdirSync(join(home, 'data')), ['c']);
      assert.deepEqual(readdirSync(join(home, 'data', 'c')), []);
    });
  });

  it('a body over push.max-request-bytes answers 413 (declared or chunked) and the server stays up', async () => {
    await withServer(
      async (server) => {
        const url = `${server.url}/push-api/v1/collections/c/documents${keyQuery('local:big')}`;
        const declared = await send(url, {
          method: 'PUT',
          headers: { 'content-type': 'text/plain' },
          body: Buffer.alloc(200_000, 0x61),
        });
        assert.equal(declared.status, 413);
        assert.equal(errorOf(declared.body).error, 'BODY_TOO_LARGE');

        const chunked = await new Promise<Answer>((resolve, reject) => {
          const request = http.request(
            url,
            {
              method: 'PUT',
              headers: {
                'content-type': 'text/plain',
                'transfer-encoding': 'chunked',
                authorization: ADMIN_AUTH,
              },
              agent: false,
            },
            (response) => void answerOf(response).then(resolve, reject),
          );
          request.on('error', reject);
          for (let i = 0; i < 20; i++) request.write(Buffer.alloc(10_000, 0x62));
          request.end();
        });
        assert.equal(chunked.status, 413);
        assert.equal(errorOf(chunked.body).error, 'BODY_TOO_LARGE');

        assert.ok(isAbsent(await send(url)), 'nothing stored');
        const ok = await send(url, {
          method: 'PUT',
          headers: { 'content-type': 'text/plain' },
          body: 'small',
        });
        assert.equal(ok.status, 200);
      },
      { global: ['push.max-request-bytes=65536'] },
    );
  });

  it('a declared body over push.max-request-bytes is refused before it is sent: the 413 comes while the client still holds almost all of it', async () => {
    await withServer(
      async (server) => {
        const path = `/push-api/v1/collections/c/documents${keyQuery('local:huge')}`;
        // 1 GiB declared, 4 KiB sent, the rest never: a server that buffered or read the whole
        // body would never answer (the idle timeout is set far beyond the test's).
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
          let received = '';
          socket.on('data', (chunk: Buffer) => {
            received += chunk.toString('latin1');
            if (received.includes('\r\n\r\n') && received.includes('}')) {
              socket.destroy();
              resolve(received);
            }
          });
          socket.on('error', reject);
          socket.on('close', () => resolve(received));
          socket.setTimeout(20_000, () => {
            socket.destroy();
            reject(new Error(`no answer within 20 s, only: ${JSON.stringify(received)}`));
          });
          socket.write(
            [
              `PUT ${path} HTTP/1.1`,
              'Host: x',
              'Content-Type: text/plain',
              `Authorization: ${ADMIN_AUTH}`,
              `Content-Length: ${2 ** 30}`,
              '',
              '',
            ].join('\r\n'),
          );
          socket.write(Buffer.alloc(4096, 0x61));
        });
        assert.match(answer, /^HTTP\/1\.1 413 /);
        assert.match(answer, /"error":"BODY_TOO_LARGE"/);
        assert.ok(isAbsent(await send(server.url + path)), 'nothing stored');
      },
      { global: ['push.max-request-bytes=65536', 'server.body-idle-timeout-seconds=3600'] },
    );
  });

  it('document bodies wait in line when the body budget is used up, then all succeed', async () => {
    await withServer(
      async (server) => {
        const { bodyBudget } = server;
        const url = (key: string) => `${server.url}/push-api/v1/collections/c/documents${keyQuery(key)}`;
        // A: declares 1600 bytes, sends 100, holds the rest back.
        const requestA = http.request(url('local:a'), {
          method: 'PUT',
          headers: { 'content-type': 'text/plain', 'content-length': '1600', authorization: ADMIN_AUTH },
          agent: false,
        });
        const answerA = new Promise<Answer>((resolve, reject) => {
          requestA.on('response', (response) => void answerOf(response).then(resolve, reject));
          requestA.on('error', reject);
        });
        requestA.write(Buffer.alloc(100, 0x61));
        // One user holds at most half the budget: A's reservation is cut to that share (1024).
        await waitFor('A to reserve its body', () => bodyBudget.inUse === 1024);

        // B, the same user's 1600 bytes: the user is at its share, so B waits.
        const answerB = send(url('local:b'), {
          method: 'PUT',
          headers: { 'content-type': 'text/plain' },
          body: Buffer.alloc(1600, 0x62),
        });
        await waitFor('B to wait in line', () => bodyBudget.waiting === 1);
        assert.equal(bodyBudget.inUse, 1024);

        requestA.end(Buffer.alloc(1500, 0x61));
        assert.equal((await answerA).status, 200);
        assert.equal((await answerB).status, 200);
        await waitFor('all reservations released', () => bodyBudget.inUse === 0 && bodyBudget.waiting === 0);
      },
      { global: ['push.max-request-bytes=2048'], bodyBudgetBytes: 2048 },
    );
  });

  it('a client that disconnects mid-body releases its reservation and stores nothing', async () => {
    await withServer(async (server) => {
      const socket = net.connect(server.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        withAuth(
          `PUT /push-api/v1/collections/c/documents?key=local:cut HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nhalf`,
        ),
      );
      await waitFor('the reservation', () => server.bodyBudget.inUse === 1000);
      socket.destroy();
      await waitFor('the release', () => server.bodyBudget.inUse === 0);
      const got = await send(`${server.url}/push-api/v1/collections/c/documents${keyQuery('local:cut')}`);
      assert.ok(isAbsent(got), got.body);
    });
  });

  it('graceful shutdown: refuses new connections, finishes the request in flight, commits nothing', async () => {
    const { home, cleanup } = tempHome();
    try {
      const server = await startServer({ home, port: 0, security: TEST_SECURITY });
      server.manager.create('c', 'push');
      const url = `${server.url}/push-api/v1/collections/c/documents${keyQuery('local:in-flight')}`;
      const request = http.request(url, {
        method: 'PUT',
        headers: { 'content-type': 'text/plain', 'content-length': '10', authorization: ADMIN_AUTH },
        agent: false,
      });
      const answer = new Promise<number>((resolve, reject) => {
        request.on('response', (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        });
        request.on('error', reject);
      });
      request.write('12345');
      await waitFor('the request to be in flight', () => server.bodyBudget.inUse === 10);

      const closed = server.close();
      await waitFor('the listener to close', async () => {
        try {
          await send(`${server.url}/push-api/v1/collections/c/state`);
          return false;
        } catch (error) {
          return (error as NodeJS.ErrnoException).code === 'ECONNREFUSED';
        }
      });
      request.end('67890');
      assert.equal(await answer, 200);
      await closed;
      assert.equal(existsSync(join(home, 'data', 'c', 'live', 'journal')), true);

      const again = await startServer({ home, port: 0, security: TEST_SECURITY });
      try {
        const got = await send(
          `${again.url}/push-api/v1/collections/c/documents${keyQuery('local:in-flight')}`,
        );
        assert.equal(got.status, 200);
        const doc = JSON.parse(got.body) as { committed: boolean; pushContent: { content: string } };
        assert.equal(Buffer.from(doc.pushContent.content, 'base64').toString(), '1234567890');
        assert.equal(doc.committed, false, 'the shutdown committed nothing');
      } finally {
        await again.close();
      }
    } finally {
      cleanup();
    }
  });
});
