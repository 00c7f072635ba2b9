import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Snapshot, StateResponse, VacuumProgress } from '../../src/client/types.js';
import { errorOf, type SnapshotList } from '../support/response-body.js';
import {
  VERSIONS,
  commit,
  contentOf,
  getDocument,
  putDocument,
  route,
  state,
  isAbsent,
  appPerTest,
  type TestApp,
} from './helpers.js';
import { waitFor } from '../support/wait.js';

for (const v of VERSIONS) {
  describe(`push API ${v}: collection operations`, () => {
    const openApp = appPerTest();

    it('state: STOPPED until a push request; GET state never starts it; stop → STOPPED; staged changes survive the stop', async () => {
      const t = await openApp(['c']);
      for (let i = 0; i < 2; i++) {
        const before = await state(t.app, v, 'c');
        assert.equal(before.statusCode, 200);
        assert.equal(before.json().state, 'STOPPED');
        assert.equal(before.json().collection, 'c');
      }
      assert.equal((await putDocument(t.app, v, 'c', 'local:a', 'staged only')).statusCode, 200);
      const running = (await state(t.app, v, 'c')).json();
      assert.equal(running.state, 'RUNNING');
      assert.equal(running.stagedChanges, 1);
      assert.equal(typeof running.stats, 'object');

      const stop = await t.app.inject({ method: 'POST', url: route(v, 'c', '/state/stop') });
      assert.equal(stop.statusCode, 200, stop.body);
      assert.equal(stop.json<StateResponse>().state, 'STOPPED');
      assert.equal((await state(t.app, v, 'c')).json().state, 'STOPPED');

      // Any other push request starts it again, on the durable staged change.
      const got = await getDocument(t.app, v, 'c', 'local:a');
      assert.equal(got.statusCode, 200);
      assert.equal(got.json().committed, false);
      assert.equal(contentOf(got), 'staged only');
      assert.equal((await state(t.app, v, 'c')).json().state, 'RUNNING');
    });

    it('commit wait=true answers with the generation; wait=false answers 202 and commits in the background', async () => {
      const t = await openApp(['c']);
      await putDocument(t.app, v, 'c', 'local:a', 'a');
      const waited = await commit(t.app, v, 'c');
      assert.equal(waited.statusCode, 200);
      assert.equal(waited.json().changes, 1);
      assert.equal(typeof waited.json().generation, 'number');
      assert.equal((await state(t.app, v, 'c')).json().documents, 1);

      await putDocument(t.app, v, 'c', 'local:b', 'b');
      const background = await commit(t.app, v, 'c', false);
      assert.equal(background.statusCode, 202, background.body);
      assert.equal(background.json().changes, 1);
      await waitFor(
        'the background commit',
        async () => (await getDocument(t.app, v, 'c', 'local:b')).json().committed === true,
      );
      assert.equal((await state(t.app, v, 'c')).json().documents, 2);

      const bad = await t.app.inject({ method: 'POST', url: route(v, 'c', '/commit?wait=perhaps') });
      assert.equal(bad.statusCode, 400);
      assert.equal(errorOf(bad).error, 'PARAMETER_INVALID');
    });

    it('auto-commit after push.auto-commit.max-changes changes', async () => {
      const t = await openApp(['c'], {
        collectionCfg: ['push.auto-commit.max-changes=3', 'push.auto-commit.timeout-seconds=600'],
      });
      await putDocument(t.app, v, 'c', 'local:1', 'one');
      await putDocument(t.app, v, 'c', 'local:2', 'two');
      assert.equal(
        (await getDocument(t.app, v, 'c', 'local:1')).json().committed,
        false,
        'two changes: below the threshold',
      );
      await putDocument(t.app, v, 'c', 'local:3', 'three');
      await waitFor('the count auto-commit', async () => (await state(t.app, v, 'c')).json().documents === 3);
      for (const key of ['local:1', 'local:2', 'local:3'])
        assert.equal((await getDocument(t.app, v, 'c', key)).json().committed, true);
    });

    it('auto-commit push.auto-commit.timeout-seconds after the first staged change', async () => {
      const t = await openApp(['c'], {
        collectionCfg: ['push.auto-commit.timeout-seconds=1', 'push.auto-commit.max-changes=0'],
      });
      await putDocument(t.app, v, 'c', 'local:timed', 'x');
      assert.equal((await getDocument(t.app, v, 'c', 'local:timed')).json().committed, false);
      await waitFor(
        'the timeout auto-commit',
        async () => (await getDocument(t.app, v, 'c', 'local:timed')).json().committed === true,
        15_000,
      );
    });

    it('vacuum MERGE and RE_INDEX (wait and no wait); a bad vacuum-type is 400', async () => {
      const t = await openApp(['c']);
      for (let i = 0; i < 3; i++) {
        await putDocument(t.app, v, 'c', `local:${i}`, `doc ${i}`);
        await commit(t.app, v, 'c');
      }
      const merge = await t.app.inject({ method: 'POST', url: route(v, 'c', '/vacuum?vacuum-type=MERGE') });
      assert.equal(merge.statusCode, 200, merge.body);
      const merged = merge.json<VacuumProgress>();
      assert.equal(merged.type, 'MERGE');
      assert.equal(merged.state, 'DONE');
      assert.equal((await state(t.app, v, 'c')).json().generations, 1);

      const reindex = await t.app.inject({
        method: 'POST',
        url: route(v, 'c', '/vacuum?vacuum-type=RE_INDEX&wait=false'),
      });
      assert.equal(reindex.statusCode, 202, reindex.body);
      assert.equal(reindex.json<VacuumProgress>().type, 'RE_INDEX');
      await waitFor('RE_INDEX', async () => (await state(t.app, v, 'c')).json().vacuum?.state === 'DONE');
      const view = (await state(t.app, v, 'c')).json();
      assert.equal(view.vacuum?.done, 3);
      assert.equal(view.documents, 3);
      assert.equal(contentOf(await getDocument(t.app, v, 'c', 'local:1')), 'doc 1');

      for (const query of ['?vacuum-type=SHRINK', '']) {
        const bad = await t.app.inject({
          method: 'POST',
          url: route(v, 'c', `/vacuum${query}`),
        });
        assert.equal(bad.statusCode, 400, query);
        assert.equal(errorOf(bad).error, 'PARAMETER_INVALID');
      }
    });

    it('snapshots: create, list, refuse a taken name, delete', async () => {
      const t = await openApp(['c']);
      await putDocument(t.app, v, 'c', 'local:a', 'a');
      await commit(t.app, v, 'c');
      const created = await t.app.inject({ method: 'PUT', url: route(v, 'c', '/snapshot/backup-1') });
      assert.equal(created.statusCode, 200, created.body);
      assert.equal(created.json<Snapshot>().name, 'backup-1');
      assert.equal(created.json<Snapshot>().documents, 1);
      assert.ok(existsSync(join(t.home, 'data', 'c', 'snapshot', 'backup-1')));

      const list = await t.app.inject({ method: 'GET', url: route(v, 'c', '/snapshot') });
      assert.equal(list.statusCode, 200);
      assert.deepEqual(
        list.json<SnapshotList>().snapshots.map((s) => s.name),
        ['backup-1'],
      );

      const again = await t.app.inject({ method: 'PUT', url: route(v, 'c', '/snapshot/backup-1') });
      assert.equal(again.statusCode, 409);
      assert.equal(errorOf(again).error, 'SNAPSHOT_EXISTS');

      const deleted = await t.app.inject({ method: 'DELETE', url: route(v, 'c', '/snapshot/backup-1') });
      assert.equal(deleted.statusCode, 200);
      assert.equal(existsSync(join(t.home, 'data', 'c', 'snapshot', 'backup-1')), false);
      const gone = await t.app.inject({ method: 'DELETE', url: route(v, 'c', '/snapshot/backup-1') });
      assert.equal(gone.statusCode, 404);
      assert.equal(errorOf(gone).error, 'SNAPSHOT_NOT_FOUND');
      assert.deepEqual(
        (await t.app.inject({ method: 'GET', url: route(v, 'c', '/snapshot') })).json<SnapshotList>()
          .snapshots,
        [],
      );
    });

    /** A collection with `local:in-snapshot` in snapshot s1, and `local:after-snapshot` committed after it. */
    async function snapshotThenCommit(): Promise<TestApp> {
      const t = await openApp(['c']);
      await putDocument(t.app, v, 'c', 'local:in-snapshot', 'kept');
      await commit(t.app, v, 'c');
      assert.equal(
        (await t.app.inject({ method: 'PUT', url: route(v, 'c', '/snapshot/s1') })).statusCode,
        200,
      );
      await putDocument(t.app, v, 'c', 'local:after-snapshot', 'dropped');
      await commit(t.app, v, 'c');
      return t;
    }

    it('restore through the API: 409 while running; after stop the collection serves the snapshot', async () => {
      const t = await snapshotThenCommit();
      await putDocument(t.app, v, 'c', 'local:staged-after', 'dropped too');

      const running = await t.app.inject({ method: 'POST', url: route(v, 'c', '/restore/from-snapshot/s1') });
      assert.equal(running.statusCode, 409);
      assert.equal(errorOf(running).error, 'WRONG_STATE');

      await t.app.inject({ method: 'POST', url: route(v, 'c', '/state/stop') });
      const missing = await t.app.inject({
        method: 'POST',
        url: route(v, 'c', '/restore/from-snapshot/nope'),
      });
      assert.equal(missing.statusCode, 404);
      const restored = await t.app.inject({
        method: 'POST',
        url: route(v, 'c', '/restore/from-snapshot/s1'),
      });
      assert.equal(restored.statusCode, 200, restored.body);
      assert.equal((await state(t.app, v, 'c')).json().state, 'STOPPED');

      assert.equal(contentOf(await getDocument(t.app, v, 'c', 'local:in-snapshot')), 'kept');
      assert.ok(isAbsent(await getDocument(t.app, v, 'c', 'local:after-snapshot')));
      assert.ok(isAbsent(await getDocument(t.app, v, 'c', 'local:staged-after')));
      assert.equal((await state(t.app, v, 'c')).json().documents, 1);
      // The restored collection takes new changes.
      await putDocument(t.app, v, 'c', 'local:new', 'new');
      await commit(t.app, v, 'c');
      assert.equal((await state(t.app, v, 'c')).json().documents, 2);
    });

    it('restore by hand (the spec backup procedure): stop, copy the snapshot files over live/, next request serves them', async () => {
      const t = await snapshotThenCommit();

      assert.equal(
        (await t.app.inject({ method: 'POST', url: route(v, 'c', '/state/stop') })).json<StateResponse>()
          .state,
        'STOPPED',
      );
      const snapshot = join(t.home, 'data', 'c', 'snapshot', 's1');
      const live = join(t.home, 'data', 'c', 'live');
      for (const file of readdirSync(snapshot)) {
        if (statSync(join(snapshot, file)).isFile()) copyFileSync(join(snapshot, file), join(live, file));
      }

      assert.equal(contentOf(await getDocument(t.app, v, 'c', 'local:in-snapshot')), 'kept');
      assert.ok(isAbsent(await getDocument(t.app, v, 'c', 'local:after-snapshot')));
      assert.equal((await state(t.app, v, 'c')).json().documents, 1);
    });
  });
}
