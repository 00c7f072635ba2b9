import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ADMIN_AUTH, testApp, type TestApp } from '../http/helpers.js';

type Operation = {
  tags?: string[];
  security?: unknown[];
  requestBody?: { content: Record<string, { example?: unknown; schema?: unknown }> };
  parameters?: { name: string; in: string; required?: boolean; example?: unknown }[];
  responses?: Record<string, { content?: Record<string, { example?: unknown; schema?: unknown }> }>;
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
    // The APIs, search and operations; no UI pages.
    assert.ok(
      Object.keys(doc.paths).every((path) =>
        /^\/(push-api|admin-api|s)\/|^\/(health|ready|metrics)$/.test(path),
      ),
      Object.keys(doc.paths).join(' '),
    );
  });

  it('is a valid OpenAPI 3.0 document (checked by an OpenAPI schema validator)', async () => {
    assert.equal(doc.openapi, '3.0.3');
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(result.valid, true);
    // What the validator refused before: a JSON Schema keyword that OpenAPI 3.0 lacks.
    assert.ok(!JSON.stringify(doc).includes('"propertyNames"'));
    const create =
      doc.paths['/admin-api/v1/collections/{collection}']!.put!.requestBody!.content['application/json']!;
    assert.equal((create.schema as { additionalProperties?: unknown }).additionalProperties, false);
  });

  it('documents search, health, readiness and metrics as public routes', () => {
    for (const path of ['/s/search.json', '/s/search.html', '/s/redirect', '/health', '/ready', '/metrics']) {
      assert.ok(doc.paths[path]?.get, `${path} is documented`);
    }
    const search = doc.paths['/s/search.json']!.get!;
    assert.deepEqual(search.tags, ['search']);
    assert.ok(search.security!.some((requirement) => Object.keys(requirement as object).length === 0));
    const names = search.parameters!.map((p) => p.name);
    for (const name of ['collection', 'query', 'start_rank', 'num_ranks', 'fmo', 'gscope1'])
      assert.ok(names.includes(name));
    assert.ok(search.parameters!.find((p) => p.name === 'collection')!.required);
    const packet = search.responses!['200']!.content!['application/json']!;
    assert.ok((packet.example as { response: unknown }).response, 'the result packet has an example');
    assert.deepEqual(doc.paths['/health']!.get!.security, []);
    assert.deepEqual(doc.paths['/health']!.get!.responses!['200']!.content!['application/json']!.example, {
      status: 'ok',
    });
    assert.ok(doc.paths['/ready']!.get!.responses!['503']);
    assert.ok(doc.paths['/metrics']!.get!.responses!['200']!.content!['text/plain']);
  });

  it('declares metadata headers and examples, so that "try it out" can send a whole document', () => {
    const put = doc.paths['/push-api/v2/collections/{collection}/documents']!.put!;
    const headers = put.parameters!.filter((p) => p.in === 'header').map((p) => p.name);
    for (const name of ['Title', 'Description', 'Author', 'Keywords', 'Date'])
      assert.ok(headers.includes(`X-Service-Push-Metadata-${name}`), name);
    assert.equal(put.parameters!.find((p) => p.name === 'key')!.example, 'https://example.com/guide/install');
    assert.equal(put.parameters!.find((p) => p.name === 'collection')!.example, 'docs');
    // Swagger UI fills examples into "try it out": optional parameters that change what is stored have none.
    for (const p of put.parameters!) if (!p.required) assert.equal(p.example, undefined, p.name);
    assert.match(String(put.requestBody!.content['text/html']!.example), /<title>/);
    const multipart = doc.paths['/push-api/v2/collections/{collection}/documents/content-and-metadata']!.post!
      .requestBody!.content['multipart/form-data']!.schema as {
      properties: { metadata: { example?: string } };
    };
    assert.ok(JSON.parse(multipart.properties.metadata.example!));
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
