import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SearchResponse } from '../../src/client/types.js';
import { commit, putDocument, route, state, appPerTest } from '../http/helpers.js';
import { errorOf } from '../support/response-body.js';
import { parsePromText, valueOf } from './prom-text.js';

describe('GET /health and GET /ready', () => {
  const openApp = appPerTest();

  it('health answers ok; ready answers 200 while collections are STOPPED or RUNNING, and starts none', async () => {
    const t = await openApp(['idle', 'busy']);
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), { status: 'ok' });

    const idle = await t.app.inject({ method: 'GET', url: '/ready' });
    assert.equal(idle.statusCode, 200, idle.body);
    assert.deepEqual(idle.json(), { status: 'ready', collections: [] });

    await putDocument(t.app, 'v1', 'busy', 'local:a', 'a');
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 200, ready.body);
    assert.equal(t.manager.collection('idle').state, 'STOPPED');
    assert.equal(t.manager.collection('busy').state, 'RUNNING');
  });

  it('a collection whose live index is corrupt goes FAILED: ready answers 503 naming it and the file, the others keep working', async () => {
    const t = await openApp(['broken', 'fine']);
    for (const name of ['broken', 'fine']) {
      for (let i = 0; i < 5; i++)
        assert.equal(
          (await putDocument(t.app, 'v1', name, `local:${i}`, `apple number ${i}`)).statusCode,
          200,
        );
      assert.equal((await commit(t.app, 'v1', name)).statusCode, 200);
    }
    assert.equal(
      (await t.app.inject({ method: 'POST', url: route('v1', 'broken', '/state/stop') })).statusCode,
      200,
    );
    // Flip one bit in the middle of a generation file, as a failing disk would.
    const file = join(t.home, 'data', 'broken', 'live', 'g1.doc');
    const bytes = readFileSync(file);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x10;
    writeFileSync(file, bytes);

    const refused = await putDocument(t.app, 'v1', 'broken', 'local:new', 'apple');
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(errorOf(refused).error, 'COLLECTION_FAILED');
    assert.equal((await state(t.app, 'v1', 'broken')).json().state, 'FAILED');

    const notReady = await t.app.inject({ method: 'GET', url: '/ready' });
    assert.equal(notReady.statusCode, 503, notReady.body);
    const body = notReady.json<{
      status: string;
      collections: { collection: string; state: string; reason?: string; file?: string }[];
    }>();
    assert.equal(body.status, 'not ready');
    assert.equal(body.collections.length, 1);
    assert.equal(body.collections[0]!.collection, 'broken');
    assert.equal(body.collections[0]!.state, 'FAILED');
    assert.equal(body.collections[0]!.file, 'g1.doc');
    assert.match(body.collections[0]!.reason!, /g1\.doc/);

    // Liveness is not readiness: the server still answers, and the other collection works.
    assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    assert.equal((await putDocument(t.app, 'v1', 'fine', 'local:new', 'apple pie')).statusCode, 200);
    assert.equal((await commit(t.app, 'v1', 'fine')).statusCode, 200);
    const search = await t.app.inject({
      method: 'GET',
      url: '/s/search.json?collection=fine&query=apple&num_ranks=100',
    });
    assert.equal(search.statusCode, 200, search.body);
    assert.equal(search.json<SearchResponse>().response.resultPacket.resultsSummary.totalMatching, 6);

    const metrics = parsePromText((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
    assert.equal(
      valueOf(metrics, 'pushsearch_collection_state', { collection: 'broken', state: 'FAILED' }),
      1,
    );
    assert.equal(valueOf(metrics, 'pushsearch_collection_documents', { collection: 'broken' }), undefined);
    assert.equal(valueOf(metrics, 'pushsearch_collection_documents', { collection: 'fine' }), 6);

    // The operator takes the failed collection out of service (FAILED → STOPPED): ready again.
    assert.equal(
      (await t.app.inject({ method: 'POST', url: route('v1', 'broken', '/state/stop') })).statusCode,
      200,
    );
    const readyAgain = await t.app.inject({ method: 'GET', url: '/ready' });
    assert.equal(readyAgain.statusCode, 200, readyAgain.body);
  });
});
