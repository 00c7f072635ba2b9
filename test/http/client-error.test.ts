/** Requests that never reach a route (not valid HTTP) still get the service's error body. */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH } from './helpers.js';
import { testServer, type TestServer } from '../support/test-server.js';

describe('answers to requests that are not valid HTTP', () => {
  let server: TestServer;

  before(async () => {
    server = await testServer();
  });

  after(async () => {
    await server.dispose();
  });

  /** Sends raw bytes and collects everything until the server closes the connection. */
  function raw(
    text: string,
  ): Promise<{ status: number; body: { status: number; error: string; message: string } }> {
    return new Promise((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head, body] = answer.split('\r\n\r\n');
        assert.match(head!, /connection: close/i);
        resolve({
          status: Number(/^HTTP\/1\.1 (\d+)/.exec(head!)?.[1]),
          body: JSON.parse(body!) as { status: number; error: string; message: string },
        });
      });
      socket.end(text);
    });
  }

  it('a broken request line: 400 REQUEST_INVALID', async () => {
    const answer = await raw('THIS IS NOT HTTP\r\n\r\n');
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'REQUEST_INVALID');
    assert.equal(answer.body.status, 400);
    assert.match(answer.body.message, /not valid HTTP/);
  });

  it('a header line without a colon: 400 REQUEST_INVALID', async () => {
    const answer = await raw('GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n');
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'REQUEST_INVALID');
  });

  it('headers over 64 KiB: 431 HEADERS_TOO_LARGE, saying what to shorten', async () => {
    const answer = await raw(
      `GET /push-api/v1/collections/c/documents?key=${'a'.repeat(70 * 1024)} HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN_AUTH}\r\n\r\n`,
    );
    assert.equal(answer.status, 431);
    assert.equal(answer.body.error, 'HEADERS_TOO_LARGE');
    assert.match(answer.body.message, /2000 characters/);
  });

  it('keeps serving afterwards', async () => {
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });
});
