import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { adminRequest } from '../http/helpers.js';
import { ADMIN_AUTH, basicAuth, securityApp, type SecurityApp } from './helpers.js';

describe('admin API', () => {
  let t: SecurityApp;
  const admin = (method: InjectOptions['method'], path: string, body?: object) =>
    adminRequest(t.app, method, path, body);

  before(async () => {
    t = await securityApp([]);
  });
  after(async () => t.close());

  it('creates push and meta collections, lists them with state and counts, deletes them', async () => {
    const news = await admin('PUT', '/collections/news', { type: 'push' });
    assert.equal(news.statusCode, 200, news.body);
    assert.equal(news.json<{ collection: { type: string } }>().collection.type, 'push');
    assert.equal((await admin('PUT', '/collections/blogs', { type: 'push' })).statusCode, 200);
    assert.equal(
      (await admin('PUT', '/collections/news', { type: 'push' })).json<{ error: string }>().error,
      'COLLECTION_EXISTS',
    );
    const all = await admin('PUT', '/collections/all', { type: 'meta', members: ['news', 'blogs'] });
    assert.equal(all.statusCode, 200, all.body);
    assert.equal((await admin('PUT', '/collections/bad', { type: 'meta' })).statusCode, 400);
    assert.equal(
      (await admin('PUT', '/collections/bad', { type: 'meta', members: ['nope'] })).statusCode,
      404,
    );
    assert.equal((await admin('PUT', '/collections/bad', { type: 'other' })).statusCode, 400);
    assert.equal((await admin('PUT', '/collections/bad%20name', { type: 'push' })).statusCode, 400);

    const push = await t.app.inject({
      method: 'PUT',
      url: '/push-api/v1/collections/news/documents?key=http%3A%2F%2Fnews.example%2F1',
      headers: { authorization: ADMIN_AUTH, 'content-type': 'text/plain' },
      payload: 'breaking',
    });
    assert.equal(push.statusCode, 200);
    const commit = await t.app.inject({
      method: 'POST',
      url: '/push-api/v1/collections/news/commit',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(commit.statusCode, 200);

    const list = await admin('GET', '/collections');
    assert.equal(list.statusCode, 200);
    const collections = list.json<{
      collections: {
        name: string;
        type: string;
        state: string;
        documents?: number;
        generations?: number;
        members?: string[];
      }[];
    }>().collections;
    assert.deepEqual(
      collections.map((c) => [c.name, c.type]),
      [
        ['all', 'meta'],
        ['blogs', 'push'],
        ['news', 'push'],
      ],
    );
    const listedNews = collections.find((c) => c.name === 'news')!;
    assert.equal(listedNews.state, 'RUNNING');
    assert.equal(listedNews.documents, 1);
    assert.equal(listedNews.generations, 1);
    assert.deepEqual(collections.find((c) => c.name === 'all')!.members, ['news', 'blogs']);
    // One collection: the same view as its line in the list.
    const one = await admin('GET', '/collections/news');
    assert.equal(one.statusCode, 200, one.body);
    assert.deepEqual(one.json<{ collection: unknown }>().collection, listedNews);
    assert.deepEqual(
      (await admin('GET', '/collections/all')).json<{ collection: { members: string[] } }>().collection
        .members,
      ['news', 'blogs'],
    );
    const absent = await admin('GET', '/collections/nope');
    assert.equal(absent.statusCode, 404);
    assert.equal(absent.json<{ error: string }>().error, 'COLLECTION_NOT_FOUND');

    assert.equal((await admin('DELETE', '/collections/blogs')).statusCode, 200);
    assert.equal(existsSync(join(t.home, 'conf', 'blogs')), false);
    assert.equal(existsSync(join(t.home, 'data', 'blogs')), false);
    assert.equal((await admin('DELETE', '/collections/blogs')).statusCode, 404);
  });

  it('reads and writes the configuration files; a bad line is refused naming file and line, and nothing is written', async () => {
    assert.equal((await admin('PUT', '/collections/conf', { type: 'push' })).statusCode, 200);
    const read = await admin('GET', '/collections/conf/config');
    assert.equal(read.statusCode, 200);
    const files = read.json<{ files: Record<string, string | null> }>().files;
    assert.match(files['collection.cfg']!, /collection_type=push/);
    // A new push collection starts with the default mapping of the common metadata names.
    assert.match(files['metamap.cfg']!, /^t,0,title$/m);
    assert.equal(files['xml.cfg'], null);

    const good = {
      'collection.cfg': `${files['collection.cfg']}push.auto-commit.timeout-seconds=5\n`,
      'metamap.cfg': 'author,0,author\n',
      'xml.cfg': 'PADRE XML Mapping Version: 2\ntitle,1,,/record/title\n',
      'gscopes.cfg': 'news https?://news\\.example/\n',
      'qie.cfg': '0.9 ^https://important\\.example/\n',
    };
    const written = await admin('PUT', '/collections/conf/config', { files: good });
    assert.equal(written.statusCode, 200, written.body);
    for (const [file, text] of Object.entries(good)) {
      assert.equal(readFileSync(join(t.home, 'conf', 'conf', file), 'utf8'), text, file);
    }

    const cases: [string, string, RegExp][] = [
      ['metamap.cfg', 'author,0,author\nFUNbad,0,x\n', /metamap\.cfg line 2/],
      ['collection.cfg', 'collection_type=push\nno equals sign here\n', /collection\.cfg line 2/],
      [
        'collection.cfg',
        'collection_type=push\npush.max-generations=1\n',
        /collection\.cfg.*push\.max-generations/,
      ],
      ['collection.cfg', 'collection_type=meta\n', /collection_type cannot change/],
      ['xml.cfg', 'not the header\n', /xml\.cfg line 1/],
      ['gscopes.cfg', 'ok ^a\nbad-id! ^b\n', /gscopes\.cfg line 2/],
      ['qie.cfg', '0.5 ^a\n7 ^b\n', /qie\.cfg line 2/],
    ];
    for (const [file, text, message] of cases) {
      // A valid file beside the bad one is not written either.
      const response = await admin('PUT', '/collections/conf/config', {
        files: { 'qie.cfg': '0.1 ^x\n', [file]: text },
      });
      assert.equal(response.statusCode, 400, `${file}: ${response.body}`);
      const body = response.json<{ error: string; message: string }>();
      assert.equal(body.error, 'CONFIG_INVALID');
      assert.match(body.message, message);
      for (const [name, expected] of Object.entries(good)) {
        assert.equal(
          readFileSync(join(t.home, 'conf', 'conf', name), 'utf8'),
          expected,
          `${name} unchanged after a bad ${file}`,
        );
      }
    }
    assert.equal(
      (await admin('PUT', '/collections/conf/config', { files: { 'other.cfg': 'x' } })).statusCode,
      400,
    );
    assert.equal(
      (await admin('PUT', '/collections/conf/config', { files: { 'collection.cfg': null } })).statusCode,
      400,
    );
    const removed = await admin('PUT', '/collections/conf/config', { files: { 'qie.cfg': null } });
    assert.equal(removed.statusCode, 200);
    assert.equal(existsSync(join(t.home, 'conf', 'conf', 'qie.cfg')), false);
    assert.equal((await admin('GET', '/collections/missing/config')).statusCode, 404);
  });

  it('creates, replaces, lists and deletes users; bad input is refused', async () => {
    const created = await admin('PUT', '/users/editor', {
      password: 'editor-password',
      permissions: ['sec.continuous.rest'],
      collections: ['news'],
    });
    assert.equal(created.statusCode, 200, created.body);
    assert.equal(created.json<{ created: boolean }>().created, true);
    const replaced = await admin('PUT', '/users/editor', {
      permissions: ['sec.continuous.rest'],
      collections: ['news', 'conf'],
    });
    assert.equal(replaced.json<{ created: boolean; user: { collections: string[] } }>().created, false);
    assert.deepEqual(replaced.json<{ user: { collections: string[] } }>().user.collections, ['conf', 'news']);
    // The password stayed.
    const state = await t.app.inject({
      method: 'GET',
      url: '/push-api/v1/collections/conf/state',
      headers: { authorization: basicAuth('editor', 'editor-password') },
    });
    assert.equal(state.statusCode, 200);

    const refusals: [string, object, string][] = [
      ['/users/newbie', { permissions: [], collections: [] }, 'PASSWORD_INVALID'],
      ['/users/newbie', { password: 'short', permissions: [], collections: [] }, 'PARAMETER_INVALID'],
      [
        '/users/newbie',
        { password: 'long-enough', permissions: ['sec.everything'], collections: [] },
        'PARAMETER_INVALID',
      ],
      [
        '/users/newbie',
        { password: 'long-enough', permissions: [], collections: ['../x'] },
        'COLLECTION_NAME_INVALID',
      ],
      ['/users/editor', { pasword: 'typo-password', permissions: [], collections: [] }, 'PARAMETER_INVALID'],
      [
        '/users/bad%20name',
        { password: 'long-enough', permissions: [], collections: [] },
        'USER_NAME_INVALID',
      ],
    ];
    for (const [url, body, code] of refusals) {
      const response = await admin('PUT', url, body);
      assert.equal(response.statusCode, 400, `${url} ${JSON.stringify(body)}: ${response.body}`);
      assert.equal(response.json<{ error: string }>().error, code);
    }
    const users = (await admin('GET', '/users'))
      .json<{ users: { name: string }[] }>()
      .users.map((u) => u.name);
    assert.deepEqual(users, ['admin', 'editor']);
    const editor = await admin('GET', '/users/editor');
    assert.equal(editor.statusCode, 200, editor.body);
    assert.deepEqual(
      (({ name, permissions, collections }) => ({ name, permissions, collections }))(
        editor.json<{ user: { name: string; permissions: string[]; collections: string[] } }>().user,
      ),
      { name: 'editor', permissions: ['sec.continuous.rest'], collections: ['conf', 'news'] },
    );
    assert.doesNotMatch(editor.body, /password|scrypt/i, 'never the password or its hash');
    assert.equal((await admin('GET', '/users/nobody')).json<{ error: string }>().error, 'USER_NOT_FOUND');
    assert.equal((await admin('DELETE', '/users/editor')).statusCode, 200);
    assert.equal((await admin('DELETE', '/users/editor')).json<{ error: string }>().error, 'USER_NOT_FOUND');
    assert.equal((await admin('DELETE', '/users/editor/tokens')).statusCode, 404);
  });
});

describe('search.public=false with users', () => {
  it('anonymous: 401; a user without the collection: 403; a user with it (any permission): 200; public collections stay open', async () => {
    const t = await securityApp(['closed', 'open']);
    try {
      await t.putUser('reader', { password: 'reader-password', permissions: [], collections: ['closed'] });
      await t.putUser('outsider', { password: 'outsider-password', permissions: [], collections: ['open'] });
      const cfg = await t.app.inject({
        method: 'PUT',
        url: '/admin-api/v1/collections/closed/config',
        headers: { authorization: ADMIN_AUTH },
        payload: { files: { 'collection.cfg': 'collection_type=push\nsearch.public=false\n' } },
      });
      assert.equal(cfg.statusCode, 200, cfg.body);
      const search = (collection: string, headers: Record<string, string> = {}) =>
        t.app.inject({ method: 'GET', url: `/s/search.json?collection=${collection}&query=x`, headers });
      const anonymous = await search('closed');
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.headers['www-authenticate'], 'Basic realm="search"');
      assert.equal(
        (await search('closed', { authorization: basicAuth('outsider', 'outsider-password') })).statusCode,
        403,
      );
      assert.equal(
        (await search('closed', { authorization: basicAuth('reader', 'reader-password') })).statusCode,
        200,
      );
      const token = await t.login('reader', 'reader-password');
      assert.equal((await search('closed', { 'x-security-token': token })).statusCode, 200);
      assert.equal((await search('open')).statusCode, 200);
    } finally {
      await t.close();
    }
  });
});
