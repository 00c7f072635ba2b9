/**
 * Disk full, for real: SEARCH_HOME on a small tmpfs that the test fills up. A PUT answers 507
 * with a clear error and stores nothing; a commit fails and the previous generation stays live;
 * once space is back, everything resumes without a restart.
 *
 * Mounting needs root (CI runs as root; `.ci/run` says so). Without it the test is skipped
 * with the reason, and the same failures stay covered below the HTTP layer by the journal's
 * and the engine's fault-injection tests (test/journal/faults.test.ts, test/index/crash.test.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { ADMIN_AUTH, TEST_SECURITY, writeGlobalCfg } from '../http/helpers.js';
import { waitFor } from '../support/wait.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';

const MOUNT_SIZE = '24m';

/** Waits for a push.log line matching `match` (lines are written synchronously, but by background work). */
async function waitForLogLine(
  home: string,
  match: (entry: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const file = join(home, 'web', 'log', 'push.log');
  let lines: string[] = [];
  return waitFor(
    'a matching push.log line',
    () => {
      lines = existsSync(file)
        ? readFileSync(file, 'utf8')
            .trim()
            .split('\n')
            .filter((line) => line !== '')
        : [];
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>).find(match);
    },
    10_000,
    () => `in:\n${lines.slice(-5).join('\n')}`,
  );
}

const mounted = mountSmallDisk(MOUNT_SIZE);

describe(
  'disk full (SEARCH_HOME on a small tmpfs)',
  { skip: typeof mounted === 'string' ? mounted : false },
  () => {
    const disk = mounted as SmallDisk;
    const home = join(disk.folder, 'home');
    let server: RunningServer;
    const base = () => `${server.url}/push-api/v1/collections/docs`;
    const auth = { authorization: ADMIN_AUTH };

    const put = (key: string, body: string) =>
      fetch(`${base()}/documents?key=${encodeURIComponent(key)}`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'text/plain' },
        body,
      });
    const get = (key: string) =>
      fetch(`${base()}/documents?key=${encodeURIComponent(key)}`, { headers: auth });
    const search = async (query: string): Promise<string[]> => {
      const answer = (await (
        await fetch(`${server.url}/s/search.json?collection=docs&query=${query}&num_ranks=100`)
      ).json()) as {
        response: { resultPacket: { results: { liveUrl: string }[] } };
      };
      return answer.response.resultPacket.results.map((r) => r.liveUrl).sort();
    };

    before(async () => {
      writeGlobalCfg(home, ['push.worker-thread-count=1']);
      server = await startServer({ home, port: 0, security: TEST_SECURITY });
      server.manager.create('docs', 'push');
      writeFileSync(
        join(home, 'conf', 'docs', 'collection.cfg'),
        'collection_type=push\npush.auto-commit.timeout-seconds=0\n',
      );
    });

    after(async () => {
      await server?.close();
      disk.unmount();
    });

    it('answers 507 to writes while the disk is full, keeps the live generation, and resumes when space is back', async () => {
      for (let i = 0; i < 20; i++)
        assert.equal(
          (await put(`https://disk.example/before/${i}`, `committed page ${i} alpha`)).status,
          200,
        );
      assert.equal((await fetch(`${base()}/commit`, { method: 'POST', headers: auth })).status, 200);
      // Staged before the disk fills: durable in the journal, to be committed later.
      for (let i = 0; i < 20; i++)
        assert.equal(
          (await put(`https://disk.example/staged/${i}`, `staged page ${i} beta ${'x'.repeat(2000)}`)).status,
          200,
        );

      disk.fill();

      // Larger than what is left of the journal's last page: the append needs new blocks.
      const refused = await put(
        'https://disk.example/refused',
        `refused page gamma ${'y'.repeat(64 * 1024)}`,
      );
      const refusedBody = (await refused.json()) as { error: string; message: string };
      assert.equal(refused.status, 507, JSON.stringify(refusedBody));
      assert.match(refusedBody.message, /space|full|ENOSPC/i, 'the message says the disk is full');
      assert.deepEqual(
        await (await get('https://disk.example/refused')).json(),
        { key: 'https://disk.example/refused', pushContent: null },
        'nothing of a refused PUT is stored',
      );

      const commit = await fetch(`${base()}/commit`, { method: 'POST', headers: auth });
      const commitBody = (await commit.json()) as { error: string; message: string };
      assert.equal(commit.status, 507, JSON.stringify(commitBody));
      assert.match(commitBody.message, /space|full|ENOSPC/i);

      // A commit that answered at once (wait=false) fails later: push.log says so, with its request id.
      // (push.log is on the full disk too: its lines wait in memory until they can be written.)
      const commitFailures = () =>
        server.manager.collection('docs').stateView().stats?.TotCommitFailures ?? 0;
      const failedBefore = commitFailures();
      const background = await fetch(`${base()}/commit?wait=false`, {
        method: 'POST',
        headers: { ...auth, 'x-request-id': 'full-disk-commit' },
      });
      assert.equal(background.status, 202);
      await waitFor('the background commit to fail', () => commitFailures() > failedBefore);

      // The previous generation stays live and searchable; the collection keeps running.
      assert.equal((await search('alpha')).length, 20);
      assert.deepEqual(await search('beta'), []);
      const state = (await (await fetch(`${base()}/state`, { headers: auth })).json()) as { state: string };
      assert.equal(state.state, 'RUNNING');

      disk.free();

      // No restart: writes and commits work again, and nothing acknowledged was lost.
      assert.equal((await put('https://disk.example/after', 'after page delta')).status, 200);
      // The lines push.log could not take while the disk was full are written now.
      const logLine = await waitForLogLine(home, (entry) => entry.requestId === 'full-disk-commit');
      assert.equal(logLine.collection, 'docs');
      assert.equal(logLine.msg, 'commit failed');
      assert.match(String((logLine.err as { message: string }).message), /disk is full/);
      const recovered = await fetch(`${base()}/commit`, { method: 'POST', headers: auth });
      assert.equal(recovered.status, 200, await recovered.text());
      assert.equal((await search('alpha')).length, 20);
      assert.equal((await search('beta')).length, 20);
      assert.deepEqual(await search('delta'), ['https://disk.example/after']);
      assert.deepEqual(await search('gamma'), []);
    });

    it('keeps everything acknowledged across a restart after the disk was full', async () => {
      await server.close();
      server = await startServer({ home, port: 0, security: TEST_SECURITY });
      assert.equal((await search('alpha')).length, 20);
      assert.equal((await search('beta')).length, 20);
      assert.deepEqual(await search('delta'), ['https://disk.example/after']);
      assert.equal(
        ((await (await get('https://disk.example/refused')).json()) as { pushContent: unknown }).pushContent,
        null,
      );
    });
  },
);
