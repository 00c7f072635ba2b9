import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { SearchError } from '../../src/errors.js';
import {
  VERSIONS,
  commit,
  getDocument,
  keyQuery,
  multipartBody,
  putDocument,
  route,
  state,
  testApp,
  type TestApp,
  isAbsent,
} from './helpers.js';
import { errorOf } from '../support/response-body.js';

/** The fields of a push.log line (pino JSON) that these tests read. */
interface PushLogEntry {
  requestId?: string;
  collection?: string;
  err?: { message: string; stack?: unknown };
}

/** Every error answer has exactly the documented shape and never a stack trace. */
function assertError(response: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body);
  const body = response.json<Record<string, unknown>>();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'status']);
  assert.equal(body.status, status);
  assert.equal(body.error, code);
  assert.equal(typeof body.message, 'string');
  assert.doesNotMatch(String(body.message), /\n\s+at /);
}

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<lolz>&lol9;</lolz>`;

for (const v of VERSIONS) {
  describe(`push API ${v}: bad input changes nothing and the next request works`, () => {
    let t: TestApp;
    before(async () => {
      t = await testApp(['c'], { global: ['push.max-request-bytes=4096'] });
      await putDocument(t.app, v, 'c', 'local:existing', 'existing');
      await commit(t.app, v, 'c');
    });
    after(async () => {
      await t.close();
    });

    /** Runs a bad request, checks its error, that nothing is staged, and that a valid PUT still works. */
    async function refusedThenOk(
      bad: () => Promise<LightMyRequestResponse>,
      status: number,
      code: string,
      key?: string,
    ): Promise<void> {
      const before = (await state(t.app, v, 'c')).json();
      assertError(await bad(), status, code);
      const afterState = (await state(t.app, v, 'c')).json();
      assert.equal(afterState.stagedChanges, before.stagedChanges, 'nothing staged');
      assert.equal(afterState.documents, before.documents, 'no document changed');
      if (key !== undefined)
        assert.ok(isAbsent(await getDocument(t.app, v, 'c', key)), `${key} must not be stored`);
      const ok = await putDocument(t.app, v, 'c', 'local:valid-after', 'fine');
      assert.equal(ok.statusCode, 200, ok.body);
      await t.app.inject({
        method: 'DELETE',
        url: route(v, 'c', `/documents${keyQuery('local:valid-after')}`),
      });
      await commit(t.app, v, 'c');
    }

    const multipart = (key: string, contentType: string, body: Buffer | string) => () =>
      t.app.inject({
        method: 'POST',
        url: route(v, 'c', `/documents/content-and-metadata${keyQuery(key)}`),
        headers: { 'content-type': contentType },
        payload: body,
      });

    it('broken multipart bodies: 400 MULTIPART_INVALID', async () => {
      const good = multipartBody('b1', [
        { headers: { 'Content-Disposition': 'form-data; name="content"' }, body: 'x' },
      ]);
      const truncated = good.subarray(0, good.length - 8);
      await refusedThenOk(
        multipart('local:mp1', 'multipart/form-data; boundary=b1', truncated),
        400,
        'MULTIPART_INVALID',
        'local:mp1',
      );
      await refusedThenOk(
        multipart('local:mp2', 'multipart/form-data', good),
        400,
        'MULTIPART_INVALID',
        'local:mp2',
      );
      await refusedThenOk(
        multipart('local:mp3', 'multipart/form-data; boundary=other', good),
        400,
        'MULTIPART_INVALID',
        'local:mp3',
      );
      const noContent = multipartBody('b1', [
        {
          headers: {
            'Content-Disposition': 'form-data; name="metadata"',
            'Content-Type': 'application/json',
          },
          body: '{}',
        },
      ]);
      await refusedThenOk(
        multipart('local:mp4', 'multipart/form-data; boundary=b1', noContent),
        400,
        'MULTIPART_INVALID',
        'local:mp4',
      );
      const typo = multipartBody('b1', [
        { headers: { 'Content-Disposition': 'form-data; name="content"' }, body: 'x' },
        { headers: { 'Content-Disposition': 'form-data; name="metdata"' }, body: '{}' },
      ]);
      await refusedThenOk(
        multipart('local:mp5', 'multipart/form-data; boundary=b1', typo),
        400,
        'MULTIPART_INVALID',
        'local:mp5',
      );
      await refusedThenOk(
        multipart('local:mp6', 'text/plain', 'not multipart'),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'local:mp6',
      );
    });

    it('metadata part: invalid UTF-8, invalid JSON, wrong shape: 400 METADATA_INVALID', async () => {
      const withMetadata = (metadata: Buffer | string) =>
        multipartBody('b2', [
          {
            headers: { 'Content-Disposition': 'form-data; name="content"', 'Content-Type': 'text/plain' },
            body: 'content',
          },
          {
            headers: {
              'Content-Disposition': 'form-data; name="metadata"',
              'Content-Type': 'application/json',
            },
            body: metadata,
          },
        ]);
      const badUtf8 = Buffer.concat([
        Buffer.from('{"Author": "'),
        Buffer.from([0xc3, 0x28, 0xff]),
        Buffer.from('"}'),
      ]);
      await refusedThenOk(
        multipart('local:md1', 'multipart/form-data; boundary=b2', withMetadata(badUtf8)),
        400,
        'METADATA_INVALID',
        'local:md1',
      );
      await refusedThenOk(
        multipart('local:md2', 'multipart/form-data; boundary=b2', withMetadata('{"Author": ')),
        400,
        'METADATA_INVALID',
        'local:md2',
      );
      await refusedThenOk(
        multipart('local:md3', 'multipart/form-data; boundary=b2', withMetadata('["a"]')),
        400,
        'METADATA_INVALID',
        'local:md3',
      );
      await refusedThenOk(
        multipart('local:md4', 'multipart/form-data; boundary=b2', withMetadata('{"n": 5}')),
        400,
        'METADATA_INVALID',
        'local:md4',
      );
    });

    it('a metadata header without a name: 400 METADATA_INVALID', async () => {
      await refusedThenOk(
        () =>
          putDocument(t.app, v, 'c', 'local:mh', 'x', {
            'content-type': 'text/plain',
            'x-service-push-metadata-': 'v',
          }),
        400,
        'METADATA_INVALID',
        'local:mh',
      );
    });

    it('a body over push.max-request-bytes: 413 BODY_TOO_LARGE', async () => {
      await refusedThenOk(
        () => putDocument(t.app, v, 'c', 'local:big', 'x'.repeat(5000)),
        413,
        'BODY_TOO_LARGE',
        'local:big',
      );
      const body = multipartBody('b3', [
        { headers: { 'Content-Disposition': 'form-data; name="content"' }, body: 'y'.repeat(5000) },
      ]);
      await refusedThenOk(
        multipart('local:big-mp', 'multipart/form-data; boundary=b3', body),
        413,
        'BODY_TOO_LARGE',
        'local:big-mp',
      );
      // Just under the limit is fine.
      assert.equal((await putDocument(t.app, v, 'c', 'local:just-fits', 'z'.repeat(4096))).statusCode, 200);
    });

    it('unknown collection: 404 COLLECTION_NOT_FOUND on every route', async () => {
      const routes: [string, string][] = [
        ['PUT', `/documents${keyQuery('local:x')}`],
        ['GET', `/documents${keyQuery('local:x')}`],
        ['DELETE', `/documents${keyQuery('local:x')}`],
        ['POST', `/documents/content-and-metadata${keyQuery('local:x')}`],
        ['PUT', `/redirects${keyQuery('local:x', { target: 'local:y' })}`],
        ['POST', '/commit'],
        ['POST', '/vacuum?vacuum-type=MERGE'],
        ['PUT', '/snapshot/s'],
        ['GET', '/snapshot'],
        ['DELETE', '/snapshot/s'],
        ['POST', '/restore/from-snapshot/s'],
        ['GET', '/state'],
        ['POST', '/state/stop'],
      ];
      for (const [method, rest] of routes) {
        const response = await t.app.inject({
          method: method as 'GET',
          url: route(v, 'nope', rest),
          headers: { 'content-type': 'text/plain' },
          payload: method === 'GET' ? undefined : 'x',
        });
        assertError(response, 404, 'COLLECTION_NOT_FOUND');
      }
      assert.equal(existsSync(join(t.home, 'data', 'nope')), false);
    });

    it('paths the router cannot read (bad percent-encoding, over-long names): 400 in the usual form, with a request id', async () => {
      for (const path of ['%zz', '%C3', '%FF%FE', 'a'.repeat(300)]) {
        await refusedThenOk(() => putDocument(t.app, v, path, 'local:x', 'x'), 400, 'PARAMETER_INVALID');
        const response = await t.app.inject({ method: 'GET', url: route(v, path, '/state') });
        assertError(response, 400, 'PARAMETER_INVALID');
        assert.match(String(response.headers['x-request-id']), /\S/);
      }
      const snapshot = await t.app.inject({
        method: 'PUT',
        url: route(v, 'c', `/snapshot/${'s'.repeat(300)}`),
      });
      assertError(snapshot, 400, 'PARAMETER_INVALID');
      assert.match(snapshot.json<{ message: string }>().message, /longer than 256 characters/);
    });

    it('"../" in collection or snapshot names: 400, nothing created outside', async () => {
      const before = readdirSync(t.home).sort();
      // inject() resolves "/../" and "/%2E%2E/" path segments as WHATWG URLs do; server.test.ts sends them raw.
      for (const name of ['..%2F..%2Fetc', '.hidden', 'a%2Fb', '..%5C..%5Cwin']) {
        await refusedThenOk(
          () => putDocument(t.app, v, name, 'local:x', 'x'),
          400,
          'COLLECTION_NAME_INVALID',
        );
        assertError(
          await t.app.inject({ method: 'GET', url: route(v, name, '/state') }),
          400,
          'COLLECTION_NAME_INVALID',
        );
      }
      for (const name of ['..%2F..%2Fescape', '..%2F', 'a%2F..%2F..%2Fb']) {
        await refusedThenOk(
          () => t.app.inject({ method: 'PUT', url: route(v, 'c', `/snapshot/${name}`) }),
          400,
          'SNAPSHOT_NAME_INVALID',
        );
        assertError(
          await t.app.inject({ method: 'DELETE', url: route(v, 'c', `/snapshot/${name}`) }),
          400,
          'SNAPSHOT_NAME_INVALID',
        );
        assertError(
          await t.app.inject({ method: 'POST', url: route(v, 'c', `/restore/from-snapshot/${name}`) }),
          400,
          'SNAPSHOT_NAME_INVALID',
        );
      }
      assert.deepEqual(readdirSync(t.home).sort(), before);
      assert.deepEqual(readdirSync(join(t.home, 'data')).sort(), ['c']);
      assert.equal(existsSync(join(t.home, 'data', 'c', 'escape')), false);
    });

    it('an XML entity bomb: 400 FILTER_FAILED, nothing stored', async () => {
      await refusedThenOk(
        () => putDocument(t.app, v, 'c', 'local:bomb', BILLION_LAUGHS, { 'content-type': 'application/xml' }),
        400,
        'FILTER_FAILED',
        'local:bomb',
      );
      const asPart = multipartBody('b4', [
        {
          headers: { 'Content-Disposition': 'form-data; name="content"', 'Content-Type': 'application/xml' },
          body: BILLION_LAUGHS,
        },
      ]);
      await refusedThenOk(
        multipart('local:bomb-mp', 'multipart/form-data; boundary=b4', asPart),
        400,
        'FILTER_FAILED',
        'local:bomb-mp',
      );
    });

    it('bad keys: missing, no scheme, too long, forbidden scheme', async () => {
      await refusedThenOk(
        () =>
          t.app.inject({
            method: 'PUT',
            url: route(v, 'c', '/documents'),
            payload: 'x',
            headers: { 'content-type': 'text/plain' },
          }),
        400,
        'KEY_MISSING',
      );
      await refusedThenOk(() => putDocument(t.app, v, 'c', '/relative/path', 'x'), 400, 'KEY_INVALID');
      await refusedThenOk(() => putDocument(t.app, v, 'c', 'javascript:alert(1)', 'x'), 400, 'KEY_INVALID');
      await refusedThenOk(
        () => putDocument(t.app, v, 'c', 'http://a.example/' + 'x'.repeat(2000), 'x'),
        400,
        'KEY_TOO_LONG',
      );
    });

    it('unknown routes answer 404 NOT_FOUND as JSON', async () => {
      assertError(
        await t.app.inject({ method: 'GET', url: '/push-api/v3/collections/c/state' }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await t.app.inject({ method: 'PATCH', url: route(v, 'c', '/documents') }),
        404,
        'NOT_FOUND',
      );
      assertError(await t.app.inject({ method: 'GET', url: '/nothing-here' }), 404, 'NOT_FOUND');
    });

    it('a malformed Content-Type: 415; a body on a route without one is ignored', async () => {
      await refusedThenOk(
        () => putDocument(t.app, v, 'c', 'local:ct', 'x', { 'content-type': 'not a media type' }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'local:ct',
      );
      const commitWithJson = await t.app.inject({
        method: 'POST',
        url: route(v, 'c', '/commit'),
        headers: { 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(commitWithJson.statusCode, 200, commitWithJson.body);
    });
  });
}

describe('errors that are ours', () => {
  it('an unexpected error answers 500 INTERNAL without its text, and push.log gets it with the request id', async () => {
    const t = await testApp(['c'], {
      authenticate: () => {
        throw new Error('secret detail /etc/passwd');
      },
    });
    try {
      const response = await t.app.inject({
        method: 'GET',
        url: route('v1', 'c', '/state'),
        headers: { 'x-request-id': 'req-500' },
      });
      assertError(response, 500, 'INTERNAL');
      assert.doesNotMatch(response.body, /secret|passwd/);
      assert.match(errorOf(response).message, /req-500/);
      const log = readFileSync(join(t.home, 'web', 'log', 'push.log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as PushLogEntry);
      const entry = log.find((e) => e.requestId === 'req-500');
      assert.ok(entry, 'push.log has the request');
      assert.equal(entry.collection, 'c');
      assert.ok(entry.err, 'with the error');
      assert.match(entry.err.message, /secret detail/);
      assert.equal(typeof entry.err.stack, 'string');
    } finally {
      await t.close();
    }
  });

  it('the authentication hook runs first on every push route; UNAUTHENTICATED answers 401 with WWW-Authenticate', async () => {
    const seen: (string | undefined)[] = [];
    const t = await testApp(['c'], {
      authenticate: (request, collection) => {
        seen.push(collection);
        if (request.headers.authorization !== 'Basic ok')
          throw new SearchError('UNAUTHENTICATED', 'log in first');
      },
    });
    try {
      const refused = await putDocument(t.app, 'v2', 'c', 'local:a', 'x');
      assertError(refused, 401, 'UNAUTHENTICATED');
      assert.equal(refused.headers['www-authenticate'], 'Basic realm="search"');
      assert.equal((await state(t.app, 'v2', 'c')).statusCode, 401);
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/push-api/v1/upgrade/prepare/status' })).statusCode,
        401,
      );
      const allowed = await putDocument(t.app, 'v2', 'c', 'local:a', 'x', {
        'content-type': 'text/plain',
        authorization: 'Basic ok',
      });
      assert.equal(allowed.statusCode, 200);
      assert.deepEqual(seen, ['c', 'c', undefined, 'c']);
    } finally {
      await t.close();
    }
  });
});
