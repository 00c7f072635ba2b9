import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchError } from '../../src/errors.js';
import { CommitPublisher, type CommitEvent, type CommitMerges } from '../../src/index/commit-publisher.js';
import { emptyStats } from '../../src/index/index-stats.js';
import { locationOf } from '../../src/index/key-locations.js';
import { LiveManifest } from '../../src/index/live-manifest.js';
import {
  emptyManifest,
  manifestFiles,
  publishManifest,
  readManifest,
  type Manifest,
} from '../../src/index/manifest.js';
import { SerialUpdater } from '../../src/index/serial-updater.js';
import type { Directory } from '../../src/index/store/directory.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';
import { FaultyDirectory } from '../support/faulty-directory.js';
import { flakyPending, manifestEntry, pendingOf, writtenGeneration } from '../support/written-generation.js';

/** Merges as a commit sees them; the test moves them along. */
function fakeMerges(): CommitMerges & {
  merging: Set<number>;
  running: number;
  failures: number;
  done: () => void;
  scheduled: number;
} {
  let finish: () => void = () => {};
  const merges = {
    merging: new Set<number>(),
    running: 0,
    failures: 0,
    scheduled: 0,
    isMerging: (generation: number) => merges.merging.has(generation),
    get runningCount() {
      return merges.running;
    },
    get failuresSinceSuccess() {
      return merges.failures;
    },
    anyDone: () => new Promise<void>((resolve) => (finish = resolve)),
    done: () => finish(),
    maybeMerge: () => void merges.scheduled++,
  };
  return merges;
}

/**
 * A published index holding generation 1 (`keys`), and a commit publisher over it with
 * fake merges, collecting its events.
 */
async function committing(
  keys: string[],
  options: { dir?: Directory; maxGenerations?: number; mergeCatchUpMs?: number } = {},
) {
  const dir = options.dir ?? new MemoryDirectory();
  const first = writtenGeneration(dir, 1, keys);
  const manifest: Manifest = {
    ...emptyManifest(),
    number: 1,
    nextGeneration: 2,
    generations: [manifestEntry(first)],
  };
  await publishManifest(dir, manifest, first.meta!.files);
  const state = new LiveManifest(dir, readManifest(dir)!);
  await state.load();
  const merges = fakeMerges();
  const counters = emptyStats();
  const events: CommitEvent[] = [];
  const updater = new SerialUpdater();
  const commits = new CommitPublisher({
    state,
    updater,
    merges,
    maxGenerations: options.maxGenerations ?? 64,
    mergeCatchUpMs: options.mergeCatchUpMs ?? 60_000,
    counters,
    emit: (event) => events.push(event),
  });
  return { dir, state, merges, counters, events, updater, commits };
}

const isCode = (code: string) => (error: unknown) => error instanceof SearchError && error.code === code;

