import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { buildApp } from '../../src/http/build-app.js';
import {
  ADMIN_AUTH,
  adminRequest,
  TEST_SECURITY,
  VERSIONS,
  contentOf,
  keyQuery,
  testApp,
  type TestApp,
} from '../http/helpers.js';

/** The original's naming scheme: `client~name`. */
const TILDE = 'govscot~ds-news-push';

describe('collection names as the original allows them', () => {
  let t: TestApp;
  const admin = (method: InjectOptions['method'], path: string, body?: object) =>
    adminRequest(t.app, method, path, body);

  before(async () => {
    t = await testApp([]);
  });
  after(() => t.close());

  it('a client~name collection works in the admin API, the push API, search and on disk', async () => {
    const created = await admin('PUT', `/collections/${TILDE}`, { type: 'push' });
    assert.equal(created.statusCode, 200, created.body);
    assert.ok(statSync(join(t.home, 'conf', TILDE, 'collection.cfg')).isFile());
    assert.ok(statSync(join(t.home, 'data', TILDE)).isDirectory());

    for (const v of VERSIONS) {
      const key = `https://www.gov.scot/news/${v}`;
      const put = await t.app.inject({
        method: 'PUT',
        url: `/push-api/${v}/collections/${TILDE}/documents${keyQuery(key)}`,
        headers: { 'content-type': 'text/html' },
        payload: `<html><title>Ferry timetable ${v}</title><body>ferries to the islands</body></html>`,
      });
      assert.equal(put.statusCode, 200, put.body);
      const got = await t.app.inject({
        method: 'GET',
        url: `/push-api/${v}/collections/${TILDE}/documents${keyQuery(key)}`,
      });
      assert.equal(got.statusCode, 200, got.body);
      assert.match(contentOf(got), /Ferry timetable/);
    }
    // The percent-encoded form (a client that encodes every reserved character) is the same collection.
    const commit = await t.app.inject({
      method: 'POST',
      url: `/push-api/v1/collections/${encodeURIComponent(TILDE).replace('~', '%7E')}/commit`,
    });
    assert.equal(commit.statusCode, 200, commit.body);

    const search = await t.app.inject({
      method: 'GET',
      url: `/s/search.json?collection=${TILDE}&query=ferries`,
    });
    assert.equal(search.statusCode, 200, search.body);
    const packet = search.json<{
      response: { resultPacket: { results: { liveUrl: string; collection: string }[] } };
    }>().response.resultPacket;
    assert.deepEqual(packet.results.map((r) => r.liveUrl).sort(), [
      'https://www.gov.scot/news/v1',
      'https://www.gov.scot/news/v2',
    ]);
    assert.ok(packet.results.every((r) => r.collection === TILDE));

    const list = await admin('GET', '/collections');
    assert.ok(list.json<{ collections: { name: string }[] }>().collections.some((c) => c.name === TILDE));
    // A user scoped to the collection by its name.
    const user = await admin('PUT', '/users/cms', {
      password: 'cms-password-1',
      permissions: ['sec.continuous.rest'],
      collections: [TILDE],
    });
    assert.equal(user.statusCode, 200, user.body);
    const meta = await admin('PUT', '/collections/govscot~all', { type: 'meta', members: [TILDE] });
    assert.equal(meta.statusCode, 200, meta.body);
    const metaSearch = await t.app.inject({
      method: 'GET',
      url: '/s/search.json?collection=govscot~all&query=ferries',
    });
    assert.equal(metaSearch.statusCode, 200, metaSearch.body);
  });

  it('still refuses traversal and other characters', async () => {
    for (const name of ['..~x', '~x', '.~x', 'a%2F~b', 'a~b%20c']) {
      const created = await admin('PUT', `/collections/${name}`, { type: 'push' });
      assert.equal(created.statusCode, 400, `${name}: ${created.body}`);
      assert.equal(created.json<{ error: string }>().error, 'COLLECTION_NAME_INVALID');
    }
  });

  it('refuses names that clash with the home’s own files, and the server still starts', async () => {
    const globalBefore = readFileSync(join(t.home, 'conf', 'users.json'));
    for (const name of [
      'global.cfg',
      'users.json',
      'redirect-secret',
      'initial-admin-password',
      'Global.CFG',
    ]) {
      const created = await admin('PUT', `/collections/${name}`, { type: 'push' });
      assert.equal(created.statusCode, 400, `${name}: ${created.body}`);
      assert.equal(created.json<{ error: string }>().error, 'COLLECTION_NAME_RESERVED');
      assert.match(created.json<{ message: string }>().message, /choose another name/);
      for (const v of VERSIONS) {
        const put = await t.app.inject({
          method: 'PUT',
          url: `/push-api/${v}/collections/${name}/documents${keyQuery('https://x.example/')}`,
          headers: { 'content-type': 'text/plain' },
          payload: 'x',
        });
        assert.equal(put.statusCode, 400, `${name} ${v}: ${put.body}`);
        assert.equal(put.json<{ error: string }>().error, 'COLLECTION_NAME_RESERVED');
        const state = await t.app.inject({ method: 'GET', url: `/push-api/${v}/collections/${name}/state` });
        assert.equal(state.statusCode, 400, state.body);
      }
      const search = await t.app.inject({ method: 'GET', url: `/s/search.json?collection=${name}&query=x` });
      assert.equal(search.statusCode, 400, search.body);
    }
    const scoped = await admin('PUT', '/users/sneaky', {
      password: 'sneaky-password',
      permissions: [],
      collections: ['users.json'],
    });
    assert.equal(scoped.json<{ error: string }>().error, 'COLLECTION_NAME_RESERVED');
    assert.ok(statSync(join(t.home, 'conf', 'users.json')).isFile());
    assert.deepEqual(readFileSync(join(t.home, 'conf', 'users.json')), globalBefore);
    assert.ok(!existsSync(join(t.home, 'data', 'global.cfg')));

    // A second server on the same home (after this one closes) starts and sees the collection.
    await t.app.close();
    const again = await buildApp({ home: t.home, security: TEST_SECURITY });
    try {
      assert.ok(again.manager.names().includes(TILDE));
      const state = await again.app.inject({
        method: 'GET',
        url: `/push-api/v1/collections/${TILDE}/state`,
        headers: { authorization: ADMIN_AUTH },
      });
      assert.equal(state.statusCode, 200, state.body);
    } finally {
      await again.app.close();
    }
  });
});
