/**
 * Issue #22 item 2 through the server: metadata beyond the limits of metadata-limits.ts is
 * refused with its own 413 code, before the work it would cost (a metadata part of a million
 * names once held the event loop 8.7 s and took 1.2 GB), and nothing is stored.
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { METADATA_LIMITS } from '../../src/http/metadata-limits.js';
import { getDocument, multipartBody, route, keyQuery, testApp, type TestApp } from './helpers.js';

const BOUNDARY = 'metadata-limits-boundary';

function pushWithMetadataPart(app: TestApp, key: string, metadata: Buffer | string) {
  return app.app.inject({
    method: 'PUT',
    url: route('v2', 'docs', `/documents/content-and-metadata${keyQuery(key)}`),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: multipartBody(BOUNDARY, [
      {
        headers: { 'Content-Disposition': 'form-data; name="content"', 'Content-Type': 'text/plain' },
        body: 'hello',
      },
      {
        headers: { 'Content-Disposition': 'form-data; name="metadata"', 'Content-Type': 'application/json' },
        body: Buffer.from(metadata),
      },
    ]),
  });
}

function errorOf(body: string): { status: number; error: string; message: string } {
  return JSON.parse(body) as { status: number; error: string; message: string };
}

describe('metadata limits', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp(['docs']);
  });
  after(() => t.close());

  it('refuses a metadata part of a million names at once, without holding the event loop', async () => {
    const names: string[] = [];
    for (let i = 0; i < 1_000_000; i++) names.push(`"n${i}":"v"`);
    const huge = `{${names.join(',')}}`;
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const answer = await pushWithMetadataPart(t, 'local:huge', huge);
    delay.disable();
    assert.equal(answer.statusCode, 413, answer.body);
    assert.equal(errorOf(answer.body).error, 'METADATA_TOO_LARGE');
    assert.match(errorOf(answer.body).message, new RegExp(`at most ${METADATA_LIMITS.maxBytes}`));
    // A generous bound: before the limit this took seconds (JSON of 18 MB, a million fields).
    assert.ok(delay.max / 1e6 < 2000, `event loop held ${delay.max / 1e6} ms`);
    // Nothing stored: an absent key answers 200 with no push content (the original's contract).
    const stored = await getDocument(t.app, 'v2', 'docs', 'local:huge');
    assert.equal(stored.statusCode, 200);
    assert.equal((JSON.parse(stored.body) as { pushContent: unknown }).pushContent, null);
  });

  it('refuses too many names and too many values of one name, each with its code', async () => {
    const tooManyNames = Object.fromEntries(
      Array.from({ length: METADATA_LIMITS.maxNames + 1 }, (_, i) => [`n${i}`, 'v']),
    );
    let answer = await pushWithMetadataPart(t, 'local:names', JSON.stringify(tooManyNames));
    assert.equal(answer.statusCode, 413, answer.body);
    assert.equal(errorOf(answer.body).error, 'METADATA_TOO_MANY_NAMES');

    const tooManyValues = {
      tag: Array.from({ length: METADATA_LIMITS.maxValuesPerName + 1 }, (_, i) => `v${i}`),
    };
    answer = await pushWithMetadataPart(t, 'local:values', JSON.stringify(tooManyValues));
    assert.equal(answer.statusCode, 413, answer.body);
    assert.equal(errorOf(answer.body).error, 'METADATA_TOO_MANY_VALUES');
    assert.match(errorOf(answer.body).message, /"tag"/);

    // At the limits exactly, the push is accepted.
    const atLimit = Object.fromEntries(
      Array.from({ length: METADATA_LIMITS.maxNames }, (_, i) => [
        `n${i}`,
        i === 0 ? tooManyValues.tag.slice(1) : 'v',
      ]),
    );
    answer = await pushWithMetadataPart(t, 'local:at-limit', JSON.stringify(atLimit));
    assert.equal(answer.statusCode, 200, answer.body);
  });

  it('refuses a base64 metadata part too large before decoding it', async () => {
    const answer = await t.app.inject({
      method: 'PUT',
      url: route('v2', 'docs', `/documents/content-and-metadata${keyQuery('local:b64')}`),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: multipartBody(BOUNDARY, [
        { headers: { 'Content-Disposition': 'form-data; name="content"' }, body: 'hello' },
        {
          headers: {
            'Content-Disposition': 'form-data; name="metadata"',
            'Content-Type': 'application/json',
            'Content-Transfer-Encoding': 'base64',
          },
          body: Buffer.from(
            Buffer.from(`{"a":"${'x'.repeat(METADATA_LIMITS.maxBytes)}"}`).toString('base64'),
          ),
        },
      ]),
    });
    assert.equal(answer.statusCode, 413, answer.body);
    assert.equal(errorOf(answer.body).error, 'METADATA_TOO_LARGE');
  });

  it('applies the same limits to metadata headers', async () => {
    const headers: Record<string, string> = { 'content-type': 'text/plain' };
    for (let i = 0; i <= METADATA_LIMITS.maxNames; i++) headers[`X-Service-Push-Metadata-n${i}`] = 'v';
    const answer = await t.app.inject({
      method: 'PUT',
      url: route('v2', 'docs', `/documents${keyQuery('local:headers')}`),
      headers,
      payload: 'hello',
    });
    assert.equal(answer.statusCode, 413, answer.body);
    assert.equal(errorOf(answer.body).error, 'METADATA_TOO_MANY_NAMES');
  });
});
