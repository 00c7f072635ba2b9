import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { manifestFiles, readManifest } from '../../src/index/manifest.js';
import { SearchIndex } from '../../src/index/search-index.js';
import type { Directory } from '../../src/index/store/directory.js';
import { FsDirectory } from '../../src/index/store/fs-directory.js';
import { FaultyFsDirectory, type UnsyncedFate } from '../support/faulty-fs-directory.js';
import { seededRandom } from '../support/seeded-random.js';

/**
 * The index with its indexing and merge worker threads on, under fault injection that
 * reaches into those threads (FaultyFsDirectory): write faults and crashes in any thread,
 * read faults, and Lucene MockDirectoryWrapper's checks (no file deleted while open, no
 * handle left open after close).
 */

const LONG = process.env.PUSHSEARCH_LONG_TESTS === '1';
const root = mkdtempSync(join(tmpdir(), 'pushsearch-worker-faults-'));
after(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const newFolder = () => join(root, `f${++folders}`);

type Model = Map<string, string>;

function openIndex(dir: Directory): Promise<SearchIndex> {
  return SearchIndex.open({
    directory: dir,
    indexThreads: 2,
    mergeThreads: 1,
    mergePolicy: { mergeFactor: 3, floorDocs: 2 },
  });
}

/**
 * Rounds of puts, replacements and deletes, each committed, with a forced merge in the middle
 * (automatic merges run meanwhile, in a worker). Returns the model of the last commit that
 * completed, the one of a commit that failed (it may have been published), and the staged state.
 */
async function workload(
  dir: Directory,
  tolerateErrors: boolean,
  beforeClose?: (index: SearchIndex) => Promise<void>,
): Promise<{ committed: Model; inFlight: Model | null; working: Model; errors: Error[] }> {
  const errors: Error[] = [];
  const tolerate = (error: unknown) => {
    if (!tolerateErrors) throw error;
    errors.push(error as Error);
  };
  const working: Model = new Map();
  let committed: Model = new Map();
  let inFlight: Model | null = null;
  let index: SearchIndex;
  try {
    index = await openIndex(dir);
  } catch (error) {
    tolerate(error);
    return { committed, inFlight, working, errors };
  }
  try {
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 5; i++) {
        const key = `http://site/${(round * 3 + i) % 11}`;
        const body = `round ${round} doc ${i} words`;
        index.put({ key, fields: { body }, stored: { body } });
        working.set(key, body);
      }
      const victim = `http://site/${(round * 7) % 11}`;
      index.delete(victim);
      working.delete(victim);
      const attempt = new Map(working);
      try {
        await index.commit();
        committed = attempt;
        inFlight = null;
      } catch (error) {
        inFlight = attempt;
        tolerate(error);
      }
      if (round === 3) await index.forceMerge().catch(tolerate);
    }
    await index.waitForMerges();
    await beforeClose?.(index);
  } finally {
    await index.close().catch(tolerate);
  }
  return { committed, inFlight, working, errors };
}

/** The documents of the last published manifest (read through `dir`). */
async function contentOf(dir: Directory): Promise<Model> {
  const index = await SearchIndex.open({ directory: dir, mergeThreads: 0, autoMerge: false });
  try {
    return searchable(index);
  } finally {
    await index.close();
  }
}

function searchable(index: SearchIndex): Model {
  const searcher = index.acquireSearcher();
  try {
    const model: Model = new Map();
    for (const { key, record } of searcher.liveDocuments()) model.set(key, record.body as string);
    return model;
  } finally {
    searcher.release();
  }
}

function sameModel(a: Model, b: Model): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}

/** Commits; a failure (the one injected fault) is recorded and the commit retried once. */
async function commitRetrying(index: SearchIndex, errors: Error[]): Promise<void> {
  try {
    await index.commit();
  } catch (error) {
    errors.push(error as Error);
    await index.commit();
  }
}

const show = (model: Model) => JSON.stringify([...model].sort());

