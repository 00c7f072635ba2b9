import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FileDeleter } from '../../src/index/file-deleter.js';
import type { GenerationMeta } from '../../src/index/generation/generation-files.js';
import type { GenerationReader } from '../../src/index/generation/generation-reader.js';
import { KilledBits } from '../../src/index/generation/killed-bits.js';
import { LiveGeneration } from '../../src/index/generation/live-generation.js';
import {
  KeyLocations,
  locationOf,
  docOfLocation,
  generationOfLocation,
} from '../../src/index/key-locations.js';
import { emptyManifest, MANIFEST_FILE } from '../../src/index/manifest.js';
import { DEFAULT_MERGE_POLICY } from '../../src/index/merge/merge-policy.js';
import { MergeScheduler, type MergeEvent, type MergeHost } from '../../src/index/merge/merge-scheduler.js';
import { ReaderPool } from '../../src/index/reader-pool.js';
import { SearchIndex } from '../../src/index/search-index.js';
import { SerialUpdater } from '../../src/index/serial-updater.js';
import type { Directory } from '../../src/index/store/directory.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';
import { SearchError } from '../../src/errors.js';

function writeFile(dir: Directory, name: string): void {
  const out = dir.createOutput(name);
  out.write(new Uint8Array([1, 2, 3]));
  out.close();
}

