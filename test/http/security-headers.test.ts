/**
 * Issue #22 item 14 through the real server: every answer, JSON and errors included, carries
 * `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` and a policy (helmet's headers);
 * API answers load nothing, while the pages keep the policy they need (the search page's
 * style hash, the admin UI's own origin).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PAGE_STYLE_SOURCE } from '../../src/http/search-page/page-layout.js';
import { ADMIN_AUTH } from './helpers.js';
import { testServer, type TestServer } from '../support/test-server.js';

describe('security headers', () => {
  let server: TestServer;

  before(async () => {
    server = await testServer({ collections: ['docs'] });
  });

  after(async () => {
    await server.dispose();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers, redirect: 'manual' });

  it('JSON answers and errors are never sniffed, framed or allowed to load anything', async () => {
    const answers = {
      search: await get('/s/search.json?collection=docs&query=x'),
      searchError: await get('/s/search.json?collection=nope'),
      ready: await get('/ready'),
      health: await get('/health'),
      metrics: await get('/metrics'),
      notFound: await get('/no/such/route'),
      unauthenticated: await get('/push-api/v1/collections/docs/state'),
      pushError: await get('/push-api/v1/collections/docs/documents?key=nokey', {
        authorization: ADMIN_AUTH,
      }),
      admin: await get('/admin-api/v1/collections', { authorization: ADMIN_AUTH }),
    };
    for (const [name, answer] of Object.entries(answers)) {
      await answer.arrayBuffer();
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', name);
      assert.equal(answer.headers.get('x-frame-options'), 'DENY', name);
      assert.match(String(answer.headers.get('content-security-policy')), /^default-src 'none'/, name);
      assert.equal(answer.headers.get('referrer-policy'), 'no-referrer', name);
      assert.equal(answer.headers.get('strict-transport-security'), null, `${name}: HSTS is the operator's`);
    }
    assert.equal(answers.searchError.status, 404);
    assert.equal(answers.unauthenticated.status, 401);
  });

  it('pages keep the policies they need: the search page its style hash, the admin UI and landing page their own origin', async () => {
    const page = await get('/s/search.html?collection=docs&query=x');
    assert.equal(page.status, 200, await page.text());
    const pageCsp = String(page.headers.get('content-security-policy'));
    assert.ok(pageCsp.includes(`style-src ${PAGE_STYLE_SOURCE}`), pageCsp);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(page.headers.get('referrer-policy'), 'strict-origin-when-cross-origin');

    for (const path of ['/', '/search/admin/login']) {
      const answer = await get(path);
      await answer.arrayBuffer();
      assert.equal(answer.status, 200, path);
      const csp = String(answer.headers.get('content-security-policy'));
      assert.match(csp, /script-src 'self'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(answer.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(answer.headers.get('referrer-policy'), 'same-origin', path);
    }
  });
  it("every answer carries the rest of helmet's defaults, and a route's own options change only what they name", async () => {
    const helmetDefaults = {
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    };
    const apiCsp = "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'";
    for (const path of ['/s/search.json?collection=docs&query=x', '/no/such/route', '/health']) {
      const answer = await get(path);
      await answer.arrayBuffer();
      for (const [name, value] of Object.entries(helmetDefaults))
        assert.equal(answer.headers.get(name), value, `${path}: ${name}`);
      assert.equal(answer.headers.get('content-security-policy'), apiCsp, path);
    }
    // /s/redirect names only its referrer policy: the API policy and the rest stay.
    const redirect = await get('/s/redirect?url=https%3A%2F%2Fexample.com%2F&auth=bad&rank=1');
    await redirect.arrayBuffer();
    assert.equal(redirect.status, 400);
    assert.equal(redirect.headers.get('referrer-policy'), 'strict-origin-when-cross-origin');
    assert.equal(redirect.headers.get('content-security-policy'), apiCsp);
    assert.equal(redirect.headers.get('x-frame-options'), 'DENY');
    for (const [name, value] of Object.entries(helmetDefaults))
      assert.equal(redirect.headers.get(name), value, `redirect: ${name}`);
  });
});