describe('CommitPublisher', () => {
  it('publishes cuts as one manifest: new generations, older versions of changed keys killed, keys moved', async () => {
    const { dir, state, merges, counters, events, commits } = await committing(['a', 'b', 'c']);
    const cut = writtenGeneration(dir, state.allocateGeneration(), ['a', '-b', 'd', 'd']);
    assert.equal(commits.pendingChanges, 0);
    const result = await commits.commit([pendingOf(cut)], { journalSeq: 9, userData: { by: 'test' } });
    assert.deepEqual(result, { manifest: 2, generations: [2], changes: 4 });
    assert.equal(commits.pendingChanges, 0);

    const onDisk = readManifest(dir)!;
    assert.equal(onDisk.number, 2);
    assert.equal(onDisk.journalSeq, 9);
    assert.deepEqual(onDisk.userData, { by: 'test' });
    assert.deepEqual(
      onDisk.generations.map((g) => [g.generation, g.docCount, g.killedCount]),
      [
        [1, 3, 2],
        [2, 3, 1],
      ],
      'a and b are killed in generation 1; the first d is killed inside generation 2',
    );
    for (const name of manifestFiles(onDisk)) assert.ok(dir.fileExists(name), name);
    assert.equal(state.manifest.number, 2);
    assert.equal(state.keys.get('a'), locationOf(2, 0));
    assert.equal(state.keys.get('b'), undefined);
    assert.equal(state.keys.get('c'), locationOf(1, 2));
    assert.equal(state.keys.get('d'), locationOf(2, 2));
    assert.equal(counters.TotCommits, 1);
    assert.equal(counters.TotFlushes, 1);
    assert.deepEqual(
      events.map((e) => e.type),
      ['commit'],
    );
    assert.equal(merges.scheduled, 1, 'merges are considered after each commit');
  });

  it('publishes nothing without changes, but records a newer journal position', async () => {
    const { dir, commits } = await committing(['a']);
    assert.deepEqual(await commits.commit([], {}), { manifest: 1, generations: [], changes: 0 });
    assert.equal(readManifest(dir)!.number, 1);
    assert.deepEqual(await commits.commit([], { journalSeq: 4 }), {
      manifest: 2,
      generations: [],
      changes: 0,
    });
    assert.equal(readManifest(dir)!.journalSeq, 4);
  });

  it('drops a generation whose every document is killed, unless a merge reads it', async () => {
    const dropped = await committing(['a', 'b']);
    const cut = writtenGeneration(dropped.dir, dropped.state.allocateGeneration(), ['-a', '-b', 'c']);
    await dropped.commits.commit([pendingOf(cut)], {});
    assert.deepEqual(
      readManifest(dropped.dir)!.generations.map((g) => g.generation),
      [2],
    );
    assert.deepEqual(
      dropped.dir.listAll().filter((name) => name.startsWith('g1.')),
      [],
      'its files are deleted once nothing holds them',
    );

    const kept = await committing(['a', 'b']);
    kept.merges.merging.add(1);
    const keptCut = writtenGeneration(kept.dir, kept.state.allocateGeneration(), ['-a', '-b', 'c']);
    await kept.commits.commit([pendingOf(keptCut)], {});
    assert.deepEqual(
      readManifest(kept.dir)!.generations.map((g) => [g.generation, g.killedCount]),
      [
        [1, 2],
        [2, 0],
      ],
    );
  });

  it('keeps a cut whose write failed for the next commit, and says why the commit failed', async () => {
    const { dir, state, counters, commits } = await committing(['a']);
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    const broken = new Error('thread died');
    const cut = flakyPending(writtenGeneration(dir, state.allocateGeneration(), ['a', 'b']), [full, broken]);
    await assert.rejects(commits.commit([cut], {}), isCode('INSUFFICIENT_STORAGE'));
    await assert.rejects(commits.commit([], {}), (error: unknown) => {
      assert.ok(isCode('COMMIT_FAILED')(error));
      assert.match((error as Error).message, /writing a generation failed: thread died/);
      return true;
    });
    assert.equal(counters.TotCommitFailures, 2);
    assert.equal(state.manifest.number, 1, 'nothing was published');
    assert.equal(commits.pendingChanges, 2);
    assert.deepEqual(await commits.commit([], {}), { manifest: 2, generations: [2], changes: 2 });
    assert.equal(state.keys.get('b'), locationOf(2, 1));
  });

  it('leaves the live manifest as it was when any I/O of the publish fails, and publishes it all at the retry', async () => {
    let failures = 0;
    for (let operation = 1; ; operation++) {
      const dir = new FaultyDirectory();
      const { state, commits } = await committing(['a', 'b', 'c'], { dir });
      const cut = pendingOf(writtenGeneration(dir, state.allocateGeneration(), ['a', '-b', 'd']));
      dir.failAt(dir.operations + operation, 'error');
      const outcome = await commits.commit([cut], {}).then(
        () => null,
        (error: unknown) => error,
      );
      if (outcome === null) break;
      failures++;
      assert.ok(isCode('COMMIT_FAILED')(outcome), (outcome as Error).message);
      assert.equal(
        state.manifest.number,
        1,
        `operation ${operation}: this instance stays on the old manifest`,
      );
      assert.equal(state.keys.get('b'), locationOf(1, 1));
      assert.equal(commits.pendingChanges, 3, 'the cut waits for the next commit');
      const named = new Set(manifestFiles(readManifest(dir)!));
      const maybePublished = readManifest(dir)!.number === 2;
      // A killed-bits file whose own write failed is left for the next open to remove.
      const failedOnKilledBits = /\.del\)/.test((outcome as Error).message);
      if (!maybePublished && !failedOnKilledBits) {
        assert.deepEqual(
          dir.listAll().filter((name) => name.endsWith('.del') && !named.has(name)),
          [],
          `operation ${operation}: killed bits written for the failed publish are deleted`,
        );
      }
      const retried = await commits.commit([], {});
      assert.deepEqual(retried.generations, [2]);
      const onDisk = readManifest(dir)!;
      assert.deepEqual(
        onDisk.generations.map((g) => [g.generation, g.killedCount]),
        [
          [1, 2],
          [2, 0],
        ],
      );
      for (const name of manifestFiles(onDisk)) assert.ok(dir.fileExists(name), name);
      assert.equal(state.keys.get('b'), undefined);
      // What the failure left behind goes at the next open; nothing the manifest names does.
      await new LiveManifest(dir, onDisk).removeLeftovers();
      assert.deepEqual(dir.listAll().sort(), manifestFiles(onDisk).sort());
    }
    assert.ok(failures >= 5, `every I/O operation of a publish was failed once (${failures})`);
  });

  it('at the generation limit, waits for a running merge to make room before publishing', async () => {
    const { dir, state, merges, commits } = await committing(['a'], { maxGenerations: 1 });
    merges.running = 1;
    const cut = pendingOf(writtenGeneration(dir, state.allocateGeneration(), ['b']));
    const committed = commits.commit([cut], {});
    let settled = false;
    void committed.finally(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'the commit waits while a merge runs');
    // The merge is published: generation 1 is gone (as if merged away), and the merge ends.
    state.install({ ...state.manifest, number: 2, generations: [] }, new Map());
    merges.running = 0;
    merges.done();
    assert.deepEqual((await committed).generations, [2]);
  });

  it('at the generation limit, refuses with GENERATION_LIMIT when no merge runs or merges fail', async () => {
    const idle = await committing(['a'], { maxGenerations: 1 });
    const cut = pendingOf(writtenGeneration(idle.dir, idle.state.allocateGeneration(), ['b']));
    await assert.rejects(idle.commits.commit([cut], {}), (error: unknown) => {
      assert.ok(isCode('GENERATION_LIMIT')(error));
      assert.match((error as Error).message, /2 generations, above the limit of 1.*retry shortly/);
      return true;
    });
    assert.equal(idle.commits.pendingChanges, 1, 'the cut is kept for a later commit');

    const failing = await committing(['a'], { maxGenerations: 1 });
    failing.merges.running = 1;
    failing.merges.failures = 1;
    failing.counters.LastMergeError = 'disk on fire';
    const failingCut = pendingOf(writtenGeneration(failing.dir, failing.state.allocateGeneration(), ['b']));
    await assert.rejects(failing.commits.commit([failingCut], {}), /merges are failing: disk on fire/);
  });

  it('at the generation limit, stops waiting for merges after mergeCatchUpMs', async () => {
    const { dir, state, merges, commits } = await committing(['a'], {
      maxGenerations: 1,
      mergeCatchUpMs: 20,
    });
    merges.running = 1;
    const cut = pendingOf(writtenGeneration(dir, state.allocateGeneration(), ['b']));
    await assert.rejects(commits.commit([cut], {}), isCode('GENERATION_LIMIT'));
  });

  it('writes a cut made early (a full buffer) at once, and publishes it with the next commit', async () => {
    const { dir, state, events, updater, commits } = await committing(['a']);
    const early = writtenGeneration(dir, state.allocateGeneration(), ['b', 'c']);
    commits.addEarlyCut(pendingOf(early));
    assert.equal(commits.pendingChanges, 2);
    await updater.idle();
    assert.deepEqual(events, [{ type: 'flush', generation: 2, documents: 2 }]);
    const last = writtenGeneration(dir, state.allocateGeneration(), ['d']);
    const result = await commits.commit([pendingOf(last)], {});
    assert.deepEqual(result, { manifest: 2, generations: [2, 3], changes: 3 });
  });
});
