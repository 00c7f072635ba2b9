import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { formatBytes, formatNumber } from '../../src/http/admin-ui/html.js';
import { ADMIN_PASSWORD, basicAuth, testApp, type TestApp } from '../http/helpers.js';
import { waitFor } from '../support/wait.js';

/** A logged-in browser: its cookie and the CSRF token of its pages. */
interface Browser {
  cookie: string;
  csrf: string;
}

async function logIn(app: TestApp, user = 'admin', password = ADMIN_PASSWORD): Promise<Browser> {
  const response = await app.app.inject({
    method: 'POST',
    url: '/search/admin/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ username: user, password, next: '/search/admin/' }).toString(),
  });
  assert.equal(response.statusCode, 303, response.body);
  const setCookie = String(response.headers['set-cookie']);
  assert.match(setCookie, /^pushsearch_session=[^;]+;/);
  assert.match(setCookie, /HttpOnly/i);
  assert.match(setCookie, /SameSite=Strict/i);
  assert.match(setCookie, /Path=\/search\/admin/);
  const cookie = setCookie.split(';')[0]!;
  const home = await app.app.inject({ method: 'GET', url: '/search/admin/', headers: { cookie } });
  assert.equal(home.statusCode, 200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(home.body)?.[1];
  assert.ok(csrf, 'the page has a CSRF field');
  return { cookie, csrf };
}

function post(
  app: TestApp,
  browser: Browser,
  url: string,
  fields: Record<string, string | string[]>,
  csrf: string | null = browser.csrf,
): Promise<LightMyRequestResponse> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) form.append(name, v);
  if (csrf !== null) form.append('_csrf', csrf); // null: a form without the field
  return app.app.inject({
    method: 'POST',
    url,
    headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
}

function get(app: TestApp, browser: Browser, url: string): Promise<LightMyRequestResponse> {
  return app.app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } });
}

