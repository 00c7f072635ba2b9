/**
 * Searches read a collection's configuration from the manager's cache, not from disk per
 * query: a config PUT through the admin API is seen by the very next search, a file edited
 * by hand applies when the collection restarts (or at the next config PUT), not in between.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH, addCollectionCfg, route, testApp, type TestApp } from '../http/helpers.js';
import { pushAndCommit, searchJson, urls } from './helpers.js';

const KEY = 'http://example.com/apple';

let t: TestApp;
before(async () => {
  t = await testApp(['docs']);
  await pushAndCommit(t.app, 'docs', [{ key: KEY, body: 'An apple a day.' }]);
});
after(async () => {
  await t.close();
});

function collectionCfg(): string {
  return readFileSync(join(t.home, 'conf', 'docs', 'collection.cfg'), 'utf8');
}

async function putCollectionCfg(text: string): Promise<void> {
  const response = await t.app.inject({
    method: 'PUT',
    url: '/admin-api/v1/collections/docs/config',
    headers: { authorization: ADMIN_AUTH },
    payload: { files: { 'collection.cfg': text } },
  });
  assert.equal(response.statusCode, 200, response.body);
}

async function searchStatus(): Promise<number> {
  const response = await t.app.inject({ method: 'GET', url: '/s/search.json?collection=docs&query=apple' });
  return response.statusCode;
}

void describe('collection settings seen by searches', () => {
  void it('a config PUT applies to the next search', async () => {
    const original = collectionCfg();
    assert.equal(await searchStatus(), 200);
    await putCollectionCfg(`${original}search.public=false\n`);
    assert.equal(await searchStatus(), 401, 'the collection is no longer public');
    await putCollectionCfg(original);
    assert.deepEqual(urls(await searchJson(t.app, { collection: 'docs', query: 'apple' })), [KEY]);
  });

  void it('a file edited by hand is not re-read per query: it applies when the collection restarts', async () => {
    const original = collectionCfg();
    addCollectionCfg(t.home, 'docs', ['search.public=false']);
    assert.equal(await searchStatus(), 200, 'the cached settings still say public');
    const stopped = await t.app.inject({
      method: 'POST',
      url: route('v2', 'docs', '/state/stop'),
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(stopped.statusCode, 200, stopped.body);
    // Any push request starts the collection again, reading its files.
    const state = await t.app.inject({
      method: 'POST',
      url: route('v2', 'docs', '/commit'),
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(state.statusCode, 200, state.body);
    assert.equal(await searchStatus(), 401, 'read again at the start');
    await putCollectionCfg(original);
    assert.equal(await searchStatus(), 200);
  });
});
