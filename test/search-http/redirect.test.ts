import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/http/build-app.js';
import { appendClick, clickLogFile } from '../../src/collection/evidence/click-log.js';
import { TEST_SECURITY, tempHome, testApp, type TestApp } from '../http/helpers.js';
import { clickLines, pushAndCommit, searchJson } from './helpers.js';

const PLAIN = 'http://example.com/plain?a=1&b=2';
const UNICODE = 'http://bücher.example/straße';

describe('GET /s/redirect', () => {
  let t: TestApp;
  let links: Map<string, string>;

  before(async () => {
    t = await testApp(['docs']);
    await pushAndCommit(t.app, 'docs', [
      { key: PLAIN, body: 'A page about lanterns.' },
      { key: UNICODE, body: 'Lanterns and bookshops, a second page about lanterns.' },
    ]);
    const packet = await searchJson(t.app, { collection: 'docs', query: 'lanterns' });
    links = new Map(packet.response.resultPacket.results.map((r) => [r.liveUrl, r.clickTrackingUrl]));
    assert.equal(links.size, 2);
  });
  after(async () => {
    await t.close();
  });

  const follow = (url: string) => t.app.inject({ method: 'GET', url });

  it('logs the click and redirects (302) to the result', async () => {
    const before = clickLines(t.home, 'docs').length;
    const link = links.get(PLAIN)!;
    const rank = Number(new URL(link, 'http://localhost').searchParams.get('rank'));
    const started = Date.now();
    const response = await follow(link);
    assert.equal(response.statusCode, 302);
    assert.equal(response.headers.location, PLAIN);
    assert.equal(response.headers['cache-control'], 'no-store');
    const lines = clickLines(t.home, 'docs');
    assert.equal(lines.length, before + 1);
    const line = lines.at(-1)!;
    assert.deepEqual(
      { ...line, time: undefined },
      { time: undefined, collection: 'docs', query: 'lanterns', rank, url: PLAIN, ip: '127.0.0.1' },
    );
    const time = Date.parse(line.time as string);
    assert.match(line.time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(time >= started - 1000 && time <= Date.now() + 1000);
  });

  it('percent-encodes a non-ASCII URL in Location and logs it as the result showed it', async () => {
    const response = await follow(links.get(UNICODE)!);
    assert.equal(response.statusCode, 302);
    assert.equal(response.headers.location, 'http://b%C3%BCcher.example/stra%C3%9Fe');
    assert.equal(clickLines(t.home, 'docs').at(-1)!.url, UNICODE);
  });

  it('refuses a tampered url or auth with 400 REDIRECT_INVALID and logs nothing', async () => {
    const link = new URL(links.get(PLAIN)!, 'http://localhost');
    const otherAuth = new URL(links.get(UNICODE)!, 'http://localhost').searchParams.get('auth')!;
    const variants: [string, (p: URLSearchParams) => void][] = [
      ['another url', (p) => p.set('url', 'http://evil.example/')],
      ['url with a suffix', (p) => p.set('url', `${PLAIN}x`)],
      ['auth changed', (p) => p.set('auth', flip(p.get('auth')!))],
      ['auth of another url', (p) => p.set('auth', otherAuth)],
      ['auth cut', (p) => p.set('auth', p.get('auth')!.slice(0, 10))],
      ['no auth', (p) => p.delete('auth')],
      ['no url', (p) => p.delete('url')],
      ['rank not a number', (p) => p.set('rank', 'first')],
      ['rank zero', (p) => p.set('rank', '0')],
    ];
    const before = readLog(t.home);
    for (const [what, change] of variants) {
      const params = new URLSearchParams(link.searchParams);
      change(params);
      const response = await follow(`/s/redirect?${params.toString()}`);
      assert.equal(response.statusCode, 400, what);
      assert.equal(response.headers.location, undefined, what);
      const body = response.json<{ status: number; error: string; message: string }>();
      assert.equal(body.error, 'REDIRECT_INVALID', what);
      assert.equal(body.status, 400, what);
      assert.ok(body.message.length > 0);
    }
    assert.equal(readLog(t.home), before, 'nothing logged');
  });

  it('redirects HEAD requests and prefetches without logging them as clicks', async () => {
    const link = links.get(PLAIN)!;
    const before = readLog(t.home);
    const head = await t.app.inject({ method: 'HEAD', url: link });
    assert.equal(head.statusCode, 302);
    assert.equal(head.headers.location, PLAIN);
    const prefetch = await t.app.inject({
      method: 'GET',
      url: link,
      headers: { 'sec-purpose': 'prefetch;prerender' },
    });
    assert.equal(prefetch.statusCode, 302);
    assert.equal(readLog(t.home), before);
  });

  it('follows a signed URL for a collection that does not exist, without logging', async () => {
    const params = new URLSearchParams(new URL(links.get(PLAIN)!, 'http://localhost').searchParams);
    const before = readLog(t.home);
    for (const collection of ['gone', '../docs', '']) {
      params.set('collection', collection);
      const response = await follow(`/s/redirect?${params.toString()}`);
      assert.equal(response.statusCode, 302, collection);
      assert.equal(response.headers.location, PLAIN);
    }
    assert.equal(readLog(t.home), before);
  });
});

describe('click links across restarts', () => {
  it('stay valid: the signing secret is kept in the installation', async () => {
    const { home, cleanup } = tempHome();
    try {
      const first = await buildApp({ home, security: TEST_SECURITY });
      first.manager.create('docs', 'push');
      await pushAndCommit(first.app, 'docs', [{ key: PLAIN, body: 'lanterns' }]);
      const packet = await searchJson(first.app, { collection: 'docs', query: 'lanterns' });
      const link = packet.response.resultPacket.results[0]!.clickTrackingUrl;
      await first.app.close();
      const second = await buildApp({ home, security: TEST_SECURITY });
      try {
        const response = await second.app.inject({ method: 'GET', url: link });
        assert.equal(response.statusCode, 302);
        assert.equal(response.headers.location, PLAIN);
        assert.equal(clickLines(home, 'docs').length, 1);
      } finally {
        await second.app.close();
      }
    } finally {
      cleanup();
    }
  });
});

describe('appendClick', () => {
  it('writes one JSON line per click, also under concurrency and for queries with line breaks', async () => {
    const { home, cleanup } = tempHome();
    try {
      const clicks = Array.from({ length: 200 }, (_, i) => ({
        time: new Date(Date.UTC(2024, 0, 1, 0, 0, i)),
        collection: 'docs',
        query: i % 10 === 0 ? `two\nlines ${i}` : `query ${i} ${'x'.repeat(i * 10)}`,
        rank: i + 1,
        url: `http://example.com/${i}`,
      }));
      await Promise.all(clicks.map((click) => appendClick(home, 'docs', click)));
      const text = readFileSync(clickLogFile(home, 'docs'), 'utf8');
      assert.ok(text.endsWith('\n'));
      const lines = text.split('\n').slice(0, -1);
      assert.equal(lines.length, 200);
      const parsed = lines.map(
        (line) => JSON.parse(line) as { rank: number; query: string; time: string; ip?: string },
      );
      assert.deepEqual(
        parsed.map((p) => p.rank).sort((a, b) => a - b),
        clicks.map((c) => c.rank),
      );
      const tenth = parsed.find((p) => p.rank === 11)!;
      assert.equal(tenth.query, 'two\nlines 10');
      assert.equal(tenth.time, '2024-01-01T00:00:10.000Z');
      assert.equal('ip' in tenth, false);
    } finally {
      cleanup();
    }
  });

  it('refuses a collection name that is not one (it becomes a path)', async () => {
    const { home, cleanup } = tempHome();
    try {
      await assert.rejects(
        appendClick(home, '../etc', {
          time: new Date(),
          collection: '../etc',
          query: '',
          rank: 1,
          url: 'http://x/',
        }),
        { code: 'COLLECTION_NAME_INVALID' },
      );
    } finally {
      cleanup();
    }
  });
});

function flip(auth: string): string {
  const last = auth.at(-1)!;
  return auth.slice(0, -1) + (last === 'A' ? 'B' : 'A');
}

function readLog(home: string): string {
  try {
    return readFileSync(clickLogFile(home, 'docs'), 'utf8');
  } catch {
    return '';
  }
}