/** The error an injected fault caused, as the caller sees it: an Error whose message says what failed. */
function assertClearError(error: Error, context: string): void {
  assert.ok(error instanceof Error, `${context}: threw ${String(error)}`);
  assert.match(
    error.message,
    /injected (write|read) fault|injected crash|the index is closed|is closing/,
    `${context}: the error says what failed: ${error.message}`,
  );
}

describe('the faulty directory itself', () => {
  it('reports a file deleted while open and a handle left open, naming the file', () => {
    const dir = FaultyFsDirectory.create(newFolder());
    const out = dir.createOutput('g1.tim');
    out.write(new Uint8Array([1, 2, 3]));
    out.close();
    const input = dir.openInput('g1.tim');
    dir.deleteFile('g1.tim');
    assert.throws(
      () => dir.assertClean(),
      /deleted while open: g1\.tim[\s\S]*handle left open: g1\.tim \(input/,
    );
    input.close();
    assert.throws(() => dir.assertClean(), /deleted while open: g1\.tim/);
  });

  it('after a crash keeps synced bytes, drops or garbles unsynced ones', async () => {
    const dir = FaultyFsDirectory.create(newFolder());
    const write = (name: string, bytes: number) => {
      const out = dir.createOutput(name);
      out.write(new Uint8Array(bytes).fill(7));
      out.close();
    };
    write('synced', 100);
    write('unsynced', 100);
    await dir.sync(['synced']);
    await dir.syncDirectory();
    write('late', 10); // created after the folder sync: its name is not durable
    const strict = newFolder();
    dir.crashed(strict);
    assert.deepEqual(new FsDirectory(strict).listAll(), ['synced', 'unsynced']);
    const sevens = Buffer.alloc(100, 7);
    assert.ok(sevens.equals(new FsDirectory(strict).readFile('synced')));
    assert.equal(new FsDirectory(strict).fileLength('unsynced'), 0);
    const garbled = newFolder();
    const fates = dir.crashed(garbled, seededRandom(1), ['garbage']);
    assert.equal(fates.get('unsynced'), 'garbage');
    const bytes = new FsDirectory(garbled).readFile('unsynced');
    assert.equal(bytes.length, 100);
    assert.ok(!sevens.equals(bytes));
    assert.ok(sevens.equals(new FsDirectory(garbled).readFile('synced')));
  });
});

describe('worker threads under fault injection', () => {
  it('indexing and merge workers write through the faulty directory; nothing left open', async () => {
    const dir = FaultyFsDirectory.create(newFolder());
    const { committed } = await workload(dir, false);
    assert.ok(
      dir.count('write', 'workers') > 20,
      `workers wrote through it (${dir.count('write', 'workers')})`,
    );
    assert.ok(
      dir.count('read', 'workers') > 5,
      `merge workers read through it (${dir.count('read', 'workers')})`,
    );
    dir.assertClean();
    assert.equal(show(await contentOf(dir)), show(committed));
    dir.assertClean();
  });

  it('a write fault inside a worker fails the commit or merge clearly; nothing is lost once the disk heals', async () => {
    const reference = FaultyFsDirectory.create(newFolder());
    const expected = (await workload(reference, false)).working;
    const total = reference.count('write', 'workers');
    const stride = LONG ? 1 : Math.max(1, Math.floor(total / 4));
    for (let at = 1; at <= total; at += stride) {
      const dir = FaultyFsDirectory.create(newFolder());
      dir.inject({ kind: 'write', threads: 'workers', at, mode: 'error' });
      let found: Model = new Map();
      const late: Error[] = [];
      const { working, errors } = await workload(dir, true, async (index) => {
        // The disk is healthy again after the one error: a last commit must publish everything.
        await commitRetrying(index, late);
        await index.waitForMerges();
        found = searchable(index);
      });
      errors.push(...late);
      dir.heal();
      for (const error of errors) assertClearError(error, `write fault at worker write ${at}`);
      assert.equal(show(found), show(working), `write fault at worker write ${at}`);
      assert.equal(show(working), show(expected));
      assert.equal(
        show(await contentOf(dir)),
        show(working),
        `durable after the fault at worker write ${at}`,
      );
      dir.assertClean();
    }
  });

  it('read faults in any thread surface as clear errors, never as wrong results', async () => {
    const reference = FaultyFsDirectory.create(newFolder());
    const expected = (await workload(reference, false)).working;
    const total = reference.count('read');
    assert.ok(total > 20, `the workload reads (${total})`);
    const stride = LONG ? 1 : Math.max(1, Math.floor(total / 5));
    for (let at = 1; at <= total; at += stride) {
      const dir = FaultyFsDirectory.create(newFolder());
      dir.inject({ kind: 'read', threads: 'any', at, mode: 'error' });
      let found: Model | null = null;
      const late: Error[] = [];
      const { working, errors } = await workload(dir, true, async (index) => {
        await commitRetrying(index, late);
        await index.waitForMerges();
        // A search either fails clearly or finds exactly the committed documents.
        for (let attempt = 0; attempt < 2 && found === null; attempt++) {
          try {
            found = searchable(index);
          } catch (error) {
            late.push(error as Error);
          }
        }
      });
      errors.push(...late);
      dir.heal();
      for (const error of errors) assertClearError(error, `read fault at read ${at}`);
      assert.ok(found !== null || working.size === 0, `read fault at read ${at}: the second search worked`);
      if (found !== null) assert.equal(show(found), show(working), `read fault at read ${at}: search`);
      if (working.size > 0) assert.equal(show(working), show(expected));
      // Reads are not writes: whatever failed, the folder holds everything once reads work again.
      assert.equal(show(await contentOf(dir)), show(working), `read fault at read ${at}: reopened`);
      dir.assertClean();
    }
  });

  it('a crash at any write of any thread loses no acknowledged commit, unsynced bytes dropped or garbled', async () => {
    const reference = FaultyFsDirectory.create(newFolder());
    await workload(reference, false);
    const total = reference.count('write');
    const stride = LONG ? 1 : Math.max(1, Math.floor(total / 5));
    const garbled = new Set<UnsyncedFate>();
    let workerCrashes = 0;
    for (let at = 1; at <= total; at += stride) {
      const dir = FaultyFsDirectory.create(newFolder());
      dir.inject({ kind: 'write', threads: 'any', at, mode: 'crash' });
      const { committed, inFlight, errors } = await workload(dir, true);
      for (const error of errors) assertClearError(error, `crash at write ${at}`);
      if (errors.some((e) => /thread [1-9]/.test(e.message))) workerCrashes++;
      dir.assertClean();
      // The strict model (unsynced bytes and names lost), then what a journaling file system may
      // keep: some later name operations, with the files' unsynced bytes cut or garbled.
      for (const random of [undefined, seededRandom(at)]) {
        const restarted = newFolder();
        for (const [, fate] of dir.crashed(restarted, random, ['prefix', 'garbage', 'zeros']))
          if (fate !== 'prefix') garbled.add(fate);
        const after = FaultyFsDirectory.create(restarted);
        const found = await contentOf(after);
        assert.ok(
          sameModel(found, committed) || (inFlight !== null && sameModel(found, inFlight)),
          `crash at write ${at}: found ${show(found)}, committed ${show(committed)}`,
        );
        // Reopened with its threads: every leftover removed, new commits and merges work.
        const index = await openIndex(after);
        index.put({
          key: 'http://site/new',
          fields: { body: 'after crash' },
          stored: { body: 'after crash' },
        });
        await index.commit();
        if (random !== undefined) await index.forceMerge();
        const manifest = readManifest(after)!;
        const needed = new Set(manifestFiles(manifest));
        assert.deepEqual(
          after.listAll().filter((name) => !needed.has(name)),
          [],
          'no file left that the manifest does not name',
        );
        await index.close();
        after.assertClean();
        assert.equal(
          show(await contentOf(new FsDirectory(restarted))),
          show(new Map([...found, ['http://site/new', 'after crash']])),
        );
      }
    }
    assert.ok(garbled.size > 0, 'some recoveries met files with garbled unsynced bytes');
    assert.ok(workerCrashes > 0, 'some crashes hit a worker thread');
  });
});