/** A promise with its resolve function outside. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('SerialUpdater', () => {
  it('runs work one piece at a time, in order, and goes on after a failure', async () => {
    const updater = new SerialUpdater();
    const log: string[] = [];
    const gate = deferred();
    const first = updater.run(async () => {
      log.push('first starts');
      await gate.promise;
      log.push('first ends');
    });
    const second = updater.run(async () => {
      log.push('second');
      throw new Error('boom');
    });
    const third = updater.run(async () => {
      log.push('third');
      return 3;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log, ['first starts'], 'the second waits for the first');
    gate.resolve();
    await first;
    await assert.rejects(second, /boom/);
    assert.equal(await third, 3);
    assert.deepEqual(log, ['first starts', 'first ends', 'second', 'third']);
  });

  it('refuses work once closed, and idle() waits for what was queued before', async () => {
    const updater = new SerialUpdater();
    const gate = deferred();
    let ran = false;
    const queued = updater.run(async () => {
      await gate.promise;
      ran = true;
    });
    updater.close();
    await assert.rejects(
      updater.run(async () => undefined),
      (error: unknown) => error instanceof SearchError && error.code === 'INDEX_CLOSED',
    );
    const idle = updater.idle();
    gate.resolve();
    await idle;
    assert.equal(ran, true);
    await queued;
  });
});

describe('FileDeleter', () => {
  it('deletes a file when its last holder lets go, never the manifest', () => {
    const dir = new MemoryDirectory();
    for (const name of ['g1.doc', 'g1.tim', 'g2.doc', MANIFEST_FILE]) writeFile(dir, name);
    const files = new FileDeleter(dir);
    files.incRef(['g1.doc', 'g1.tim', MANIFEST_FILE]);
    files.incRef(['g1.doc', 'g2.doc', MANIFEST_FILE]);
    assert.equal(files.referenceCount('g1.doc'), 2);
    assert.equal(files.referenceCount(MANIFEST_FILE), 0);
    files.decRef(['g1.doc', 'g1.tim', MANIFEST_FILE]);
    assert.deepEqual(dir.listAll().sort(), ['g1.doc', 'g2.doc', MANIFEST_FILE].sort());
    files.decRef(['g1.doc', 'g2.doc', MANIFEST_FILE]);
    assert.deepEqual(dir.listAll(), [MANIFEST_FILE]);
  });

  it('deletes only unreferenced files of a generation, and nothing once released', () => {
    const dir = new MemoryDirectory();
    for (const name of ['g3.doc', 'g3.tim', 'g4.doc']) writeFile(dir, name);
    const files = new FileDeleter(dir);
    files.incRef(['g3.doc']);
    files.deleteUnreferencedGeneration(3);
    assert.deepEqual(dir.listAll().sort(), ['g3.doc', 'g4.doc']);
    files.release();
    files.decRef(['g3.doc']);
    files.deleteUnreferencedGeneration(4);
    assert.deepEqual(dir.listAll().sort(), ['g3.doc', 'g4.doc'], 'a released folder belongs to someone else');
  });

  it('removes leftovers no manifest names and reports the highest generation seen', async () => {
    const dir = new MemoryDirectory();
    for (const name of ['g1.doc', 'g9.doc', 'g9_2.del', 'unrelated.txt']) writeFile(dir, name);
    const manifest = emptyManifest();
    manifest.generations = [
      { generation: 1, docCount: 1, killedCount: 0, killedFile: null, files: ['g1.doc'], sizeBytes: 3 },
    ];
    const highest = await new FileDeleter(dir).removeLeftovers(manifest);
    assert.equal(highest, 9);
    assert.deepEqual(dir.listAll().sort(), ['g1.doc', 'unrelated.txt']);
  });
});

describe('ReaderPool', () => {
  it('opens a generation once however many hold it, and closes it after the last release', () => {
    const opened: number[] = [];
    const closed: number[] = [];
    const pool = new ReaderPool(new MemoryDirectory(), (_dir, generation) => {
      opened.push(generation);
      return { generation, close: () => closed.push(generation) } as unknown as GenerationReader;
    });
    const a = pool.acquire(5);
    const b = pool.acquire(5);
    assert.equal(a, b);
    pool.acquire(6);
    assert.deepEqual(opened, [5, 6]);
    pool.release(5);
    assert.deepEqual(closed, []);
    pool.release(5);
    assert.deepEqual(closed, [5]);
    assert.deepEqual(pool.openGenerations, [6]);
    pool.closeAll();
    assert.deepEqual(closed, [5, 6]);
    assert.deepEqual(pool.openGenerations, []);
  });
});

describe('KeyLocations', () => {
  it('encodes generation and docId in one number', () => {
    const location = locationOf(70_000, 2_000_000_000);
    assert.equal(generationOfLocation(location), 70_000);
    assert.equal(docOfLocation(location), 2_000_000_000);
  });

  it('reads the live keys of a generation and moves merged keys to the result', async () => {
    const index = await SearchIndex.open({
      directory: new MemoryDirectory(),
      mergeThreads: 0,
      autoMerge: false,
    });
    for (const key of ['a', 'b', 'c']) index.put({ key, fields: { body: key }, stored: {} });
    await index.commit();
    const searcher = index.acquireSearcher();
    const generation = searcher.generations[0]!;
    const withKilled = new LiveGeneration(
      generation.reader,
      new KilledBits(generation.maxDoc).with([1]),
      null,
    );
    const keys = new KeyLocations();
    keys.addLater([withKilled]);
    assert.equal(keys.building, true);
    assert.equal(keys.size, 2, 'the killed document has no key');
    assert.equal(keys.building, false, 'asking finished the build at once');
    const g = generation.generation;
    assert.equal(keys.get('a'), locationOf(g, 0));
    assert.equal(keys.get('c'), locationOf(g, 2));
    keys.remap(new Map([[g, Int32Array.from([0, -1, 1])]]), 99);
    assert.equal(keys.get('a'), locationOf(99, 0));
    assert.equal(keys.get('c'), locationOf(99, 1));
    searcher.release();
    await index.close();
  });

  it('builds later, in the background in slices, the newer generation winning, and stops when told', async () => {
    const index = await SearchIndex.open({
      directory: new MemoryDirectory(),
      mergeThreads: 0,
      autoMerge: false,
    });
    const count = 20_000;
    for (let i = 0; i < count; i++) index.put({ key: `k${i}`, fields: { body: 'x' }, stored: {} });
    await index.commit();
    // The newer generation replaces every tenth key (the older copies are killed).
    for (let i = 0; i < count; i += 10) index.put({ key: `k${i}`, fields: { body: 'y' }, stored: {} });
    await index.commit();
    const searcher = index.acquireSearcher();
    const [older, newer] = searcher.generations as LiveGeneration[];
    const keys = new KeyLocations();
    keys.addLater([older!, newer!]);
    keys.buildInBackground();
    let slices = 0;
    while (keys.building) {
      slices++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(slices >= 1, 'the build went on after buildInBackground returned');
    assert.equal(keys.size, count);
    assert.equal(keys.get('k10'), locationOf(newer!.generation, 1));
    assert.equal(keys.get('k11'), locationOf(older!.generation, 11));

    const stopped = new KeyLocations();
    stopped.addLater([older!, newer!]);
    stopped.buildInBackground();
    stopped.stopBuild();
    assert.equal(stopped.building, false);
    assert.equal(stopped.size, 0, 'a stopped build adds nothing more');
    searcher.release();
    await index.close();
  });
});

/** A merge host over plain generations, recording what the scheduler asks for. */
function fakeHost(generations: { generation: number; maxDoc: number; killedCount: number }[]) {
  const events: MergeEvent[] = [];
  const published: number[][] = [];
  const deleted: number[] = [];
  const outcomes: (string | null)[] = [];
  let live = generations.map(
    (g) => ({ ...g, killed: null, killedFileName: null }) as unknown as LiveGeneration,
  );
  let next = 100;
  let holds = 0;
  const host: MergeHost = {
    dir: new MemoryDirectory(),
    policy: { ...DEFAULT_MERGE_POLICY, mergeFactor: 2, maxMergeAtOnce: 2, floorDocs: 10 },
    mergeThreads: 1,
    autoMerge: true,
    closed: false,
    liveGenerations: () => live,
    allocateGeneration: () => next++,
    hold: () => {
      holds++;
      return { release: () => holds-- };
    },
    publish: async (sources, _killed, meta) => {
      published.push(sources.map((s) => s.generation));
      const inputs = new Set(sources.map((s) => s.generation));
      live = [
        ...live.filter((g) => !inputs.has(g.generation)),
        { generation: meta.generation, maxDoc: meta.docCount, killedCount: 0 } as unknown as LiveGeneration,
      ];
    },
    deleteGeneration: (generation) => deleted.push(generation),
    snapshotOnFailure: async () => null,
    recordOutcome: (error) => outcomes.push(error?.message ?? null),
    emit: (event) => events.push(event),
  };
  return { host, events, published, deleted, outcomes, holds: () => holds };
}

