import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  VERSIONS,
  commit,
  contentOf,
  getDocument,
  keyQuery,
  multipartBody,
  putDocument,
  route,
  state,
  tempHome,
  testApp,
  isAbsent,
} from './helpers.js';
import { waitFor } from '../support/wait.js';
import type { UpgradeResponse } from '../../src/client/types.js';
import { errorOf } from '../support/response-body.js';

for (const v of VERSIONS) {
  describe(`push API ${v}: upgrade preparation`, () => {
    it('status is 503 before prepare; after it writes answer 503 with Retry-After, reads still work, staged changes are committed', async () => {
      const t = await testApp(['c']);
      try {
        const status = () => t.app.inject({ method: 'POST', url: `/push-api/${v}/upgrade/prepare/status` });
        const before = await status();
        assert.equal(before.statusCode, 503);
        assert.equal(errorOf(before).error, 'UPGRADE_NOT_STARTED');

        await putDocument(t.app, v, 'c', 'local:committed', 'committed');
        await commit(t.app, v, 'c');
        await putDocument(t.app, v, 'c', 'local:staged', 'staged before prepare');
        assert.equal(
          (await t.app.inject({ method: 'PUT', url: route(v, 'c', '/snapshot/before') })).statusCode,
          200,
        );

        const prepare = await t.app.inject({ method: 'POST', url: `/push-api/${v}/upgrade/prepare` });
        assert.equal(prepare.statusCode, 200, prepare.body);
        assert.ok(['IN_PROGRESS', 'PREPARED'].includes(prepare.json<UpgradeResponse>().state));
        await waitFor('PREPARED', async () => (await status()).json<UpgradeResponse>().state === 'PREPARED');
        // Preparation committed what was staged.
        assert.equal((await getDocument(t.app, v, 'c', 'local:staged')).json().committed, true);

        const writes = [
          await putDocument(t.app, v, 'c', 'local:refused', 'x'),
          await t.app.inject({
            method: 'DELETE',
            url: route(v, 'c', `/documents${keyQuery('local:committed')}`),
          }),
          await t.app.inject({
            method: 'PUT',
            url: route(v, 'c', `/redirects${keyQuery('local:a', { target: 'local:b' })}`),
          }),
          await commit(t.app, v, 'c'),
          await t.app.inject({ method: 'POST', url: route(v, 'c', '/vacuum?vacuum-type=MERGE') }),
          await t.app.inject({
            method: 'PUT',
            url: route(v, 'c', `/documents/content-and-metadata${keyQuery('local:multipart')}`),
            headers: { 'content-type': 'multipart/form-data; boundary=b0' },
            payload: multipartBody('b0', [
              {
                headers: { 'content-disposition': 'form-data; name="content"', 'content-type': 'text/plain' },
                body: 'x',
              },
              {
                headers: {
                  'content-disposition': 'form-data; name="metadata"',
                  'content-type': 'application/json',
                },
                body: '{"a":"b"}',
              },
            ]),
          }),
          await t.app.inject({ method: 'POST', url: route(v, 'c', '/click-logs') }),
          // Data folders stay as they are too: no snapshot taken or removed, nothing restored.
          await t.app.inject({ method: 'PUT', url: route(v, 'c', '/snapshot/during') }),
          await t.app.inject({ method: 'DELETE', url: route(v, 'c', '/snapshot/before') }),
          await t.app.inject({ method: 'POST', url: route(v, 'c', '/restore/from-snapshot/before') }),
          // And no collection created, deleted or reconfigured through the admin API.
          await t.app.inject({
            method: 'PUT',
            url: '/admin-api/v1/collections/other',
            payload: { type: 'push' },
          }),
          await t.app.inject({ method: 'DELETE', url: '/admin-api/v1/collections/c' }),
          await t.app.inject({
            method: 'PUT',
            url: '/admin-api/v1/collections/c/config',
            payload: { files: { 'collection.cfg': 'push.max-generations=20\n' } },
          }),
        ];
        for (const response of writes) {
          assert.equal(response.statusCode, 503, response.body);
          assert.equal(errorOf(response).error, 'UPGRADE_PREPARING');
          assert.equal(response.headers['retry-after'], '60');
        }
        assert.ok(isAbsent(await getDocument(t.app, v, 'c', 'local:refused')));
        assert.ok(isAbsent(await getDocument(t.app, v, 'c', 'local:multipart')));
        assert.deepEqual(readdirSync(join(t.home, 'data', 'c', 'snapshot')), ['before']);
        assert.deepEqual(readdirSync(join(t.home, 'data')).sort(), ['c']);
        assert.doesNotMatch(
          readFileSync(join(t.home, 'conf', 'c', 'collection.cfg'), 'utf8'),
          /max-generations/,
        );
        // Planned refusals are not failures: push.log stays free of them.
        const pushLog = join(t.home, 'web', 'log', 'push.log');
        assert.doesNotMatch(existsSync(pushLog) ? readFileSync(pushLog, 'utf8') : '', /UPGRADE_/);
        assert.equal(contentOf(await getDocument(t.app, v, 'c', 'local:committed')), 'committed');
        assert.equal((await state(t.app, v, 'c')).statusCode, 200);
        // Prepare again is harmless.
        assert.equal(
          (
            await t.app.inject({ method: 'POST', url: `/push-api/${v}/upgrade/prepare` })
          ).json<UpgradeResponse>().state,
          'PREPARED',
        );
      } finally {
        await t.close();
      }
    });

    it('a restart undoes the preparation (it lives in memory only)', async () => {
      const { home, cleanup } = tempHome();
      try {
        const first = await testApp(['c'], { home });
        await first.app.inject({ method: 'POST', url: `/push-api/${v}/upgrade/prepare` });
        assert.equal((await putDocument(first.app, v, 'c', 'local:x', 'x')).statusCode, 503);
        await first.close();
        const second = await testApp([], { home });
        assert.equal(
          (await second.app.inject({ method: 'POST', url: `/push-api/${v}/upgrade/prepare/status` }))
            .statusCode,
          503,
        );
        assert.equal((await putDocument(second.app, v, 'c', 'local:x', 'x')).statusCode, 200);
        await second.close();
      } finally {
        cleanup();
      }
    });
  });
}
