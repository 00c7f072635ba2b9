/**
 * Issue #22 item 11 through the real server: request bodies sent with `Content-Encoding: gzip`,
 * `deflate` or `br` are stored as what they decode to; the body limit applies to the decoded
 * bytes, so a gzip bomb is refused 413 after at most the limit is inflated; any other coding
 * is refused 415, corrupt data 400, and nothing of a refused body is stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { ADMIN_AUTH, ADMIN_PASSWORD } from './helpers.js';
import { testServer, type TestServer } from '../support/test-server.js';

const LIMIT = 1024 * 1024;

describe('Content-Encoding of request bodies', () => {
  let server: TestServer;

  before(async () => {
    server = await testServer({ global: [`push.max-request-bytes=${LIMIT}`], collections: ['docs'] });
  });

  after(async () => {
    await server.dispose();
  });

  const documents = (key: string) =>
    `${server.url}/push-api/v2/collections/docs/documents?key=${encodeURIComponent(key)}`;
  const put = (key: string, body: Buffer, encoding: string, type = 'text/plain') =>
    fetch(documents(key), {
      method: 'PUT',
      headers: { authorization: ADMIN_AUTH, 'content-type': type, 'content-encoding': encoding },
      body,
    });
  const stored = async (key: string): Promise<string | null> => {
    const answer = (await (
      await fetch(documents(key), { headers: { authorization: ADMIN_AUTH } })
    ).json()) as {
      pushContent: { content: string } | null;
    };
    return answer.pushContent === null
      ? null
      : Buffer.from(answer.pushContent.content, 'base64').toString('utf8');
  };

  it('stores gzip, deflate and br bodies as what they decode to', async () => {
    const text = 'Lanterns and bookshops. '.repeat(200);
    const cases: [string, Buffer][] = [
      ['gzip', gzipSync(text)],
      ['x-gzip', gzipSync(text)],
      ['deflate', deflateSync(text)],
      ['br', brotliCompressSync(text)],
      ['GZIP', gzipSync(text)],
      ['identity', Buffer.from(text)],
    ];
    for (const [encoding, body] of cases) {
      const key = `https://enc.example/${encoding}`;
      const answer = await put(key, body, encoding);
      assert.equal(answer.status, 200, `${encoding}: ${await answer.text()}`);
      assert.equal(await stored(key), text, encoding);
    }
  });

  it('refuses a gzip bomb with 413 BODY_TOO_LARGE after inflating at most the limit, and keeps answering', async () => {
    // 256 MiB of zeros: about 256 KB compressed, 256 times the decoded limit.
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024), { level: 9 });
    assert.ok(bomb.length < LIMIT, 'the compressed body is within the limit');
    const rssBefore = process.memoryUsage().rss;
    const answer = await put('https://enc.example/bomb', bomb, 'gzip');
    const body = (await answer.json()) as { error: string; message: string };
    assert.equal(answer.status, 413, JSON.stringify(body));
    assert.equal(body.error, 'BODY_TOO_LARGE');
    assert.match(body.message, /decodes .* to more than 1048576 bytes/);
    const grown = process.memoryUsage().rss - rssBefore;
    assert.ok(grown < 64 * 1024 * 1024, `the server's memory grew ${grown} bytes`);
    assert.equal(await stored('https://enc.example/bomb'), null, 'nothing of it is stored');
    const next = await put('https://enc.example/after-bomb', gzipSync('still here'), 'gzip');
    assert.equal(next.status, 200);
  });

  it('refuses unknown or stacked codings with 415 and corrupt data with 400, storing nothing', async () => {
    for (const encoding of ['compress', 'zstd', 'gzip, gzip', 'bogus']) {
      const key = `https://enc.example/refused-${encoding.replace(/\W/g, '')}`;
      const answer = await put(key, gzipSync('text'), encoding);
      const body = (await answer.json()) as { error: string; message: string };
      assert.equal(answer.status, 415, `${encoding}: ${JSON.stringify(body)}`);
      assert.equal(body.error, 'CONTENT_ENCODING_UNSUPPORTED');
      assert.match(body.message, /gzip, deflate or br/);
      assert.equal(await stored(key), null, encoding);
    }
    const corrupt = await put('https://enc.example/corrupt', Buffer.from('this is not gzip at all'), 'gzip');
    const body = (await corrupt.json()) as { error: string; message: string };
    assert.equal(corrupt.status, 400, JSON.stringify(body));
    assert.equal(body.error, 'BODY_INVALID');
    assert.match(body.message, /not valid gzip data/);
    assert.equal(await stored('https://enc.example/corrupt'), null);
  });

  it('decodes the small bodies of other routes too (a gzip login form), within their own limit', async () => {
    const form = new URLSearchParams({ username: 'admin', password: ADMIN_PASSWORD }).toString();
    const login = await fetch(`${server.url}/admin-api/account/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
      body: gzipSync(form),
    });
    assert.equal(login.status, 200, await login.text());
    const bomb = await fetch(`${server.url}/admin-api/account/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.alloc(16 * 1024 * 1024, 'a')),
    });
    assert.equal(bomb.status, 413);
  });
  it('reads no Content-Encoding on requests without a body (a GET names no body coding to refuse)', async () => {
    const search = await fetch(`${server.url}/s/search.json?collection=docs&query=x`, {
      headers: { 'content-encoding': 'zstd' },
    });
    assert.equal(search.status, 200, await search.text());
    // A method with a body still has its coding checked, even on a route that takes none yet.
    const refused = await fetch(`${server.url}/push-api/v2/collections/docs/commit`, {
      method: 'POST',
      headers: { authorization: ADMIN_AUTH, 'content-encoding': 'zstd' },
    });
    assert.equal(refused.status, 415, await refused.text());
  });
});
