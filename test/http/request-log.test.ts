/**
 * The server log: one line per request at info (not Fastify's two), in the same JSON format
 * as push.log (level as a word, ISO time), and silent at LOG_LEVEL=warn.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { LOG_LINE_FORMAT } from '../../src/collection/push-log.js';
import { putDocument, testApp } from './helpers.js';

function capture(): { stream: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n'))
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { stream, lines };
}

describe('request log', () => {
  it('one info line per request (method, url, status, ms, request id), errors included; the format of push.log', async () => {
    const { stream, lines } = capture();
    const t = await testApp(['docs'], { logger: { ...LOG_LINE_FORMAT, level: 'info', stream } });
    try {
      lines.length = 0;
      assert.equal((await putDocument(t.app, 'v1', 'docs', 'local:a', 'text')).statusCode, 200);
      assert.equal((await putDocument(t.app, 'v1', 'docs', 'no-scheme', 'text')).statusCode, 400);
      assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
      assert.equal((await t.app.inject({ method: 'GET', url: '/nothing' })).statusCode, 404);
      assert.deepEqual(
        lines.map((l) => [l.level, l.msg, l.method, l.status]),
        [
          ['info', 'request', 'PUT', 200],
          ['info', 'request', 'PUT', 400],
          ['info', 'request', 'GET', 200],
          ['info', 'request', 'GET', 404],
        ],
      );
      for (const line of lines) {
        assert.match(String(line.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.equal(typeof line.reqId, 'string');
        assert.equal(typeof line.ms, 'number');
        assert.equal('pid' in line || 'hostname' in line, false);
      }
    } finally {
      await t.close();
    }
  });

  it('LOG_LEVEL=warn: no request lines', async () => {
    const { stream, lines } = capture();
    const t = await testApp(['docs'], { logger: { ...LOG_LINE_FORMAT, level: 'warn', stream } });
    try {
      lines.length = 0;
      await t.app.inject({ method: 'GET', url: '/health' });
      await t.app.inject({ method: 'GET', url: '/nothing' });
      assert.deepEqual(lines, []);
    } finally {
      await t.close();
    }
  });
});
