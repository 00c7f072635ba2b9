/**
 * The state call's answer from a collection's parts, on a real runtime over the in-memory
 * journal: counts only while RUNNING, the reason and file of a FAILED start.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectionStateView } from '../../src/collection/collection-state-view.js';
import { openRuntime, stagePut } from './runtime-fixture.js';

describe('collectionStateView', () => {
  it("a running admin shows its index's counts and journal counters", async () => {
    const fixture = await openRuntime();
    try {
      await stagePut(fixture, 'local:a', 'a');
      await fixture.commits.commit(fixture.runtime);
      await stagePut(fixture, 'local:b', 'b');
      const parts = {
        collection: fixture.collection,
        failure: undefined,
        role: { mode: 'DEFAULT' as const },
        runtime: fixture.runtime,
        replicaRuntime: undefined,
        vacuum: undefined,
      };
      const view = collectionStateView({ ...parts, state: 'RUNNING' });
      assert.equal(view.collection, fixture.collection);
      assert.equal(view.mode, 'DEFAULT');
      assert.equal(view.documents, 1);
      assert.equal(view.stagedChanges, 1);
      assert.equal(view.generations, 1);
      assert.equal(typeof view.lastCommitTime, 'string');
      assert.equal(view.stats?.JournalAppends, 2);
      assert.equal(view.vacuum, undefined);

      const stopping = collectionStateView({ ...parts, state: 'STOPPING' });
      assert.deepEqual(stopping, { collection: fixture.collection, state: 'STOPPING', mode: 'DEFAULT' });
    } finally {
      await fixture.close();
    }
  });

  it('a FAILED collection says why and which file, over the role reason', () => {
    const view = collectionStateView({
      collection: 'c',
      state: 'FAILED',
      failure: { reason: 'index file live/g1.post is corrupt', file: 'live/g1.post' },
      role: { mode: 'DEFAULT', reason: 'push.run=false in conf/c/collection.cfg' },
      runtime: undefined,
      replicaRuntime: undefined,
      vacuum: { type: 'MERGE', state: 'FAILED', done: 0, total: 0, startedAt: '2026-01-01T00:00:00Z' },
    });
    assert.deepEqual(view, {
      collection: 'c',
      state: 'FAILED',
      mode: 'DEFAULT',
      reason: 'index file live/g1.post is corrupt',
      file: 'live/g1.post',
      vacuum: { type: 'MERGE', state: 'FAILED', done: 0, total: 0, startedAt: '2026-01-01T00:00:00Z' },
    });
    assert.deepEqual(Object.keys(view), ['collection', 'state', 'mode', 'reason', 'file', 'vacuum']);
  });
});
