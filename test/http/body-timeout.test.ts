/**
 * A client that stops sending in the middle of a document body (slow loris) is answered 408
 * once no byte arrived for `server.body-idle-timeout-seconds`; its body-budget reservation and
 * its connection are released, and nothing of its document is stored.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH } from './helpers.js';
import { waitFor } from '../support/wait.js';
import { testServer, type TestServer } from '../support/test-server.js';

describe('request body timeouts', () => {
  let server: TestServer;

  before(async () => {
    // No minimum rate here: these tests are about pauses (the minimum rate has slow-uploads.test.ts).
    server = await testServer({
      global: [
        'server.body-idle-timeout-seconds=1',
        'server.body-min-bytes-per-second=0',
        'server.request-timeout-seconds=5',
      ],
      collections: ['docs'],
    });
  });

  after(async () => {
    await server.dispose();
  });

  /** Sends raw bytes, then waits for the answer and the server closing the connection. */
  function stall(text: string, waitMs: number): Promise<{ answer: string; closedByServer: boolean }> {
    return new Promise((resolve) => {
      const socket = connect(server.port, '127.0.0.1');
      let answer = '';
      const giveUp = setTimeout(() => {
        socket.destroy();
        resolve({ answer, closedByServer: false });
      }, waitMs);
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      socket.on('error', () => {});
      socket.on('end', () => {
        clearTimeout(giveUp);
        socket.destroy();
        resolve({ answer, closedByServer: true });
      });
      socket.write(text);
    });
  }

  it('answers 408 BODY_TIMEOUT to a body that stops, closes the connection and releases its reservation', async () => {
    const started = Date.now();
    const stalled = stall(
      'PUT /push-api/v1/collections/docs/documents?key=https%3A%2F%2Fslow.example%2Fa HTTP/1.1\r\nHost: x\r\n' +
        `Authorization: ${ADMIN_AUTH}\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n${'h'.repeat(500)}`,
      8000,
    );
    // The declared length is reserved while the body is stalled (before the idle timeout ends it).
    await waitFor('the stalled body to hold its reservation', () => server.bodyBudget.inUse >= 1000);
    const outcome = await stalled;
    assert.match(outcome.answer, /^HTTP\/1\.1 408 /);
    assert.match(outcome.answer, /"error":"BODY_TIMEOUT"/);
    assert.match(outcome.answer, /server\.body-idle-timeout-seconds/);
    assert.equal(outcome.closedByServer, true, 'the server closed the connection');
    assert.ok(Date.now() - started < 6000, 'answered after about the idle timeout');
    assert.equal(server.bodyBudget.inUse, 0);
    const get = await fetch(
      `${server.url}/push-api/v1/collections/docs/documents?key=${encodeURIComponent('https://slow.example/a')}`,
      {
        headers: { authorization: ADMIN_AUTH },
      },
    );
    assert.equal(get.status, 200);
    assert.equal(
      ((await get.json()) as { pushContent: unknown }).pushContent,
      null,
      'nothing of the stalled document is stored',
    );
  });

  it('fails a chunked body that stops inside a chunk the same way', async () => {
    const outcome = await stall(
      'PUT /push-api/v1/collections/docs/documents?key=https%3A%2F%2Fslow.example%2Fb HTTP/1.1\r\nHost: x\r\n' +
        `Authorization: ${ADMIN_AUTH}\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n100\r\nhalf`,
      8000,
    );
    assert.match(outcome.answer, /^HTTP\/1\.1 408 /);
    assert.equal(outcome.closedByServer, true);
    assert.equal(server.bodyBudget.inUse, 0);
  });

  it('accepts a slow body whose bytes keep coming', async () => {
    const body = 'slow but steady';
    const socket = connect(server.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.write(
      'PUT /push-api/v1/collections/docs/documents?key=https%3A%2F%2Fslow.example%2Fc HTTP/1.1\r\nHost: x\r\n' +
        `Authorization: ${ADMIN_AUTH}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    // 15 bytes, one every 150 ms: 2.2 s in all, longer than the idle timeout, never idle that long.
    // The pauses are the behaviour under test (a slow sender), not a wait for something.
    for (const char of body) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      socket.write(char);
    }
    await new Promise((resolve) => socket.on('close', resolve));
    assert.match(answer, /^HTTP\/1\.1 200 /);
  });

  it('bounds the time to send a whole request (headers included)', () => {
    assert.equal(server.app.server.requestTimeout, 5000);
  });
});
