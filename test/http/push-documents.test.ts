import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { StoredResponse } from '../../src/client/types.js';
import { errorOf } from '../support/response-body.js';
import {
  VERSIONS,
  commit,
  contentOf,
  getDocument,
  keyQuery,
  multipartBody,
  putDocument,
  route,
  testApp,
  type TestApp,
  isAbsent,
  pushedOf,
} from './helpers.js';

interface DocumentBody {
  key: string;
  pushContent: {
    content: string;
    contentType: string;
    metadata: Record<string, string[]>;
    receivedTime: string;
  };
  committed: boolean;
  redirect?: string;
}

function metadataIgnoringCase(doc: DocumentBody, name: string): string[] | undefined {
  const found = Object.keys(doc.pushContent.metadata).find((n) => n.toLowerCase() === name);
  return found === undefined ? undefined : doc.pushContent.metadata[found];
}

for (const v of VERSIONS) {
  describe(`push API ${v}: documents`, () => {
    let t: TestApp;
    before(async () => {
      t = await testApp(['docs']);
    });
    after(async () => {
      await t.close();
    });

    it('PUT stores a document: canonical key in the answer, GET shows it staged, then committed', async () => {
      const put = await putDocument(
        t.app,
        v,
        'docs',
        'HTTP://Example.COM',
        '<html><title>T</title>body</html>',
        {
          'content-type': 'text/html; charset=utf-8',
          'X-Service-Push-Metadata-Author': 'Ann Author',
          'X-Funnelback-Push-Meta-Data-Topic': 'compat',
        },
      );
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(put.json().storedKeys, ['http://example.com/']);
      assert.equal(typeof put.json().message, 'string');

      const staged = await getDocument(t.app, v, 'docs', 'http://example.com/');
      assert.equal(staged.statusCode, 200);
      const doc = staged.json<DocumentBody>();
      assert.equal(doc.key, 'http://example.com/');
      assert.equal(doc.committed, false);
      assert.equal(contentOf(staged), '<html><title>T</title>body</html>');
      assert.equal(doc.pushContent.contentType, 'text/html; charset=utf-8');
      // inject() lower-cases header names; server.test.ts checks the case over a real socket.
      assert.deepEqual(metadataIgnoringCase(doc, 'author'), ['Ann Author']);
      assert.deepEqual(metadataIgnoringCase(doc, 'topic'), ['compat']);
      assert.match(doc.pushContent.receivedTime, /^\d{14}\.\d{3}Z$/);
      assert.equal(doc.pushContent.receivedTime.length, 19);
      assert.deepEqual(doc.pushContent.metadata['X-Service-Push-Received-Time'], [
        doc.pushContent.receivedTime,
      ]);

      const committed = await commit(t.app, v, 'docs');
      assert.equal(committed.statusCode, 200, committed.body);
      assert.ok(committed.json().changes >= 1);
      assert.equal(typeof committed.json().generation, 'number');

      const live = await getDocument(t.app, v, 'docs', 'http://example.com');
      assert.equal(live.statusCode, 200);
      assert.equal(live.json().committed, true);
      assert.equal(contentOf(live), '<html><title>T</title>body</html>');
      assert.deepEqual(metadataIgnoringCase(live.json<DocumentBody>(), 'author'), ['Ann Author']);
    });

    it('PUT replaces the content at the same key', async () => {
      await putDocument(t.app, v, 'docs', 'local:replace-me', 'first');
      await commit(t.app, v, 'docs');
      await putDocument(t.app, v, 'docs', 'local:replace-me', 'second');
      const staged = await getDocument(t.app, v, 'docs', 'local:replace-me');
      assert.equal(contentOf(staged), 'second');
      assert.equal(staged.json().committed, false);
      await commit(t.app, v, 'docs');
      assert.equal(contentOf(await getDocument(t.app, v, 'docs', 'local:replace-me')), 'second');
    });

    it('keeps the body as raw bytes whatever the content type (JSON is content, not a request)', async () => {
      const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7b]);
      const put = await putDocument(t.app, v, 'docs', 'local:binary', bytes, {
        'content-type': 'application/octet-stream',
      });
      assert.equal(put.statusCode, 200, put.body);
      const got = await getDocument(t.app, v, 'docs', 'local:binary');
      assert.deepEqual(Buffer.from(pushedOf(got).content, 'base64'), bytes);

      const json = await putDocument(t.app, v, 'docs', 'local:json', '{"title": "a json document"}', {
        'content-type': 'application/json',
      });
      assert.equal(json.statusCode, 200, json.body);
      assert.equal(
        contentOf(await getDocument(t.app, v, 'docs', 'local:json')),
        '{"title": "a json document"}',
      );
    });

    it('PUT without a Content-Type stores application/octet-stream; an empty body is a document too', async () => {
      const put = await t.app.inject({
        method: 'PUT',
        url: route(v, 'docs', `/documents${keyQuery('local:no-type')}`),
        payload: 'plain words',
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal(
        pushedOf(await getDocument(t.app, v, 'docs', 'local:no-type')).contentType,
        'application/octet-stream',
      );

      const empty = await t.app.inject({
        method: 'PUT',
        url: route(v, 'docs', `/documents${keyQuery('local:empty')}`),
      });
      assert.equal(empty.statusCode, 200, empty.body);
      assert.equal(contentOf(await getDocument(t.app, v, 'docs', 'local:empty')), '');
    });

    it('keys: 2000 characters accepted, 2001 refused; fragment removed; dot segments resolved; no scheme refused', async () => {
      const prefix = 'http://long.example/';
      const k2000 = prefix + 'a'.repeat(2000 - prefix.length);
      assert.equal(k2000.length, 2000);
      const ok = await putDocument(t.app, v, 'docs', k2000, 'long');
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json().storedKeys, [k2000]);
      assert.equal((await getDocument(t.app, v, 'docs', k2000)).statusCode, 200);

      const tooLong = await putDocument(t.app, v, 'docs', k2000 + 'b', 'long');
      assert.equal(tooLong.statusCode, 400);
      assert.equal(errorOf(tooLong).error, 'KEY_TOO_LONG');
      assert.equal((await getDocument(t.app, v, 'docs', k2000 + 'b')).statusCode, 400);

      const fragment = await putDocument(t.app, v, 'docs', 'http://frag.example/page#section-2', 'fragment');
      assert.deepEqual(fragment.json().storedKeys, ['http://frag.example/page']);
      assert.equal(contentOf(await getDocument(t.app, v, 'docs', 'http://frag.example/page')), 'fragment');

      const dots = await putDocument(t.app, v, 'docs', 'http://dots.example/a/b/../c/./d', 'dots');
      assert.deepEqual(dots.json().storedKeys, ['http://dots.example/a/c/d']);
      assert.equal(contentOf(await getDocument(t.app, v, 'docs', 'http://dots.example/a/c/d')), 'dots');

      const noScheme = await putDocument(t.app, v, 'docs', 'example.com/page', 'x');
      assert.equal(noScheme.statusCode, 400);
      assert.equal(errorOf(noScheme).error, 'KEY_INVALID');
      assert.match(errorOf(noScheme).message, /scheme/);

      const missing = await t.app.inject({
        method: 'PUT',
        url: route(v, 'docs', '/documents'),
        payload: 'x',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(missing.statusCode, 400);
      assert.equal(errorOf(missing).error, 'KEY_MISSING');
    });

    it('GET of an absent key is 200 with pushContent null (as the original answers)', async () => {
      const response = await getDocument(t.app, v, 'docs', 'http://Absent.example');
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { key: 'http://absent.example/', pushContent: null });
    });

    it('DELETE is staged: GET finds nothing at once and after commit; DELETE of an absent key answers 200', async () => {
      await putDocument(t.app, v, 'docs', 'local:to-delete', 'bye');
      await commit(t.app, v, 'docs');
      const del = await t.app.inject({
        method: 'DELETE',
        url: route(v, 'docs', `/documents${keyQuery('local:to-delete')}`),
      });
      assert.equal(del.statusCode, 200, del.body);
      assert.deepEqual(del.json<StoredResponse>().storedKeys, ['local:to-delete']);
      assert.ok(isAbsent(await getDocument(t.app, v, 'docs', 'local:to-delete')));
      await commit(t.app, v, 'docs');
      assert.ok(isAbsent(await getDocument(t.app, v, 'docs', 'local:to-delete')));

      const absent = await t.app.inject({
        method: 'DELETE',
        url: route(v, 'docs', `/documents${keyQuery('local:never-there#x')}`),
      });
      assert.equal(absent.statusCode, 200);
      assert.deepEqual(absent.json<StoredResponse>().storedKeys, ['local:never-there']);
    });

    it('redirects: PUT makes the key a redirect to the target, DELETE removes it', async () => {
      await putDocument(t.app, v, 'docs', 'http://site.example/old', 'old content');
      const put = await t.app.inject({
        method: 'PUT',
        url: route(
          v,
          'docs',
          `/redirects${keyQuery('http://site.example/old', { target: 'http://site.example/new#top' })}`,
        ),
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(put.json<StoredResponse>().storedKeys, ['http://site.example/old']);
      await commit(t.app, v, 'docs');
      const got = await getDocument(t.app, v, 'docs', 'http://site.example/old');
      assert.equal(got.statusCode, 200);
      assert.equal(got.json().redirect, 'http://site.example/new');
      assert.equal(got.json().committed, true);

      const self = await t.app.inject({
        method: 'PUT',
        url: route(
          v,
          'docs',
          `/redirects${keyQuery('http://site.example/a', { target: 'http://site.example/a' })}`,
        ),
      });
      assert.equal(self.statusCode, 400);
      const noTarget = await t.app.inject({
        method: 'PUT',
        url: route(v, 'docs', `/redirects${keyQuery('http://site.example/a')}`),
      });
      assert.equal(noTarget.statusCode, 400);
      assert.equal(errorOf(noTarget).error, 'PARAMETER_INVALID');
      const badTarget = await t.app.inject({
        method: 'PUT',
        url: route(v, 'docs', `/redirects${keyQuery('http://site.example/a', { target: 'no scheme' })}`),
      });
      assert.equal(badTarget.statusCode, 400);
      assert.equal(errorOf(badTarget).error, 'KEY_INVALID');

      const del = await t.app.inject({
        method: 'DELETE',
        url: route(v, 'docs', `/redirects${keyQuery('http://site.example/old')}`),
      });
      assert.equal(del.statusCode, 200);
      await commit(t.app, v, 'docs');
      assert.ok(isAbsent(await getDocument(t.app, v, 'docs', 'http://site.example/old')));
    });

    it('content-and-metadata (form-data, POST and PUT): metadata keeps case, non-ASCII and line breaks', async () => {
      for (const method of ['POST', 'PUT'] as const) {
        const key = `local:multipart-${method}`;
        const metadata = {
          Author: 'Zoë Ünïcode 作者',
          author: ['lower', 'case'],
          'Multi-Line': 'first line\nsecond line\r\nthird',
        };
        const body = multipartBody('XyZ-boundary', [
          {
            headers: {
              'Content-Disposition': 'form-data; name="metadata"',
              'Content-Type': 'application/json',
            },
            body: JSON.stringify(metadata),
          },
          {
            headers: {
              'Content-Disposition': 'form-data; name="content"; filename="page.html"',
              'Content-Type': 'text/html',
            },
            body: '<p>hello</p>',
          },
        ]);
        const response = await t.app.inject({
          method,
          url: route(v, 'docs', `/documents/content-and-metadata${keyQuery(key)}`),
          headers: { 'content-type': 'multipart/form-data; boundary=XyZ-boundary' },
          payload: body,
        });
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json<StoredResponse>().storedKeys, [key]);
        const got = (await getDocument(t.app, v, 'docs', key)).json<DocumentBody>();
        assert.equal(Buffer.from(got.pushContent.content, 'base64').toString(), '<p>hello</p>');
        assert.equal(got.pushContent.contentType, 'text/html');
        assert.deepEqual(got.pushContent.metadata.Author, ['Zoë Ünïcode 作者']);
        assert.deepEqual(got.pushContent.metadata.author, ['lower', 'case']);
        assert.deepEqual(got.pushContent.metadata['Multi-Line'], ['first line\nsecond line\r\nthird']);
      }
    });

    it('content-and-metadata (multipart/mixed without names): the JSON part is the metadata', async () => {
      const body = multipartBody('mixed42', [
        { headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'mixed content' },
        { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '{"Source": ["CMS"]}' },
      ]);
      const response = await t.app.inject({
        method: 'POST',
        url: route(v, 'docs', `/documents/content-and-metadata${keyQuery('local:mixed')}`),
        headers: { 'content-type': 'multipart/mixed; boundary=mixed42' },
        payload: body,
      });
      assert.equal(response.statusCode, 200, response.body);
      const got = (await getDocument(t.app, v, 'docs', 'local:mixed')).json<DocumentBody>();
      assert.equal(Buffer.from(got.pushContent.content, 'base64').toString(), 'mixed content');
      assert.equal(got.pushContent.contentType, 'text/plain; charset=utf-8');
      assert.deepEqual(got.pushContent.metadata.Source, ['CMS']);
    });

    it('the filters parameter chooses the filter chain; an unknown filter is 400 and stores nothing', async () => {
      const ok = await t.app.inject({
        method: 'PUT',
        url: route(v, 'docs', `/documents${keyQuery('local:filtered', { filters: 'Html' })}`),
        headers: { 'content-type': 'text/plain' },
        payload: '<title>x</title>',
      });
      assert.equal(ok.statusCode, 200, ok.body);
      const bad = await t.app.inject({
        method: 'PUT',
        url: route(v, 'docs', `/documents${keyQuery('local:bad-filter', { filters: 'NoSuchFilter' })}`),
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(errorOf(bad).error, 'FILTER_UNKNOWN');
      assert.ok(isAbsent(await getDocument(t.app, v, 'docs', 'local:bad-filter')));
    });

    it('answers with an X-Request-Id, echoing a valid one the client sent', async () => {
      const own = await t.app.inject({
        method: 'GET',
        url: route(v, 'docs', '/state'),
        headers: { 'x-request-id': 'client-req-7' },
      });
      assert.equal(own.headers['x-request-id'], 'client-req-7');
      const generated = await t.app.inject({
        method: 'GET',
        url: route(v, 'docs', '/state'),
        headers: { 'x-request-id': 'bad id\twith tab' },
      });
      assert.match(String(generated.headers['x-request-id']), /^[0-9a-f]+-[0-9a-z]+$/);
    });
  });
}
