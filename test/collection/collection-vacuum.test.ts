/**
 * Vacuums on a real index over the in-memory journal: MERGE, RE_INDEX under today's
 * configuration (a client's newer change kept), one vacuum at a time, and a RE_INDEX whose
 * runtime stops.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { SearchError } from '../../src/errors.js';
import { openRuntime, stagePut, storedText, vacuumOf, type RuntimeFixture } from './runtime-fixture.js';

describe('CollectionVacuum', () => {
  let fixture: RuntimeFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('MERGE leaves one generation with every document, and reports DONE', async () => {
    fixture = await openRuntime();
    const { runtime, commits } = fixture;
    for (const key of ['local:1', 'local:2', 'local:3']) {
      await stagePut(fixture, key, `text of ${key}`);
      await commits.commit(runtime);
    }
    assert.equal(runtime.index.stats().CurGenerations > 1, true);
    const vacuum = vacuumOf(fixture);
    const progress = await vacuum.run(runtime, 'MERGE', true);
    assert.equal(progress.state, 'DONE');
    assert.equal(progress.type, 'MERGE');
    assert.notEqual(progress.finishedAt, undefined);
    assert.equal(runtime.index.stats().CurGenerations, 1);
    assert.equal(runtime.index.stats().CurDocuments, 3);
    assert.deepEqual(vacuum.progress, progress);
  });

  it('RE_INDEX indexes every committed document again and keeps a client change not committed yet', async () => {
    fixture = await openRuntime();
    const { runtime, commits } = fixture;
    await stagePut(fixture, 'local:a', 'first a');
    await stagePut(fixture, 'local:b', 'first b');
    await commits.commit(runtime);
    await stagePut(fixture, 'local:b', 'client b');

    const progress = await vacuumOf(fixture).run(runtime, 'RE_INDEX', true);
    assert.equal(progress.state, 'DONE');
    assert.equal(progress.total, 2);
    assert.equal(progress.done, 2);
    assert.equal(runtime.index.stagedChanges, 0, 'the RE_INDEX ends with a commit');
    assert.equal(storedText(fixture, 'local:a'), 'first a');
    assert.equal(storedText(fixture, 'local:b'), 'client b', 'the client change is not overwritten');
    assert.equal(runtime.index.stats().CurDocuments, 2);
  });

  it('refuses a second vacuum while one runs; a vacuum without wait goes on in vacuumsInFlight', async () => {
    fixture = await openRuntime();
    const { runtime } = fixture;
    await stagePut(fixture, 'local:a', 'a');
    await fixture.commits.commit(runtime);
    const vacuum = vacuumOf(fixture);
    const started = await vacuum.run(runtime, 'RE_INDEX', false);
    assert.equal(started.state, 'RUNNING');
    assert.equal(runtime.vacuumsInFlight.size, 1);
    await assert.rejects(vacuum.run(runtime, 'MERGE', true), (error: SearchError) => {
      assert.equal(error.code, 'WRONG_STATE');
      assert.match(error.message, /a RE_INDEX vacuum is already running/);
      return true;
    });
    await Promise.all([...runtime.vacuumsInFlight]);
    assert.equal(vacuum.progress?.state, 'DONE');
    assert.equal(runtime.vacuumsInFlight.size, 0);
  });

  it('a RE_INDEX whose runtime stops ends FAILED with WRONG_STATE and is logged', async () => {
    fixture = await openRuntime();
    const { runtime, lines } = fixture;
    await stagePut(fixture, 'local:a', 'a');
    await fixture.commits.commit(runtime);
    fixture.retire();
    const vacuum = vacuumOf(fixture);
    await assert.rejects(vacuum.run(runtime, 'RE_INDEX', true, 'req-9'), (error: SearchError) => {
      assert.equal(error.code, 'WRONG_STATE');
      assert.match(error.message, /stopped during RE_INDEX/);
      return true;
    });
    assert.equal(vacuum.progress?.state, 'FAILED');
    assert.match(vacuum.progress?.error ?? '', /stopped during RE_INDEX/);
    const logged = lines.find((line) => line.msg === 'vacuum RE_INDEX failed');
    assert.equal(logged?.requestId, 'req-9');
    // The next vacuum is not refused: the failed one is over.
    fixture.current = true;
    assert.equal((await vacuum.run(runtime, 'MERGE', true)).state, 'DONE');
  });
});
