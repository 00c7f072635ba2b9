/**
 * Issue #22 items 6-7 through the server: after a restore the collection is exactly the
 * snapshot, also when changes were staged (only in the journal) since the last commit.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commit, contentOf, getDocument, putDocument, route, testApp, type TestApp } from './helpers.js';

describe('restore from a snapshot', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp(['c']);
  });
  after(() => t.close());

  const totalMatching = async (): Promise<number> => {
    const answer = await t.app.inject({ method: 'GET', url: '/s/search.json?collection=c&query=document' });
    assert.equal(answer.statusCode, 200, answer.body);
    return (answer.json() as { response: { resultPacket: { resultsSummary: { totalMatching: number } } } })
      .response.resultPacket.resultsSummary.totalMatching;
  };
  const pushContent = async (key: string): Promise<unknown> =>
    (JSON.parse((await getDocument(t.app, 'v2', 'c', key)).body) as { pushContent: unknown }).pushContent;

  it('discards changes staged after the snapshot: pushes and deletes do not come back from the journal', async () => {
    for (const i of [1, 2, 3])
      assert.equal((await putDocument(t.app, 'v2', 'c', `local:${i}`, `document ${i}`)).statusCode, 200);
    assert.equal((await commit(t.app, 'v2', 'c')).statusCode, 200);
    assert.equal(
      (await t.app.inject({ method: 'PUT', url: route('v2', 'c', '/snapshot/before') })).statusCode,
      200,
    );

    // Staged only (no commit): two pushes and a delete.
    assert.equal((await putDocument(t.app, 'v2', 'c', 'local:4', 'document 4')).statusCode, 200);
    assert.equal((await putDocument(t.app, 'v2', 'c', 'local:5', 'document 5')).statusCode, 200);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: route('v2', 'c', '/documents?key=local%3A1'),
    });
    assert.equal(deleted.statusCode, 200, deleted.body);

    assert.equal(
      (await t.app.inject({ method: 'POST', url: route('v2', 'c', '/state/stop') })).statusCode,
      200,
    );
    const restored = await t.app.inject({
      method: 'POST',
      url: route('v2', 'c', '/restore/from-snapshot/before'),
    });
    assert.equal(restored.statusCode, 200, restored.body);

    // The next request starts the collection; a commit must not publish the discarded changes.
    assert.equal((await commit(t.app, 'v2', 'c')).statusCode, 200);
    assert.equal(await pushContent('local:4'), null);
    assert.equal(await pushContent('local:5'), null);
    assert.equal(contentOf(await getDocument(t.app, 'v2', 'c', 'local:1')), 'document 1');
    assert.equal(await totalMatching(), 3);

    // And after a restart too (the journal does not replay them later).
    assert.equal(
      (await t.app.inject({ method: 'POST', url: route('v2', 'c', '/state/stop') })).statusCode,
      200,
    );
    assert.equal((await commit(t.app, 'v2', 'c')).statusCode, 200);
    assert.equal(await pushContent('local:4'), null);
    assert.equal(await totalMatching(), 3);
  });

  it('verifies every file of the snapshot before touching live: a damaged one is named and nothing changes', async () => {
    assert.equal(
      (await t.app.inject({ method: 'PUT', url: route('v2', 'c', '/snapshot/damaged') })).statusCode,
      200,
    );
    assert.equal((await putDocument(t.app, 'v2', 'c', 'local:6', 'document 6')).statusCode, 200);
    assert.equal((await commit(t.app, 'v2', 'c')).statusCode, 200);
    const before = await totalMatching();

    // Damage one generation file of the snapshot in place of its hard link (live keeps its own).
    const folder = join(t.home, 'data', 'c', 'snapshot', 'damaged');
    const victim = readdirSync(folder).find((name) => name !== 'manifest' && !name.startsWith('manifest'))!;
    const bytes = readFileSync(join(folder, victim));
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    rmSync(join(folder, victim));
    writeFileSync(join(folder, victim), bytes);

    assert.equal(
      (await t.app.inject({ method: 'POST', url: route('v2', 'c', '/state/stop') })).statusCode,
      200,
    );
    const restored = await t.app.inject({
      method: 'POST',
      url: route('v2', 'c', '/restore/from-snapshot/damaged'),
    });
    assert.equal(restored.statusCode, 409, restored.body);
    const error = restored.json() as { error: string; message: string };
    assert.equal(error.error, 'SNAPSHOT_CORRUPT');
    assert.ok(error.message.includes(victim), error.message);

    // Live untouched: the collection starts on the index it had, with the document pushed after the snapshot.
    assert.equal(await totalMatching(), before);
    assert.equal(contentOf(await getDocument(t.app, 'v2', 'c', 'local:6')), 'document 6');
    const state = await t.app.inject({ method: 'GET', url: route('v2', 'c', '/state') });
    assert.match(state.body, /RUNNING/);
  });
});
