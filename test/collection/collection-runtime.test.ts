/**
 * A runtime closed as a stop closes it, on a real index over the in-memory journal: the
 * commits and vacuums it runs end first (what they commit stays, their journal records are
 * released), and a closed runtime acknowledges no change.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { closeRuntime } from '../../src/collection/collection-runtime.js';
import type { SearchError } from '../../src/errors.js';
import { openRuntime, stagePut, vacuumOf, type RuntimeFixture } from './runtime-fixture.js';

describe('closeRuntime', () => {
  let fixture: RuntimeFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('lets a commit in flight finish and release its journal records before the journal closes', async () => {
    fixture = await openRuntime();
    const { runtime, commits, store } = fixture;
    await stagePut(fixture, 'local:a', 'a');
    await stagePut(fixture, 'local:b', 'b');
    assert.equal(store.records.length, 2);
    // The order the journal is used in (a file journal refuses a release once closed).
    const calls: string[] = [];
    const { journal } = runtime;
    const release = journal.releaseThrough.bind(journal);
    const close = journal.close.bind(journal);
    journal.releaseThrough = (seq) => (calls.push(`release ${seq}`), release(seq));
    journal.close = () => (calls.push('close'), close());
    const commit = commits.commit(runtime);
    fixture.retire();
    await closeRuntime(runtime);
    const answer = await commit;
    assert.equal(answer.changes, 2);
    assert.notEqual(answer.generation, null);
    assert.deepEqual(calls, ['release 2', 'close']);
    assert.equal(store.records.length, 0, 'a start after this stop replays nothing twice');
    assert.equal(runtime.commitsInFlight.size, 0);
  });

  it('resolves only once a vacuum started without waiting has ended', async () => {
    fixture = await openRuntime();
    const f = fixture;
    const { runtime } = f;
    await stagePut(f, 'local:a', 'a');
    await f.commits.commit(runtime);
    const vacuum = vacuumOf(f);
    assert.equal((await vacuum.run(runtime, 'RE_INDEX', false)).state, 'RUNNING');
    f.retire();
    await closeRuntime(runtime);
    assert.equal(runtime.vacuumsInFlight.size, 0);
    assert.notEqual(vacuum.progress?.state, 'RUNNING');
  });

  it('a closed runtime acknowledges no change: the journal refuses it', async () => {
    fixture = await openRuntime();
    const { runtime } = fixture;
    fixture.retire();
    await closeRuntime(runtime);
    await assert.rejects(stagePut(fixture, 'local:late', 'too late'), (error: SearchError) => {
      assert.equal(error.code, 'JOURNAL_CLOSED');
      return true;
    });
    assert.equal(fixture.store.records.length, 0);
  });
});
