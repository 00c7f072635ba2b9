/**
 * Issue #22 item 4 through the real server: click logging (`GET /s/redirect`) cannot be
 * abused. One address is rate limited (429 CLICK_RATE_LIMITED with Retry-After) while other
 * addresses keep clicking; a click repeated by one address on one result for one query counts
 * once; the logged query is cut at 2000 characters; and the click log stops growing at
 * `search.clicks.max-log-bytes` (clicks are still redirected), resuming once processed.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clickLogFile } from '../../src/collection/evidence/click-log.js';
import { clickLines, pushAndCommit, searchJson } from '../search-http/helpers.js';
import { ADMIN_AUTH } from './helpers.js';
import { testServer, type TestServer } from '../support/test-server.js';

const PAGE = 'https://clicks.example/page';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET from a chosen loopback address (every 127.x address reaches the server on 127.0.0.1). */
function getFrom(server: TestServer, path: string, localAddress = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port: server.port, path, localAddress, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    request.on('error', reject);
  });
}

/** Starts a server with `global` lines, one committed page, and returns it with the page's click link. */
async function serverWithPage(global: string[]): Promise<{ server: TestServer; link: URL }> {
  const server = await testServer({ global: ['search.thread-count=0', ...global], collections: ['docs'] });
  await pushAndCommit(server.app, 'docs', [{ key: PAGE, body: 'A page about lanterns.' }]);
  const packet = await searchJson(server.app, { collection: 'docs', query: 'lanterns' });
  const link = new URL(packet.response.resultPacket.results[0]!.clickTrackingUrl, 'http://localhost');
  return { server, link };
}

/** The click link with another query (the signature covers the url only). */
function withQuery(link: URL, query: string): string {
  const params = new URLSearchParams(link.searchParams);
  params.set('query', query);
  return `${link.pathname}?${params.toString()}`;
}

describe('click limits: rate and dedupe', () => {
  let server: TestServer;
  let link: URL;

  before(async () => {
    ({ server, link } = await serverWithPage(['search.clicks.max-per-minute=5']));
  });
  after(async () => {
    await server.dispose();
  });

  it('one address gets 429 CLICK_RATE_LIMITED with Retry-After past its limit; another address still clicks', async () => {
    const home = server.manager.home.root;
    for (let i = 0; i < 5; i++) {
      const answer = await getFrom(server, withQuery(link, `rate ${i}`), '127.0.0.2');
      assert.equal(answer.status, 302, answer.body);
    }
    const logged = clickLines(home, 'docs').length;
    const refused = await getFrom(server, withQuery(link, 'rate 5'), '127.0.0.2');
    assert.equal(refused.status, 429, refused.body);
    const body = JSON.parse(refused.body) as { status: number; error: string; message: string };
    assert.equal(body.error, 'CLICK_RATE_LIMITED');
    assert.equal(body.status, 429);
    assert.match(body.message, /search\.clicks\.max-per-minute/);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers['retry-after']}`);
    assert.equal(refused.headers.location, undefined);
    assert.equal(clickLines(home, 'docs').length, logged, 'a refused click is not logged');

    const other = await getFrom(server, withQuery(link, 'rate other'), '127.0.0.3');
    assert.equal(other.status, 302, 'another address is not limited');
    const search = await getFrom(server, '/s/search.json?collection=docs&query=lanterns', '127.0.0.2');
    assert.equal(search.status, 200, 'searching is not limited');
  });

  it('one address clicking one result for one query counts once; another query or address counts again', async () => {
    const home = server.manager.home.root;
    const before = clickLines(home, 'docs').length;
    for (let i = 0; i < 3; i++) {
      const answer = await getFrom(server, withQuery(link, 'Dedupe me'), '127.0.0.4');
      assert.equal(answer.status, 302, 'a repeat is still redirected');
      assert.equal(answer.headers.location, PAGE);
    }
    // The same query as the evidence counts it (case and spacing do not make another query).
    assert.equal((await getFrom(server, withQuery(link, '  dedupe   ME '), '127.0.0.4')).status, 302);
    assert.equal(clickLines(home, 'docs').length, before + 1);
    assert.equal((await getFrom(server, withQuery(link, 'another query'), '127.0.0.4')).status, 302);
    assert.equal((await getFrom(server, withQuery(link, 'Dedupe me'), '127.0.0.5')).status, 302);
    assert.equal(clickLines(home, 'docs').length, before + 3);

    const processed = await fetch(`${server.url}/push-api/v2/collections/docs/click-logs`, {
      method: 'POST',
      headers: { authorization: ADMIN_AUTH },
    });
    const result = (await processed.json()) as { clicksProcessed: number };
    assert.equal(processed.status, 200);
    assert.equal(result.clicksProcessed, before + 3, 'the repeats were never counted');
  });

  it('a 30 KB query is logged cut to 2000 characters', async () => {
    const home = server.manager.home.root;
    const answer = await getFrom(server, withQuery(link, 'q'.repeat(30_000)), '127.0.0.6');
    assert.equal(answer.status, 302);
    const line = clickLines(home, 'docs').at(-1)!;
    assert.equal((line.query as string).length, 2000);
  });
});

describe('click limits: click log size', () => {
  const CAP = 4096;
  let server: TestServer;
  let link: URL;

  before(async () => {
    ({ server, link } = await serverWithPage([
      'search.clicks.max-per-minute=0',
      `search.clicks.max-log-bytes=${CAP}`,
    ]));
  });
  after(async () => {
    await server.dispose();
  });

  it('stops logging at search.clicks.max-log-bytes, still redirects, says so once in push.log, and logs again once processed', async () => {
    const home = server.manager.home.root;
    const file = clickLogFile(home, 'docs');
    for (let i = 0; i < 60; i++) {
      const answer = await getFrom(server, withQuery(link, `flood ${i} ${'x'.repeat(100)}`));
      assert.equal(answer.status, 302, 'clicks past the cap are still redirected');
    }
    const size = statSync(file).size;
    assert.ok(size <= CAP, `the click log is ${size} bytes, the cap ${CAP}`);
    assert.ok(size > CAP - 400, `the click log filled up to the cap (${size})`);
    const warnings = readFileSync(join(home, 'web', 'log', 'push.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('click log full'));
    assert.equal(warnings.length, 1, 'push.log says it once');

    const processed = await fetch(`${server.url}/push-api/v2/collections/docs/click-logs`, {
      method: 'POST',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(processed.status, 200);
    assert.equal(existsSync(file), false, 'processing rotated the full log away');
    assert.equal((await getFrom(server, withQuery(link, 'after processing'))).status, 302);
    assert.equal(clickLines(home, 'docs').at(-1)!.query, 'after processing');
  });
});
