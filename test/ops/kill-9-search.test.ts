/**
 * Crash test of the real server, seen through search: `node dist/src/cli/main.js serve` takes
 * a stream of concurrent PUTs (some replacing committed documents) and is killed with SIGKILL
 * in the middle. After a restart and a commit, /s/search.json finds each acknowledged document
 * by a word only it has, exactly once and with its latest content; the replaced version is
 * gone; a PUT that got no answer is found only if it is there (durable before the answer was
 * lost), never half. The same approach as test/http/kill-9.test.ts, checked by search instead
 * of by GET.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { addCollectionCfg, keyQuery, tempHome, isAbsent, writeGlobalCfg } from '../http/helpers.js';
import { putUntilKilled, requestAsAdmin, spawnServer } from '../support/server-process.js';

const C = '/push-api/v2/collections/c';
/** Documents committed before the stream, then pushed again (replaced) at its start. */
const REPLACED = 100;
/** Acknowledged PUTs before the kill. */
const KILL_AFTER = 400;

const keyOf = (i: number): string => `local:doc-${i}`;
/** The word only document `i`'s streamed version has (the analyzer keeps letters and digits together). */
const wordOf = (i: number): string => `uq${i}w`;
/** The word only the committed first version of document `i` has. */
const oldWordOf = (i: number): string => `old${i}w`;
const contentOf = (i: number): string =>
  `streamed document ${i} ${wordOf(i)} ` + 'lorem ipsum '.repeat(i % 50);

interface Packet {
  response: { resultPacket: { resultsSummary: { totalMatching: number }; results: { liveUrl: string }[] } };
}

describe('kill -9 during concurrent PUTs, checked by search', () => {
  it('after a restart and a commit, a word unique to a document finds exactly that document; replaced and unanswered versions are not found', async (t) => {
    const { home, cleanup } = tempHome();
    try {
      // The searches below go out together (hundreds, 8 at a time): at the default budget of 2 s,
      // waiting included, a loaded machine answered one SEARCH_TIMEOUT (load 22). This test is
      // about what survives the kill, not about query latency: each query gets a minute.
      writeGlobalCfg(home, ['search.timeout-ms=60000']);
      const manager = new CollectionManager(new SearchHome(home), silentPushLog());
      manager.create('c', 'push');
      // Auto-commits during the stream: committed changes must not be applied twice at replay.
      addCollectionCfg(home, 'c', ['push.auto-commit.max-changes=97', 'push.auto-commit.timeout-seconds=0']);

      const first = await spawnServer(home);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
      for (let i = 0; i < REPLACED; i++) {
        const answer = await requestAsAdmin(
          first.port,
          agent,
          'PUT',
          `${C}/documents${keyQuery(keyOf(i))}`,
          `first version ${oldWordOf(i)}`,
        );
        assert.equal(answer.status, 200, answer.body);
      }
      assert.equal((await requestAsAdmin(first.port, agent, 'POST', `${C}/commit`)).status, 200);

      const { acked, failed, sent } = await putUntilKilled(first, agent, {
        path: (i) => `${C}/documents${keyQuery(keyOf(i))}`,
        content: contentOf,
        killAfter: KILL_AFTER,
      });
      assert.equal(await first.exited, null, 'killed by a signal');
      agent.destroy();
      for (let i = 0; i < REPLACED; i++) assert.ok(acked.has(i), `the early PUT ${i} was acknowledged`);

      const second = await spawnServer(home);
      const agent2 = new http.Agent({ keepAlive: true, maxSockets: 8 });
      try {
        // Which unanswered PUTs made it anyway (GET shows the document as pushed).
        const failedPresent = new Set<number>();
        for (const i of failed) {
          const got = await requestAsAdmin(second.port, agent2, 'GET', `${C}/documents${keyQuery(keyOf(i))}`);
          assert.equal(got.status, 200, `${keyOf(i)}: ${got.status}`);
          if (!isAbsent(got)) failedPresent.add(i);
        }
        const commit = await requestAsAdmin(second.port, agent2, 'POST', `${C}/commit`);
        assert.equal(commit.status, 200, commit.body);

        const search = async (query: string): Promise<Packet['response']['resultPacket']> => {
          const answer = await requestAsAdmin(
            second.port,
            agent2,
            'GET',
            `/s/search.json?collection=c&num_ranks=10&query=${encodeURIComponent(query)}`,
          );
          assert.equal(answer.status, 200, answer.body);
          return (JSON.parse(answer.body) as Packet).response.resultPacket;
        };
        const expectOnly = async (query: string, key: string | undefined, what: string): Promise<void> => {
          const packet = await search(query);
          assert.deepEqual(
            packet.results.map((r) => r.liveUrl),
            key === undefined ? [] : [key],
            `${what}: ${query}`,
          );
          assert.equal(packet.resultsSummary.totalMatching, key === undefined ? 0 : 1, `${what}: ${query}`);
        };

        // Every acknowledged document, by its own word; the replaced ones no longer by the old word.
        const ackedList = [...acked].sort((a, b) => a - b);
        const queries: Promise<void>[] = [];
        for (const i of ackedList) {
          queries.push(expectOnly(wordOf(i), keyOf(i), 'acknowledged'));
          if (i < REPLACED) queries.push(expectOnly(oldWordOf(i), undefined, 'replaced'));
        }
        // Unanswered PUTs: found exactly when there, with the streamed content's word.
        for (const i of failed)
          queries.push(expectOnly(wordOf(i), failedPresent.has(i) ? keyOf(i) : undefined, 'unanswered'));
        // Never sent.
        for (const i of [sent, sent + 1, sent + 1000])
          queries.push(expectOnly(wordOf(i), undefined, 'never sent'));
        await Promise.all(queries);

        // Nothing else, nothing twice: one result per document in the collection.
        const all = await search('streamed');
        assert.equal(all.resultsSummary.totalMatching, acked.size + failedPresent.size);
        const state = JSON.parse((await requestAsAdmin(second.port, agent2, 'GET', `${C}/state`)).body) as {
          documents: number;
        };
        assert.equal(state.documents, acked.size + failedPresent.size);
        t.diagnostic(
          `acknowledged ${acked.size}, unanswered ${failed.size} (of which durable anyway: ${failedPresent.size}); ${queries.length} searches`,
        );
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
