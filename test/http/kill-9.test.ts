/**
 * Crash test of the real server: `node dist/src/cli/main.js serve` takes a stream of
 * concurrent PUTs and is killed with SIGKILL in the middle. After a restart, every PUT that
 * was answered 200 must be there with its exact content and counted after a commit; a PUT
 * that failed (no answer) is either wholly there (durable before the answer was lost) or
 * absent, never different.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import type { StateResponse } from '../../src/client/types.js';
import { addCollectionCfg, keyQuery, tempHome, isAbsent, pushedOf } from './helpers.js';
import { jsonOf } from '../support/response-body.js';
import { putUntilKilled, requestAsAdmin, spawnServer } from '../support/server-process.js';

describe('kill -9 during concurrent PUTs', () => {
  it('after a restart every acknowledged PUT is there and counted; no failed one is half there', async (t) => {
    const { home, cleanup } = tempHome();
    try {
      const manager = new CollectionManager(new SearchHome(home), silentPushLog());
      manager.create('c', 'push');
      // Auto-commits during the stream: committed changes must not be applied twice at replay.
      addCollectionCfg(home, 'c', ['push.auto-commit.max-changes=97']);

      const first = await spawnServer(home);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
      const keyOf = (i: number): string => `local:doc-${i}`;
      const contentOf = (i: number): string => `document ${i} ` + 'lorem ipsum '.repeat(i % 50);
      const stream = await putUntilKilled(first, agent, {
        path: (i) => `/push-api/v2/collections/c/documents${keyQuery(keyOf(i))}`,
        content: contentOf,
        killAfter: 400,
      });
      const acked = new Map([...stream.acked].map((i) => [keyOf(i), contentOf(i)]));
      const failed = new Map([...stream.failed].map((i) => [keyOf(i), contentOf(i)]));
      assert.equal(await first.exited, null, 'killed by a signal');
      agent.destroy();
      assert.ok(acked.size >= 400);

      const second = await spawnServer(home);
      const agent2 = new http.Agent({ keepAlive: true, maxSockets: 8 });
      try {
        for (const [key, content] of acked) {
          const got = await requestAsAdmin(
            second.port,
            agent2,
            'GET',
            `/push-api/v1/collections/c/documents${keyQuery(key)}`,
          );
          assert.equal(got.status, 200, `${key} was acknowledged but is missing`);
          assert.equal(Buffer.from(pushedOf(got).content, 'base64').toString(), content, key);
        }
        let failedPresent = 0;
        for (const [key, content] of failed) {
          const got = await requestAsAdmin(
            second.port,
            agent2,
            'GET',
            `/push-api/v1/collections/c/documents${keyQuery(key)}`,
          );
          assert.equal(got.status, 200, `${key}: ${got.status}`);
          if (!isAbsent(got)) {
            failedPresent++;
            assert.equal(
              Buffer.from(pushedOf(got).content, 'base64').toString(),
              content,
              `${key} is half there`,
            );
          }
        }
        t.diagnostic(
          `acknowledged ${acked.size}, failed ${failed.size} (of which durable anyway: ${failedPresent})`,
        );
        const commit = await requestAsAdmin(second.port, agent2, 'POST', '/push-api/v1/collections/c/commit');
        assert.equal(commit.status, 200, commit.body);
        const state = jsonOf<StateResponse>(
          await requestAsAdmin(second.port, agent2, 'GET', '/push-api/v1/collections/c/state'),
        );
        assert.equal(state.documents, acked.size + failedPresent);
        assert.equal(state.stagedChanges, 0);
      } finally {
        agent2.destroy();
        second.child.kill('SIGTERM');
        assert.equal(await second.exited, 0, 'SIGTERM shuts down cleanly with exit code 0');
      }
    } finally {
      cleanup();
    }
  });
});
