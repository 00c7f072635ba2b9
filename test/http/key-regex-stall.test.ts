/**
 * Issue #22 item 1 through the real server: gscopes.cfg and qie.cfg patterns whose backtracking
 * cost doubles with each character of a key must not stall a PUT, nor the server. The server
 * runs in a child process, so a stalled event loop there makes this test fail on its deadline
 * rather than hang the runner.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { keyQuery, tempHome } from './helpers.js';
import { requestAsAdmin, spawnServer } from '../support/server-process.js';

const PATTERNS = ['^http://x/(\\w|\\d)*$', '(a|a)*$', '(a*){2,30}b', '(.*){1,20}x'];

describe('key regexes on hostile keys', () => {
  it('PUTs whose keys would backtrack exponentially answer at once and get the right gscopes', async () => {
    const { home, cleanup } = tempHome();
    const manager = new CollectionManager(new SearchHome(home), silentPushLog());
    manager.create('c', 'push');
    writeFileSync(
      join(home, 'conf', 'c', 'gscopes.cfg'),
      PATTERNS.map((p, i) => `g${i} ${p}`).join('\n') + '\n',
    );
    writeFileSync(join(home, 'conf', 'c', 'qie.cfg'), PATTERNS.map((p) => `0.5 ${p}`).join('\n') + '\n');
    const server = await spawnServer(home);
    const agent = new http.Agent({ keepAlive: true });
    try {
      // 40 characters already cost 2^40 steps to a backtracking engine; RE2 takes microseconds.
      const keys = [
        `http://x/${'a'.repeat(40)}!`,
        `http://x/${'a'.repeat(1900)}!`,
        `http://y/${'a'.repeat(1900)}b`,
      ];
      const deadline = AbortSignal.timeout(60_000);
      for (const key of keys) {
        const answer = await Promise.race([
          requestAsAdmin(
            server.port,
            agent,
            'PUT',
            `/push-api/v2/collections/c/documents${keyQuery(key)}`,
            'text',
          ),
          new Promise<never>((_, reject) =>
            deadline.addEventListener('abort', () =>
              reject(new Error(`the PUT of ${key.slice(0, 20)}… stalled`)),
            ),
          ),
        ]);
        assert.equal(answer.status, 200, answer.body);
      }
      const committed = await requestAsAdmin(server.port, agent, 'POST', '/push-api/v2/collections/c/commit');
      assert.equal(committed.status, 200, committed.body);
      // Which gscopes each document got: g1 ((a|a)*$) matches every key, g2 only the one ending in b.
      const search = (scope: string): Promise<{ status: number; body: string }> =>
        requestAsAdmin(server.port, agent, 'GET', `/s/search.json?collection=c&query=text&gscope1=${scope}`);
      const counted = async (scope: string): Promise<number> => {
        const answer = await search(scope);
        assert.equal(answer.status, 200, answer.body);
        return (
          JSON.parse(answer.body) as {
            response: { resultPacket: { resultsSummary: { totalMatching: number } } };
          }
        ).response.resultPacket.resultsSummary.totalMatching;
      };
      assert.equal(await counted('g1'), 3);
      assert.equal(await counted('g2'), 1);
      assert.equal(await counted('g0'), 0);
    } finally {
      agent.destroy();
      server.child.kill('SIGKILL');
      await server.exited;
      cleanup();
    }
  });
});
