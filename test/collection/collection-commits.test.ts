/**
 * A collection's commits on a real index over the in-memory journal: what a commit leaves
 * behind (journal released, manifest marker, commit.log), auto-commit by count and by time,
 * and a failed commit.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { ManifestMarker } from '../../src/collection/manifest-marker.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { waitFor } from '../support/wait.js';
import { openRuntime, stagePut, storedText, type RuntimeFixture } from './runtime-fixture.js';

describe('CollectionCommits', () => {
  let fixture: RuntimeFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('a commit makes staged changes searchable, releases their journal records, and records its manifest', async () => {
    fixture = await openRuntime();
    const { runtime, store, commits, home, collection } = fixture;
    await stagePut(fixture, 'local:a', 'alpha');
    await stagePut(fixture, 'local:b', 'beta');
    assert.equal(store.records.length, 2);

    const answer = await commits.commit(runtime, 'req-1');
    assert.equal(answer.changes, 2);
    assert.equal(answer.manifest, runtime.index.lastCommit.manifest);
    assert.notEqual(answer.generation, null);
    assert.equal(runtime.index.lastCommit.journalSeq, 2);
    assert.equal(store.records.length, 0, 'committed records are released');
    assert.equal(runtime.index.stagedChanges, 0);
    assert.equal(storedText(fixture, 'local:b'), 'beta');

    const marker = new ManifestMarker(home, collection, silentPushLog());
    assert.equal(marker.isBehind(answer.manifest - 1), true, 'the marker holds this manifest');
    assert.equal(marker.isBehind(answer.manifest), false);
    const [line] = readFileSync(
      join(home.generationLogFolder(collection, answer.generation ?? -1), 'commit.log'),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as Record<string, unknown>);
    assert.equal(line?.step, 'commit');
    assert.equal(line?.manifest, answer.manifest);
    assert.equal(line?.changes, 2);
  });

  it('commits by itself once push.auto-commit.max-changes changes are staged', async () => {
    fixture = await openRuntime(['push.auto-commit.max-changes=2']);
    const { runtime, commits } = fixture;
    await stagePut(fixture, 'local:1', 'one');
    commits.afterStaged(runtime);
    assert.equal(runtime.commitsInFlight.size, 0, 'one change is below the count');
    await stagePut(fixture, 'local:2', 'two');
    commits.afterStaged(runtime);
    assert.equal(runtime.commitsInFlight.size, 1);
    await Promise.all([...runtime.commitsInFlight]);
    assert.equal(runtime.index.stagedChanges, 0);
    assert.equal(runtime.index.lastCommit.journalSeq, 2);
  });

  it('commits push.auto-commit.timeout-seconds after the first staged change, once', async () => {
    fixture = await openRuntime(['push.auto-commit.timeout-seconds=1']);
    const { runtime, commits } = fixture;
    const before = runtime.index.lastCommit.manifest;
    await stagePut(fixture, 'local:1', 'one');
    commits.afterStaged(runtime);
    const timer = runtime.autoCommitTimer;
    assert.notEqual(timer, undefined);
    await stagePut(fixture, 'local:2', 'two');
    commits.afterStaged(runtime);
    assert.equal(runtime.autoCommitTimer, timer, 'a later change does not push the commit back');
    await waitFor('the automatic commit', () => runtime.index.lastCommit.journalSeq === 2, 30_000);
    assert.equal(runtime.index.lastCommit.manifest, before + 1, 'one commit for both changes');
  });

  it('the timer of a runtime that is no longer the collection commits nothing', async () => {
    fixture = await openRuntime(['push.auto-commit.timeout-seconds=1']);
    const { runtime, commits } = fixture;
    await stagePut(fixture, 'local:1', 'one');
    commits.afterStaged(runtime);
    fixture.retire();
    // The timer clears its handle when it fires.
    await waitFor('the timer fired', () => runtime.autoCommitTimer === undefined, 30_000);
    assert.equal(runtime.commitsInFlight.size, 0);
    assert.equal(runtime.index.stagedChanges, 1);
  });

  it('a failed commit is logged as automatic or with its request, thrown, and keeps the journal', async () => {
    fixture = await openRuntime();
    const { runtime, commits, store, lines } = fixture;
    await stagePut(fixture, 'local:1', 'one');
    await runtime.index.close();
    await assert.rejects(commits.commit(runtime));
    await assert.rejects(commits.commit(runtime, 'req-7'));
    const failed = lines.filter((line) => line.msg === 'commit failed');
    assert.deepEqual(
      failed.map((line) => [line.origin, line.requestId]),
      [
        ['automatic', undefined],
        [undefined, 'req-7'],
      ],
    );
    assert.equal(store.records.length, 1, 'nothing committed, nothing released');
    assert.equal(runtime.commitsInFlight.size, 0);
  });
});
