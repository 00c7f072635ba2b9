/**
 * CORS for the search API: a page of an allowed origin (conf/global.cfg cors.allowed-origins)
 * may call /s/search.json, preflights are answered; other origins and the push and admin
 * APIs get no CORS headers; without the setting nothing changes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/http/build-app.js';
import { commit, putDocument, tempHome, testApp, TEST_SECURITY, writeGlobalCfg } from './helpers.js';

const SHOP = 'https://shop.example';

describe('CORS', () => {
  it('an allowed origin may search (preflight answered, X-Security-Token allowed); other origins and the push API get nothing', async () => {
    const t = await testApp(['docs'], { global: [`cors.allowed-origins=${SHOP}, http://localhost:3000`] });
    try {
      await putDocument(t.app, 'v1', 'docs', 'local:a', 'lanterns');
      await commit(t.app, 'v1', 'docs');
      const search = await t.app.inject({
        method: 'GET',
        url: '/s/search.json?collection=docs&query=lanterns',
        headers: { origin: SHOP },
      });
      assert.equal(search.statusCode, 200);
      assert.equal(search.headers['access-control-allow-origin'], SHOP);
      assert.match(String(search.headers.vary), /Origin/i);

      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: '/s/search.json?collection=docs&query=lanterns',
        headers: {
          origin: 'http://localhost:3000',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-security-token',
        },
      });
      assert.equal(preflight.statusCode, 204, preflight.body);
      assert.equal(preflight.headers['access-control-allow-origin'], 'http://localhost:3000');
      assert.match(String(preflight.headers['access-control-allow-methods']), /GET/);
      assert.match(String(preflight.headers['access-control-allow-headers']), /x-security-token/i);

      const stranger = await t.app.inject({
        method: 'GET',
        url: '/s/search.json?collection=docs&query=lanterns',
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(stranger.statusCode, 200, 'answered, but a browser will not show it to that page');
      assert.equal(stranger.headers['access-control-allow-origin'], undefined);

      const pushPreflight = await t.app.inject({
        method: 'OPTIONS',
        url: '/push-api/v1/collections/docs/documents?key=local%3Ab',
        headers: { origin: SHOP, 'access-control-request-method': 'PUT' },
      });
      assert.equal(pushPreflight.statusCode, 404);
      assert.equal(pushPreflight.headers['access-control-allow-origin'], undefined);
      const pushGet = await t.app.inject({
        method: 'GET',
        url: '/push-api/v1/collections/docs/state',
        headers: { origin: SHOP },
      });
      assert.equal(pushGet.headers['access-control-allow-origin'], undefined);
    } finally {
      await t.close();
    }
  });

  it('* allows any origin; without the setting a preflight answers 404 and no CORS header is sent', async () => {
    const any = await testApp(['docs'], { global: ['cors.allowed-origins=*'] });
    try {
      const search = await any.app.inject({
        method: 'GET',
        url: '/s/search.json?collection=docs&query=x',
        headers: { origin: 'https://anywhere.example' },
      });
      assert.equal(search.headers['access-control-allow-origin'], '*');
    } finally {
      await any.close();
    }
    const none = await testApp(['docs']);
    try {
      const preflight = await none.app.inject({
        method: 'OPTIONS',
        url: '/s/search.json',
        headers: { origin: SHOP, 'access-control-request-method': 'GET' },
      });
      assert.equal(preflight.statusCode, 404);
      const search = await none.app.inject({
        method: 'GET',
        url: '/s/search.json?collection=docs&query=x',
        headers: { origin: SHOP },
      });
      assert.equal(search.headers['access-control-allow-origin'], undefined);
    } finally {
      await none.close();
    }
  });

  it('a value that is not an origin stops the build with CONFIG_INVALID naming it', async () => {
    for (const bad of [
      'https://shop.example/',
      'shop.example',
      'https://shop.example/search',
      'ftp://x.example',
    ]) {
      const { home, cleanup } = tempHome();
      try {
        writeGlobalCfg(home, [`cors.allowed-origins=${bad}`]);
        await assert.rejects(
          buildApp({ home, security: TEST_SECURITY }),
          (error: { code?: string; message?: string }) => {
            assert.equal(error.code, 'CONFIG_INVALID');
            assert.ok(error.message?.includes(JSON.stringify(bad)), error.message);
            assert.match(error.message ?? '', /cors\.allowed-origins/);
            return true;
          },
        );
      } finally {
        cleanup();
      }
    }
  });
});
