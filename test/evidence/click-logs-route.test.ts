import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { appendClick } from '../../src/collection/evidence/click-log.js';
import { commit, putDocument, route, testApp, VERSIONS, type TestApp } from '../http/helpers.js';

// `POST /push-api/{v1,v2}/collections/{c}/click-logs`: processes the logs now and says what it did.

describe('POST click-logs', () => {
  let app: TestApp;
  before(async () => {
    app = await testApp(['docs'], { collectionCfg: ['push.auto-commit.timeout-seconds=0'] });
  });
  after(async () => {
    await app.close();
  });

  for (const version of VERSIONS) {
    it(`processes the logged clicks once (${version})`, async () => {
      const key = `https://example.org/${version}/page`;
      assert.equal(
        (await putDocument(app.app, version, 'docs', key, 'A page about protocols')).statusCode,
        200,
      );
      assert.equal((await commit(app.app, version, 'docs')).statusCode, 200);
      for (let i = 0; i < 3; i++) {
        await appendClick(app.home, 'docs', {
          time: new Date(),
          collection: 'docs',
          query: 'protocols',
          rank: 2,
          url: key,
        });
      }
      const first = await app.app.inject({ method: 'POST', url: route(version, 'docs', '/click-logs') });
      assert.equal(first.statusCode, 200, first.body);
      const body = first.json<{ message: string; clicksProcessed: number; documentsUpdated: number }>();
      assert.equal(body.clicksProcessed, 3);
      assert.equal(body.documentsUpdated, 1);
      assert.match(body.message, /3 clicks/);

      const second = await app.app.inject({ method: 'POST', url: route(version, 'docs', '/click-logs') });
      assert.equal(second.statusCode, 200);
      assert.deepEqual(
        { ...second.json<Record<string, unknown>>(), message: undefined },
        { message: undefined, clicksProcessed: 0, documentsUpdated: 0 },
      );
    });

    it(`answers 404 for an unknown collection (${version})`, async () => {
      const response = await app.app.inject({ method: 'POST', url: route(version, 'nope', '/click-logs') });
      assert.equal(response.statusCode, 404);
      assert.equal(response.json<{ error: string }>().error, 'COLLECTION_NOT_FOUND');
    });
  }

  it('is refused while the installation is prepared for an upgrade', async () => {
    assert.equal(
      (await app.app.inject({ method: 'POST', url: '/push-api/v1/upgrade/prepare' })).statusCode,
      200,
    );
    const response = await app.app.inject({ method: 'POST', url: route('v2', 'docs', '/click-logs') });
    assert.equal(response.statusCode, 503);
  });
});
