/**
 * A merge that fails, through the whole service: a generation file damaged on disk after the
 * collection opened it (searches keep working from what was read) makes every merge of it
 * fail. The failure is in push.log, snapshot `ServiceInternal-merge-failed-<n>` is taken,
 * commits go on until `push.max-generations`, then answer 503 GENERATION_LIMIT with the
 * reason; once the file is whole again a merge succeeds and commits are accepted again.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH, addCollectionCfg } from '../http/helpers.js';
import { testServer, type TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

describe('a failing merge', () => {
  let server: TestServer;
  const auth = { authorization: ADMIN_AUTH };
  const base = () => `${server.url}/push-api/v1/collections/m`;

  before(async () => {
    server = await testServer({ global: ['push.worker-thread-count=1'], collections: ['m'] });
    addCollectionCfg(server.home, 'm', [
      'push.max-generations=4',
      'push.create-snapshot-on-merge-failure=true',
      'push.auto-commit.timeout-seconds=0',
    ]);
  });

  after(async () => {
    await server.dispose();
  });

  const putAndCommit = async (i: number): Promise<Response> => {
    const put = await fetch(`${base()}/documents?key=${encodeURIComponent(`https://merge.example/${i}`)}`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: `mergemark page ${i}`,
    });
    assert.equal(put.status, 200);
    return fetch(`${base()}/commit`, { method: 'POST', headers: auth });
  };
  const state = async () =>
    (await (await fetch(`${base()}/state`, { headers: auth })).json()) as {
      generations: number;
      state: string;
    };
  const found = async () =>
    (
      (await (
        await fetch(`${server.url}/s/search.json?collection=m&query=mergemark&num_ranks=50`)
      ).json()) as {
        response: { resultPacket: { resultsSummary: { totalMatching: number } } };
      }
    ).response.resultPacket.resultsSummary.totalMatching;
  const pushLog = () => {
    const file = join(server.home, 'web', 'log', 'push.log');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  };

  it('is reported, snapshotted, stops commits at the limit with the reason, and recovers', async () => {
    assert.equal((await putAndCommit(0)).status, 200);
    const live = join(server.home, 'data', 'm', 'live');
    const tim = readdirSync(live).find((name) => /^g\d+\.tim$/.test(name))!;
    const whole = readFileSync(join(live, tim));
    const damaged = Buffer.from(whole);
    damaged[Math.floor(damaged.length / 2)]! ^= 0xff;
    writeFileSync(join(live, tim), damaged);

    // Commits go on while merges fail, up to the limit.
    let refused: Response | undefined;
    let committed = 1;
    for (let i = 1; i < 10 && refused === undefined; i++) {
      const answer = await putAndCommit(i);
      if (answer.status === 200) committed++;
      else refused = answer;
    }
    assert.ok(refused !== undefined, 'a commit was refused at the limit');
    const body = (await refused.json()) as { error: string; message: string };
    assert.equal(refused.status, 503);
    assert.equal(body.error, 'GENERATION_LIMIT');
    assert.match(body.message, /merges are failing/);
    assert.match(body.message, new RegExp(tim.replace('.', '\\.')), 'the reason names the damaged file');
    assert.ok(committed >= 3, `commits before the limit: ${committed}`);
    assert.equal((await state()).state, 'RUNNING');
    assert.ok((await found()) >= committed, 'searches keep working');

    const failure = pushLog()
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            msg: string;
            collection?: string;
            generation?: unknown;
            inputs?: unknown;
            err?: { message?: string };
          },
      )
      .find((entry) => entry.msg === 'merge failed');
    assert.ok(failure !== undefined, 'push.log has the merge failure');
    assert.equal(failure.collection, 'm');
    assert.equal(typeof failure.generation, 'number', 'the generation the merge was writing');
    assert.ok(Array.isArray(failure.inputs) && failure.inputs.length >= 2, 'the generations it merged');
    assert.match(
      failure.err?.message ?? '',
      new RegExp(tim.replace('.', '\\.')),
      'the error names the damaged file',
    );
    const snapshots = readdirSync(join(server.home, 'data', 'm', 'snapshot'));
    assert.ok(
      snapshots.some((name) => name.startsWith('ServiceInternal-merge-failed-')),
      snapshots.join(', '),
    );

    // The file is whole again: the next retry of the merge succeeds, and so do commits.
    writeFileSync(join(live, tim), whole);
    await waitFor('a merge to succeed', async () => (await state()).generations < 4, 30_000);
    const after = await putAndCommit(100);
    assert.equal(after.status, 200, await after.text());
    // The refused commit's document stayed staged (acknowledged): it is live now too.
    assert.equal(await found(), committed + 2);
  });
});
