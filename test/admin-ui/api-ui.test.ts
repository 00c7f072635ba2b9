import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH, testApp, type TestApp } from '../http/helpers.js';

type Operation = {
  tags?: string[];
  security?: unknown[];
  requestBody?: { content: Record<string, unknown> };
  parameters?: { name: string; in: string; required?: boolean }[];
};
type OpenApi = {
  openapi: string;
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }>;
  };
  security: Record<string, unknown>[];
};

describe('API UI and its OpenAPI document', () => {
  let app: TestApp;
  let doc: OpenApi;

  before(async () => {
    app = await testApp(['docs']);
    const response = await app.app.inject({
      method: 'GET',
      url: '/search/admin/api-ui/openapi.json',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(response.statusCode, 200);
    doc = response.json<OpenApi>();
  });
  after(() => app.close());

  it('documents every push route under v1 and v2 with the spec sections as tags', () => {
    assert.match(doc.openapi, /^3\./);
    const tags = doc.tags.map((t) => t.name);
    assert.ok(tags.includes('push-api') && tags.includes('push-api-collection'));
    for (const version of ['v1', 'v2']) {
      const documents = doc.paths[`/push-api/${version}/collections/{collection}/documents`]!;
      assert.deepEqual(Object.keys(documents).sort(), ['delete', 'get', 'put']);
      assert.deepEqual(documents.put!.tags, ['push-api']);
      // The validating schema is the source: key is a required query parameter.
      assert.ok(
        documents.put!.parameters!.some((p) => p.name === 'key' && p.in === 'query' && p.required === true),
      );
      assert.ok('text/html' in documents.put!.requestBody!.content, 'try it out can send a document body');
      assert.ok(
        'multipart/form-data' in
          doc.paths[`/push-api/${version}/collections/{collection}/documents/content-and-metadata`]!.post!
            .requestBody!.content,
      );
      for (const path of ['/commit', '/vacuum', '/state', '/state/stop', '/snapshot/{name}', '/click-logs']) {
        const operations = doc.paths[`/push-api/${version}/collections/{collection}${path}`];
        assert.ok(operations, `${version} ${path} is documented`);
        for (const operation of Object.values(operations))
          assert.deepEqual(operation.tags, ['push-api-collection'], path);
      }
      for (const path of ['/upgrade/prepare', '/upgrade/prepare/status']) {
        assert.deepEqual(doc.paths[`/push-api/${version}${path}`]!.post!.tags, ['push-api-collection']);
      }
      const vacuum = doc.paths[`/push-api/${version}/collections/{collection}/vacuum`]!.post!;
      assert.ok(vacuum.parameters!.some((p) => p.name === 'vacuum-type' && p.required === true));
    }
    assert.ok(doc.paths['/admin-api/v1/users/{name}']);
    // Only the APIs: no UI pages.
    assert.ok(
      Object.keys(doc.paths).every((path) => path.startsWith('/push-api/') || path.startsWith('/admin-api/')),
    );
  });

  it('declares Basic and X-Security-Token security; login needs none', () => {
    assert.deepEqual(doc.components.securitySchemes.token, {
      type: 'apiKey',
      in: 'header',
      name: 'X-Security-Token',
      description: 'From POST /admin-api/account/v1/login.',
    });
    assert.equal(doc.components.securitySchemes.basic!.scheme, 'basic');
    assert.deepEqual(doc.security, [{ token: [] }, { basic: [] }]);
    assert.deepEqual(doc.paths['/admin-api/account/v1/login']!.post!.security, []);
  });

  it('needs a user; a browser without a session goes to the login page; assets are local', async () => {
    assert.equal(
      (await app.app.inject({ method: 'GET', url: '/search/admin/api-ui/openapi.json' })).statusCode,
      401,
    );
    const page = await app.app.inject({ method: 'GET', url: '/search/admin/api-ui/' });
    assert.equal(page.statusCode, 303);
    assert.equal(page.headers.location, '/search/admin/login?next=%2Fsearch%2Fadmin%2Fapi-ui%2F');
    const ui = await app.app.inject({
      method: 'GET',
      url: '/search/admin/api-ui/',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(ui.statusCode, 200);
    assert.ok(!/https?:\/\//.test(ui.body.replace(/<!--.*?-->/gs, '')), 'no asset from another origin');
    assert.match(String(ui.headers['content-security-policy']), /script-src 'self';/);
    const bundle = await app.app.inject({
      method: 'GET',
      url: '/search/admin/api-ui/static/swagger-ui-bundle.js',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(bundle.statusCode, 200);
  });

  it('hands the session token only to a logged-in browser asking with the API UI header', async () => {
    const login = await app.app.inject({
      method: 'POST',
      url: '/search/admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'username=admin&password=test-admin-password',
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const without = await app.app.inject({
      method: 'GET',
      url: '/search/admin/api-ui/session-token',
      headers: { cookie },
    });
    assert.equal(without.statusCode, 403);
    const answer = await app.app.inject({
      method: 'GET',
      url: '/search/admin/api-ui/session-token',
      headers: { cookie, 'x-requested-with': 'pushsearch-api-ui' },
    });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.json<{ token: string }>().token, cookie.split('=')[1]);
    const basic = await app.app.inject({
      method: 'GET',
      url: '/search/admin/api-ui/session-token',
      headers: { authorization: ADMIN_AUTH, 'x-requested-with': 'pushsearch-api-ui' },
    });
    assert.equal(basic.statusCode, 401, 'Basic credentials are no browser session');
  });
});