describe('admin UI', () => {
  let app: TestApp;
  let admin: Browser;

  before(async () => {
    app = await testApp(['docs']);
    admin = await logIn(app);
  });
  after(() => app.close());

  it('sends a browser without a session to the login page, and refuses a wrong password', async () => {
    const page = await app.app.inject({ method: 'GET', url: '/search/admin/users' });
    assert.equal(page.statusCode, 303);
    assert.equal(page.headers.location, '/search/admin/login?next=%2Fsearch%2Fadmin%2Fusers');
    const login = await app.app.inject({ method: 'GET', url: '/search/admin/login' });
    assert.equal(login.statusCode, 200);
    assert.match(String(login.headers['content-security-policy']), /default-src 'none'/);
    const wrong = await app.app.inject({
      method: 'POST',
      url: '/search/admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'username=admin&password=wrong-password',
    });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.headers['set-cookie'], undefined);
    assert.match(wrong.body, /wrong user name or password/);
    // A forged cookie is no session.
    const forged = await app.app.inject({
      method: 'GET',
      url: '/search/admin/',
      headers: { cookie: 'pushsearch_session=abc' },
    });
    assert.equal(forged.statusCode, 303);
  });

  it('refuses a login form sent by a page of another site (login CSRF), and accepts our own', async () => {
    const send = (headers: Record<string, string>) =>
      app.app.inject({
        method: 'POST',
        url: '/search/admin/login',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          host: 'search.example.org',
          ...headers,
        },
        payload: new URLSearchParams({
          username: 'admin',
          password: ADMIN_PASSWORD,
          next: '/search/admin/',
        }).toString(),
      });
    for (const headers of <Record<string, string>[]>[
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'https://search.example.org' },
      { origin: 'https://evil.example' },
      { origin: 'https://search.example.org.evil.example' },
      { origin: 'null' },
    ]) {
      const refused = await send(headers);
      assert.equal(refused.statusCode, 403, JSON.stringify(headers));
      assert.equal(refused.headers['set-cookie'], undefined, 'no session for a forged login');
      assert.match(refused.body, /the login was sent from another site/);
    }
    for (const headers of <Record<string, string>[]>[
      { 'sec-fetch-site': 'same-origin', origin: 'https://search.example.org' },
      { 'sec-fetch-site': 'none' },
      { origin: 'https://search.example.org' },
      {}, // no browser: curl, scripts
    ]) {
      const accepted = await send(headers);
      assert.equal(accepted.statusCode, 303, JSON.stringify(headers));
      assert.match(String(accepted.headers['set-cookie']), /^pushsearch_session=/);
    }
  });

  it('the session is a login token: it works as X-Security-Token, and logout revokes it', async () => {
    const browser = await logIn(app);
    const token = browser.cookie.split('=')[1]!;
    const session = await app.app.inject({
      method: 'GET',
      url: '/admin-api/account/v1/session',
      headers: { 'x-security-token': token },
    });
    assert.equal(session.statusCode, 200);
    const out = await post(app, browser, '/search/admin/logout', {});
    assert.equal(out.statusCode, 303);
    assert.match(String(out.headers['set-cookie']), /pushsearch_session=;/);
    assert.equal((await get(app, browser, '/search/admin/')).statusCode, 303);
    const dead = await app.app.inject({
      method: 'GET',
      url: '/admin-api/account/v1/session',
      headers: { 'x-security-token': token },
    });
    assert.equal(dead.statusCode, 401);
  });

  it('refuses forms without or with a wrong CSRF token, and changes nothing', async () => {
    for (const csrf of [null, 'wrong', admin.csrf.slice(0, -1) + (admin.csrf.endsWith('A') ? 'B' : 'A')]) {
      const create = await post(
        app,
        admin,
        '/search/admin/collections',
        { name: 'forged', type: 'push' },
        csrf,
      );
      assert.equal(create.statusCode, 403);
      assert.equal(app.manager.exists('forged'), false);
      const remove = await post(app, admin, '/search/admin/collections/docs/delete', {}, csrf);
      assert.equal(remove.statusCode, 403);
      assert.equal(app.manager.exists('docs'), true);
      const user = await post(
        app,
        admin,
        '/search/admin/users',
        { name: 'mallory', password: 'mallory-password', permissions: 'sec.administer', collections: '*' },
        csrf,
      );
      assert.equal(user.statusCode, 403);
      assert.equal(app.auth.users.get('mallory'), undefined);
      const upgrade = await post(app, admin, '/search/admin/system/prepare-upgrade', {}, csrf);
      assert.equal(upgrade.statusCode, 403);
      assert.equal(app.manager.upgradeStatus(), undefined);
    }
    // Another session's token is no good either.
    const other = await logIn(app);
    assert.notEqual(other.csrf, admin.csrf);
    assert.equal(
      (await post(app, admin, '/search/admin/collections', { name: 'forged', type: 'push' }, other.csrf))
        .statusCode,
      403,
    );
    assert.equal(app.manager.exists('forged'), false);
  });

  it('escapes what it shows: a collection named <script> is text', async () => {
    const evil = '<script>alert(1)</script>';
    const create = await post(app, admin, '/search/admin/collections', { name: evil, type: 'push' });
    assert.equal(create.statusCode, 400);
    assert.ok(!create.body.includes('<script>'), 'no raw <script> in the page');
    assert.match(create.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    // A config file holding markup shows it as text in the editor.
    const save = await post(app, admin, '/search/admin/collections/docs/config', {
      'collection.cfg': `collection_type=push\n# </textarea><script>alert(1)</script>\n`,
    });
    assert.equal(save.statusCode, 200, save.body);
    assert.ok(!save.body.includes('<script>'));
    assert.match(save.body, /&lt;\/textarea&gt;&lt;script&gt;/);
  });

  it('creates and deletes collections', async () => {
    const create = await post(app, admin, '/search/admin/collections', { name: 'news', type: 'push' });
    assert.equal(create.statusCode, 200);
    assert.match(create.body, /push collection news created/);
    assert.equal(app.manager.typeOf('news'), 'push');
    const meta = await post(app, admin, '/search/admin/collections', {
      name: 'all',
      type: 'meta',
      members: 'docs, news',
    });
    assert.equal(meta.statusCode, 200, meta.body);
    assert.deepEqual(app.manager.membersOf('all'), ['docs', 'news']);
    const list = await get(app, admin, '/search/admin/');
    assert.match(list.body, /href="\/search\/admin\/collections\/news"/);
    const taken = await post(app, admin, '/search/admin/collections', { name: 'news', type: 'push' });
    assert.equal(taken.statusCode, 409);
    // Without confirmed=1 (the page's script adds it after a dialog), a page asks first.
    const ask = await post(app, admin, '/search/admin/collections/all/delete', {});
    assert.equal(ask.statusCode, 200);
    assert.match(ask.body, /Delete collection all with all its documents/);
    assert.match(tight(ask.body), /<input type="hidden" name="confirmed" value="1" \/>/);
    assert.equal(app.manager.exists('all'), true, 'nothing deleted before the confirmation');
    assert.equal(
      (await post(app, admin, '/search/admin/collections/all/delete', { confirmed: '1' })).statusCode,
      200,
    );
    assert.equal(app.manager.exists('all'), false);
    assert.equal(
      (await post(app, admin, '/search/admin/collections/news/delete', { confirmed: '1' })).statusCode,
      200,
    );
    assert.equal(app.manager.exists('news'), false);
  });

  it('commits, snapshots, vacuums and stops from the collection page, which shows state and push.log errors', async () => {
    const put = await app.app.inject({
      method: 'PUT',
      url: '/push-api/v1/collections/docs/documents?key=http://example.com/a',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello lanterns',
    });
    assert.equal(put.statusCode, 200);
    let page = await get(app, admin, '/search/admin/collections/docs');
    assert.match(tight(page.body), /<th>Staged changes<\/th><td>1<\/td>/);
    page = await post(app, admin, '/search/admin/collections/docs/action', { action: 'commit' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /committed: 1 change\(s\)/);
    assert.match(tight(page.body), /<th>Documents<\/th><td>1<\/td>/);
    page = await post(app, admin, '/search/admin/collections/docs/action', {
      action: 'snapshot',
      snapshot: 'before-upgrade',
    });
    assert.match(page.body, /snapshot before-upgrade created/);
    assert.match(tight(page.body), /<td>before-upgrade<\/td>/);
    page = await post(app, admin, '/search/admin/collections/docs/action', { action: 'merge' });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /vacuum MERGE started/);
    page = await post(app, admin, '/search/admin/collections/docs/action', { action: 'reindex' });
    assert.match(page.body, /Re-index every stored document of docs\?/, 'asks first');
    page = await post(app, admin, '/search/admin/collections/docs/action', {
      action: 'reindex',
      confirmed: '1',
    });
    assert.ok(page.statusCode === 200 || page.statusCode === 409, page.body);
    // Let the vacuum finish before stopping.
    await waitFor(
      'the vacuum to finish',
      () => app.manager.collection('docs').stateView().vacuum?.state !== 'RUNNING',
    );
    page = await post(app, admin, '/search/admin/collections/docs/action', { action: 'stop' });
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(app.manager.collection('docs').state, 'STOPPED');
    assert.match(tight(page.body), /<th>State<\/th><td><span class="badge STOPPED">STOPPED<\/span><\/td>/);

    app.manager.log.error(
      { collection: 'docs', err: { message: 'merge failed: <b>disk full</b>', code: 'IO' } },
      'merge failed',
    );
    app.manager.log.error({ collection: 'other', err: { message: 'not for docs' } }, 'other failure');
    page = await get(app, admin, '/search/admin/collections/docs');
    assert.match(page.body, /IO: merge failed: &lt;b&gt;disk full&lt;\/b&gt;/);
    assert.ok(!page.body.includes('not for docs'));
    // Info lines are events, not errors.
    app.manager.log.info({ collection: 'docs' }, 'anchor text rebuilt');
    page = await get(app, admin, '/search/admin/collections/docs');
    const body = tight(page.body);
    const errors = body.slice(body.indexOf('Last errors'), body.indexOf('Recent events'));
    const events = body.slice(body.indexOf('Recent events'));
    assert.match(errors, /disk full/);
    assert.ok(!errors.includes('anchor text rebuilt'), 'no info line under Last errors');
    assert.match(events, /<td class="level-info">info<\/td><td>anchor text rebuilt<\/td>/);
    // Links to the collection's search page, document browser and query tester.
    assert.match(body, /href="\/s\/search.html\?collection=docs"/);
    assert.match(body, /href="\/search\/admin\/collections\/docs\/documents"/);
  });

  it('shows counts with thousands separators and sizes in KiB/MiB', () => {
    assert.equal(formatNumber(20000), '20,000');
    assert.equal(formatNumber(1234567), '1,234,567');
    assert.equal(formatNumber(undefined), '');
    assert.equal(formatBytes(3 * 1024 * 1024).value, '<span title="3,145,728 bytes">3.0 MiB</span>');
  });

  it('serves its assets from our origin: stylesheet, script, uPlot, favicon; the policy admits only those', async () => {
    for (const [name, type] of [
      ['admin.css', 'text/css'],
      ['admin.js', 'text/javascript'],
      ['uPlot.iife.min.js', 'text/javascript'],
      ['uPlot.min.css', 'text/css'],
      ['favicon.svg', 'image/svg+xml'],
    ]) {
      const asset = await app.app.inject({ method: 'GET', url: `/search/admin/assets/${name}` });
      assert.equal(asset.statusCode, 200, name);
      assert.ok(String(asset.headers['content-type']).startsWith(type), name);
    }
    assert.equal(
      (await app.app.inject({ method: 'GET', url: '/search/admin/assets/nope.js' })).statusCode,
      404,
    );
    const icon = await app.app.inject({ method: 'GET', url: '/favicon.ico' });
    assert.equal(icon.statusCode, 200);
    assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
    const page = await get(app, admin, '/search/admin/');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self';/);
    assert.ok(!/unsafe-inline|unsafe-eval|https?:/.test(csp), csp);
    assert.ok(!/<script>/.test(page.body), 'no inline script');
    assert.ok(!/https?:\/\//.test(page.body), 'nothing from another origin');
  });

  it('browses a document: stored content, metadata, staged then committed', async () => {
    const key = 'http://example.com/browse';
    const put = await app.app.inject({
      method: 'PUT',
      url: `/push-api/v1/collections/docs/documents?key=${encodeURIComponent(key)}`,
      headers: { 'content-type': 'text/html', 'x-service-push-metadata-Author': 'Ann <Example>' },
      payload: '<html><title>Browse me</title><body>Paper <b>lanterns</b></body></html>',
    });
    assert.equal(put.statusCode, 200);
    let page = await get(
      app,
      admin,
      `/search/admin/collections/docs/documents?key=${encodeURIComponent(key)}`,
    );
    assert.equal(page.statusCode, 200, page.body);
    let body = tight(page.body);
    assert.match(body, /class="badge staged"\s*>staged/);
    assert.match(body, /<th>author<\/th><td>Ann &lt;Example&gt;<\/td>/i);
    assert.match(body, /<pre>&lt;html&gt;&lt;title&gt;Browse me/);
    await app.app.inject({ method: 'POST', url: '/push-api/v1/collections/docs/commit' });
    page = await get(app, admin, `/search/admin/collections/docs/documents?key=${encodeURIComponent(key)}`);
    body = tight(page.body);
    assert.match(body, /class="badge committed"\s*>committed/);
    const absent = await get(
      app,
      admin,
      '/search/admin/collections/docs/documents?key=http://example.com/none',
    );
    assert.equal(absent.statusCode, 404);
    assert.match(absent.body, /no document with key http:\/\/example.com\/none/);
  });

  it('explains a ranking in the query tester: BM25F parts, tier, evidence', async () => {
    for (const [key, text] of [
      ['http://example.com/both', 'paper lanterns glow'],
      ['http://example.com/one', 'paper boats float'],
    ]) {
      await app.app.inject({
        method: 'PUT',
        url: `/push-api/v1/collections/docs/documents?key=${encodeURIComponent(key)}`,
        headers: { 'content-type': 'text/plain' },
        payload: text,
      });
    }
    await app.app.inject({ method: 'POST', url: '/push-api/v1/collections/docs/commit' });
    const page = await get(app, admin, '/search/admin/collections/docs/query?query=paper+lanterns');
    assert.equal(page.statusCode, 200, page.body);
    const body = tight(page.body);
    const both = body.indexOf('http://example.com/both');
    const one = body.indexOf('http://example.com/one');
    assert.ok(both > 0 && one > both, 'the document with both words first');
    assert.match(body, /tier 2/);
    assert.match(body, /tier: 2 of 2 clauses matched/);
    assert.match(body, /idf = ln\(1 \+ \(N - df \+ 0.5\) \/ \(df \+ 0.5\)\)/);
    assert.match(body, /field body: weight 1 × tf 1/);
  });

  it('validates configuration files: a bad line is shown with its number and nothing is written', async () => {
    const file = join(app.home, 'conf', 'docs', 'metamap.cfg');
    const good = await post(app, admin, '/search/admin/collections/docs/config', {
      'metamap.cfg': 'author,1,author\n',
    });
    assert.equal(good.statusCode, 200, good.body);
    assert.match(good.body, /saved metamap.cfg/);
    assert.equal(readFileSync(file, 'utf8'), 'author,1,author\n');
    const bad = await post(app, admin, '/search/admin/collections/docs/config', {
      'metamap.cfg': 'author,1,author\r\nFUNbad,9,x\r\n',
      'qie.cfg': '0.5 .*\n',
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /nothing saved: conf\/docs\/metamap.cfg line 2/);
    assert.match(bad.body, /FUNbad,9,x/, 'the submitted text stays in the editor');
    assert.equal(readFileSync(file, 'utf8'), 'author,1,author\n');
    assert.equal(existsSync(join(app.home, 'conf', 'docs', 'qie.cfg')), false);
  });

  it('manages users: create, permissions and collections, password, delete', async () => {
    let page = await post(app, admin, '/search/admin/users', {
      name: 'pusher',
      password: 'pusher-password-1',
      permissions: 'sec.continuous.rest',
      collections: 'docs',
    });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /user pusher created/);
    let user = app.auth.users.get('pusher')!;
    assert.deepEqual(user.permissions, ['sec.continuous.rest']);
    assert.deepEqual(user.collections, ['docs']);
    const basicOld = basicAuth('pusher', 'pusher-password-1');
    assert.equal(
      (
        await app.app.inject({
          method: 'GET',
          url: '/push-api/v1/collections/docs/state',
          headers: { authorization: basicOld },
        })
      ).statusCode,
      200,
    );

    // A push user logs into the UI but may not administer.
    const pusher = await logIn(app, 'pusher', 'pusher-password-1').catch(() => undefined);
    assert.equal(pusher, undefined, 'the admin pages refuse a user without sec.administer');

    page = await post(app, admin, '/search/admin/users/pusher', {
      permissions: ['sec.continuous.rest', 'sec.administer'],
      collections: '*',
      password: 'pusher-password-2',
    });
    assert.equal(page.statusCode, 200, page.body);
    user = app.auth.users.get('pusher')!;
    assert.deepEqual([...user.permissions].sort(), ['sec.administer', 'sec.continuous.rest']);
    assert.deepEqual(user.collections, ['*']);
    assert.equal(
      (
        await app.app.inject({
          method: 'GET',
          url: '/push-api/v1/collections/docs/state',
          headers: { authorization: basicOld },
        })
      ).statusCode,
      401,
    );

    const short = await post(app, admin, '/search/admin/users/pusher', {
      permissions: [],
      collections: '',
      password: 'short',
    });
    assert.equal(short.statusCode, 400);
    page = await post(app, admin, '/search/admin/users/pusher/delete', {});
    assert.match(page.body, /Delete user pusher\?/, 'asks first');
    assert.ok(app.auth.users.get('pusher'));
    page = await post(app, admin, '/search/admin/users/pusher/delete', { confirmed: '1' });
    assert.equal(page.statusCode, 200);
    assert.equal(app.auth.users.get('pusher'), undefined);
  });

  it('manages API tokens: created for a user with its secret shown once, listed, used, revoked after asking', async () => {
    await app.auth.users.put('cms', {
      password: 'cms-password-1',
      permissions: ['sec.continuous.rest'],
      collections: ['docs'],
    });
    let page = await get(app, admin, '/search/admin/api-tokens');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /No API token yet/);
    assert.match(page.body, /<option value="cms"/);

    // A scope wider than the user's is refused by the admin API; the form keeps what was typed.
    page = await post(app, admin, '/search/admin/api-tokens', {
      user: 'cms',
      name: 'cms-production',
      collections: 'docs,news',
      expires: '',
    });
    assert.equal(page.statusCode, 400);
    assert.match(page.body, /role="alert"/);
    assert.match(page.body, /news/);
    assert.match(page.body, /value="cms-production"/);
    assert.equal(app.auth.users.listApiTokens('cms').length, 0);

    page = await post(app, admin, '/search/admin/api-tokens', {
      user: 'cms',
      name: 'cms-production',
      collections: 'docs',
      expires: '2999-12-31',
    });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /API token cms-production of cms created/);
    assert.equal(page.headers['cache-control'], 'no-store');
    const secret = /id="api-token-secret"[^>]*value="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(secret !== undefined && secret.length >= 32, 'the secret is on the page');
    const [listed] = app.auth.users.listApiTokens('cms');
    assert.deepEqual(
      { name: listed?.name, collections: listed?.collections, expires: listed?.expires },
      { name: 'cms-production', collections: ['docs'], expires: '3000-01-01T00:00:00.000Z' },
    );
    // The list shows it, never again its secret.
    page = await get(app, admin, '/search/admin/api-tokens');
    assert.match(page.body, /cms-production/);
    assert.match(page.body, /2999-12-31|3000-01-01 00:00 UTC/);
    assert.doesNotMatch(page.body, new RegExp(secret));

    const state = () =>
      app.app.inject({
        method: 'GET',
        url: '/push-api/v1/collections/docs/state',
        headers: { 'x-security-token': secret },
      });
    assert.equal((await state()).statusCode, 200, 'the token works as X-Security-Token');

    // A past expiry day, and a second token of the same name, are refused with a message.
    page = await post(app, admin, '/search/admin/api-tokens', {
      user: 'cms',
      name: 'old',
      expires: '2001-01-01',
    });
    assert.equal(page.statusCode, 400);
    assert.match(page.body, /has passed/);
    page = await post(app, admin, '/search/admin/api-tokens', { user: 'cms', name: 'cms-production' });
    assert.equal(page.statusCode, 409);
    assert.match(page.body, /already has an API token named cms-production/);

    page = await post(app, admin, '/search/admin/api-tokens/cms/cms-production/revoke', {});
    assert.match(page.body, /Revoke API token cms-production of cms\?/, 'asks first');
    assert.equal((await state()).statusCode, 200, 'nothing revoked before the answer');
    page = await post(app, admin, '/search/admin/api-tokens/cms/cms-production/revoke', { confirmed: '1' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /API token cms-production of cms revoked/);
    assert.equal((await state()).statusCode, 401);
    assert.equal(app.auth.users.listApiTokens('cms').length, 0);
    app.auth.users.delete('cms');
  });

  it('a user without sec.administer gets 403 pages', async () => {
    await app.auth.users.put('reader', {
      password: 'reader-password',
      permissions: ['sec.continuous.rest'],
      collections: ['docs'],
    });
    const login = await app.app.inject({
      method: 'POST',
      url: '/search/admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'username=reader&password=reader-password',
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const page = await app.app.inject({ method: 'GET', url: '/search/admin/users', headers: { cookie } });
    assert.equal(page.statusCode, 403);
    assert.match(page.body, /needs the permission sec.administer/);
    // The API UI is for every user.
    assert.equal(
      (await app.app.inject({ method: 'GET', url: '/search/admin/api-ui/', headers: { cookie } })).statusCode,
      200,
    );
  });

  it('the System menu runs prepare for upgrade and shows its progress', async () => {
    let page = await get(app, admin, '/search/admin/system');
    assert.match(page.body, /NOT_STARTED/);
    page = await post(app, admin, '/search/admin/system/prepare-upgrade', {});
    assert.match(page.body, /Please confirm/);
    assert.equal(app.manager.upgradeStatus(), undefined, 'nothing started before the confirmation');
    page = await post(app, admin, '/search/admin/system/prepare-upgrade', { confirmed: '1' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /prepare for upgrade started/);
    assert.notEqual(app.manager.upgradeStatus(), undefined);
    await waitFor('prepare for upgrade to finish', () => app.manager.upgradeStatus()?.state === 'PREPARED');
    page = await get(app, admin, '/search/admin/system');
    assert.match(page.body, /<output id="upgrade-state">PREPARED<\/output>/);
    const status = await app.app.inject({ method: 'POST', url: '/push-api/v1/upgrade/prepare/status' });
    assert.equal(status.json<{ state: string }>().state, 'PREPARED');
  });
});

/** A page with the white space between tags removed (the templates are formatted for reading). */
function tight(body: string): string {
  return body.replace(/>\s+</g, '><');
}