const metaOf = (generation: number, docCount: number): GenerationMeta =>
  ({ generation, docCount, files: [], sizeBytes: 0, fields: [] }) as unknown as GenerationMeta;

describe('MergeScheduler', () => {
  it('runs what the policy chooses, one merge per thread, and publishes the result', async () => {
    const fake = fakeHost([
      { generation: 1, maxDoc: 5, killedCount: 0 },
      { generation: 2, maxDoc: 5, killedCount: 0 },
    ]);
    const gate = deferred();
    const runs: number[][] = [];
    const scheduler = new MergeScheduler(fake.host, async (_dir, inputs, into) => {
      runs.push(inputs.map((i) => i.generation));
      await gate.promise;
      return metaOf(into, 10);
    });
    scheduler.maybeMerge();
    assert.equal(scheduler.runningCount, 1);
    assert.equal(scheduler.isMerging(1), true);
    assert.equal(fake.holds(), 1, 'the inputs are held while the merge runs');
    scheduler.maybeMerge();
    assert.equal(scheduler.runningCount, 1, 'a generation is never in two merges');
    gate.resolve();
    await scheduler.waitForMerges();
    assert.deepEqual(runs, [[1, 2]]);
    assert.deepEqual(fake.published, [[1, 2]]);
    assert.deepEqual(fake.outcomes, [null]);
    assert.equal(fake.holds(), 0);
    assert.deepEqual(
      fake.events.map((e) => e.type),
      ['merge-start', 'merge-done'],
    );
    await scheduler.close();
  });

  it('reports a failed merge, deletes its output and backs off before retrying the same inputs', async () => {
    const fake = fakeHost([
      { generation: 1, maxDoc: 5, killedCount: 0 },
      { generation: 2, maxDoc: 5, killedCount: 0 },
    ]);
    let attempts = 0;
    const scheduler = new MergeScheduler(fake.host, async () => {
      attempts++;
      throw new Error('disk on fire');
    });
    scheduler.maybeMerge();
    await scheduler.waitForMerges();
    assert.equal(attempts, 1, 'no immediate retry after the failure');
    assert.deepEqual(fake.deleted, [100]);
    assert.deepEqual(fake.outcomes, ['disk on fire']);
    assert.equal(scheduler.failuresSinceSuccess, 1);
    const failed = fake.events.find((e) => e.type === 'merge-failed');
    assert.ok(
      failed !== undefined && failed.type === 'merge-failed' && failed.error.message === 'disk on fire',
    );
    scheduler.maybeMerge();
    assert.equal(scheduler.runningCount, 0, 'the inputs wait for their retry time');
    await scheduler.close();
  });

  it('forces a merge of every generation even when auto-merge is off, and refuses once the host closed', async () => {
    const fake = fakeHost([
      { generation: 1, maxDoc: 1000, killedCount: 0 },
      { generation: 2, maxDoc: 3, killedCount: 1 },
      { generation: 3, maxDoc: 2, killedCount: 0 },
    ]);
    const host = { ...fake.host, autoMerge: false };
    const scheduler = new MergeScheduler(host, async (_dir, inputs, into) => {
      assert.deepEqual(
        inputs.map((i) => i.generation),
        [1, 2, 3],
      );
      return metaOf(into, 1004);
    });
    scheduler.maybeMerge();
    assert.equal(scheduler.runningCount, 0);
    await scheduler.forceMerge();
    assert.deepEqual(fake.published, [[1, 2, 3]]);
    const closedHost = fakeHost([
      { generation: 1, maxDoc: 5, killedCount: 0 },
      { generation: 2, maxDoc: 5, killedCount: 0 },
    ]).host;
    const closedScheduler = new MergeScheduler({ ...closedHost, closed: true }, async () => metaOf(0, 0));
    await assert.rejects(closedScheduler.forceMerge(), /closed/);
    await scheduler.close();
  });
});
