import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';
import { CorruptIndexError, SearchError, isSearchError } from '../../src/errors.js';
import { KEY_FIELD } from '../../src/index/document.js';
import type { LiveGeneration } from '../../src/index/generation/live-generation.js';
import { mergeGenerations } from '../../src/index/generation/merge-generations.js';
import { SearchIndex, type IndexEvent } from '../../src/index/search-index.js';
import { FsDirectory } from '../../src/index/store/fs-directory.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';

const folders: string[] = [];
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'pushsearch-index-'));
  folders.push(folder);
  return folder;
}
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function doc(key: string, body: string, title = '') {
  return { key, fields: { body, t: title }, stored: { title, body } };
}

function keysOf(index: SearchIndex): string[] {
  const searcher = index.acquireSearcher();
  try {
    return [...searcher.liveDocuments()].map((d) => d.key).sort();
  } finally {
    searcher.release();
  }
}

describe('SearchIndex', () => {
  it('makes staged documents visible only after commit', async () => {
    const index = await SearchIndex.open({ directory: new MemoryDirectory(), mergeThreads: 0 });
    index.put(doc('http://a/1', 'hello world', 'One'));
    assert.equal(index.stagedChanges, 1);
    const before = index.acquireSearcher();
    assert.equal(before.getDocument('http://a/1'), null);
    const result = await index.commit({ journalSeq: 7 });
    assert.equal(result.changes, 1);
    assert.equal(index.stagedChanges, 0);
    assert.equal(before.getDocument('http://a/1'), null, 'an open searcher keeps its point in time');
    before.release();
    const searcher = index.acquireSearcher();
    assert.equal(searcher.getDocument('http://a/1')?.record.title, 'One');
    assert.equal(index.lastCommit.journalSeq, 7);
    searcher.release();
    await index.close();
  });

  it('replaces and deletes documents across generations and after reopening', async () => {
    const dir = new MemoryDirectory();
    let index = await SearchIndex.open({ directory: dir, mergeThreads: 0, autoMerge: false });
    index.put(doc('k:1', 'first version'));
    index.put(doc('k:2', 'second doc'));
    index.put(doc('k:3', 'third doc'));
    await index.commit();
    index.put(doc('k:1', 'replaced version'));
    index.delete('k:2');
    index.delete('k:absent');
    await index.commit();
    assert.deepEqual(keysOf(index), ['k:1', 'k:3']);
    const s = index.acquireSearcher();
    assert.equal(s.getDocument('k:1')?.record.body, 'replaced version');
    assert.equal(s.documentCount, 2);
    s.release();
    assert.equal(index.stats().CurKilled, 2);
    await index.close();
    index = await SearchIndex.open({ directory: dir, mergeThreads: 0, autoMerge: false });
    assert.deepEqual(keysOf(index), ['k:1', 'k:3']);
    index.put(doc('k:3', 'third again'));
    await index.commit();
    assert.deepEqual(keysOf(index), ['k:1', 'k:3']);
    assert.equal(index.acquireSearcher().getDocument('k:3')?.record.body, 'third again');
    await index.close();
  });

  it('handles a key put, deleted and put again inside one commit', async () => {
    const index = await SearchIndex.open({ directory: new MemoryDirectory(), mergeThreads: 0 });
    index.put(doc('k:x', 'old'));
    await index.commit();
    index.put(doc('k:x', 'one'));
    index.delete('k:x');
    index.put(doc('k:x', 'two'));
    index.put(doc('k:y', 'y'));
    index.delete('k:y');
    await index.commit();
    assert.deepEqual(keysOf(index), ['k:x']);
    assert.equal(index.acquireSearcher().getDocument('k:x')?.record.body, 'two');
    await index.close();
  });

  it('merges automatically and drops killed documents on forceMerge', async () => {
    const events: IndexEvent[] = [];
    const index = await SearchIndex.open({
      directory: new MemoryDirectory(),
      mergeThreads: 0,
      mergePolicy: { mergeFactor: 3, floorDocs: 10 },
      onEvent: (e) => events.push(e),
    });
    for (let round = 0; round < 9; round++) {
      for (let i = 0; i < 5; i++) index.put(doc(`k:${round}-${i}`, `round ${round} item ${i}`));
      if (round > 0) index.delete(`k:${round - 1}-0`);
      await index.commit();
    }
    await index.waitForMerges();
    assert.ok(
      events.some((e) => e.type === 'merge-done'),
      'some merge ran',
    );
    assert.ok(index.stats().CurGenerations < 9);
    await index.forceMerge();
    const stats = index.stats();
    assert.equal(stats.CurGenerations, 1);
    assert.equal(stats.CurKilled, 0);
    assert.equal(stats.CurDocuments, 45 - 8);
    assert.equal(keysOf(index).length, 37);
    assert.equal(index.acquireSearcher().getDocument('k:8-4')?.record.body, 'round 8 item 4');
    await index.close();
  });

  it('copies the compressed stored blocks of a generation without killed documents into a merge', async () => {
    const directory = new MemoryDirectory();
    const index = await SearchIndex.open({ directory, mergeThreads: 0, mergePolicy: { mergeFactor: 100 } });
    // About 1 KB a record: each generation spans several stored blocks.
    const body = (n: number) => `document ${n} ` + 'lorem ipsum dolor sit amet '.repeat(40) + n;
    for (let n = 0; n < 40; n++) index.put(doc(`k:${n}`, body(n), `title ${n}`));
    await index.commit();
    for (let n = 40; n < 80; n++) index.put(doc(`k:${n}`, body(n), `title ${n}`));
    await index.commit();
    index.delete('k:45');
    await index.commit();
    const before = index.acquireSearcher();
    const [clean, withKilled] = before.generations.map((g) => g as LiveGeneration);
    assert.equal(clean!.killedCount, 0);
    assert.equal(withKilled!.killedCount, 1);
    const cleanBlocks = [...clean!.reader.compressedStoredBlocks()!].map((b) => Buffer.from(b.bytes));
    assert.ok(cleanBlocks.length > 1, `${cleanBlocks.length} blocks`);
    before.release();

    // Count what the merge compresses (the codec imports brotliCompressSync from node:zlib).
    const compress = zlib.brotliCompressSync;
    let compressedBytes = 0;
    zlib.brotliCompressSync = ((input: Uint8Array, options?: zlib.BrotliOptions) => {
      compressedBytes += input.byteLength;
      return compress(input, options);
    }) as typeof compress;
    syncBuiltinESMExports();
    try {
      await index.forceMerge();
    } finally {
      zlib.brotliCompressSync = compress;
      syncBuiltinESMExports();
    }
    // Only the 39 live records (about 1.1 KB each) of the generation with a killed document.
    assert.ok(compressedBytes > 39 * 1000 && compressedBytes < 60_000, `${compressedBytes} bytes compressed`);
    const after = index.acquireSearcher();
    try {
      assert.equal(after.generations.length, 1);
      const merged = [...(after.generations[0] as LiveGeneration).reader.compressedStoredBlocks()!];
      // The clean generation's blocks come first, byte for byte, at its docIds.
      assert.deepEqual(
        merged.slice(0, cleanBlocks.length).map((b) => Buffer.from(b.bytes)),
        cleanBlocks,
      );
      assert.equal(
        merged[cleanBlocks.length]!.firstDoc,
        40,
        'the second input starts after the 40 copied documents',
      );
      for (let n = 0; n < 80; n++) {
        const found = after.getDocument(`k:${n}`);
        if (n === 45) assert.equal(found, null);
        else
          assert.deepEqual(
            found?.record,
            { [KEY_FIELD]: `k:${n}`, title: `title ${n}`, body: body(n) },
            `k:${n}`,
          );
      }
    } finally {
      after.release();
    }
    await index.close();
  });

  it('carries over kills made while a merge runs', async () => {
    let commitDuringMerge: Promise<unknown> | undefined;
    const index: SearchIndex = await SearchIndex.open({
      directory: new MemoryDirectory(),
      mergeThreads: 0,
      autoMerge: false,
      onEvent: (e) => {
        // The merge has taken its inputs; these changes land in them while it runs.
        if (e.type === 'merge-start' && commitDuringMerge === undefined) {
          index.delete('k:1');
          index.put(doc('k:2', 'changed during merge'));
          commitDuringMerge = index.commit();
        }
      },
    });
    for (let i = 0; i < 4; i++) {
      index.put(doc(`k:${i}`, `text ${i}`));
      await index.commit();
    }
    await index.forceMerge();
    await commitDuringMerge;
    assert.equal(
      index.stats().CurKilled,
      2,
      'the merged generation carries the kills of k:1 and the old k:2',
    );
    assert.deepEqual(keysOf(index), ['k:0', 'k:2', 'k:3']);
    assert.equal(index.acquireSearcher().getDocument('k:2')?.record.body, 'changed during merge');
    await index.forceMerge();
    assert.equal(index.stats().CurKilled, 0);
    assert.deepEqual(keysOf(index), ['k:0', 'k:2', 'k:3']);
    await index.close();
  });

  it('merges in worker threads on a real folder and keeps files a searcher holds', async () => {
    const folder = tempFolder();
    const index = await SearchIndex.open({ directory: folder, mergeThreads: 2, autoMerge: false });
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 50; i++) index.put(doc(`http://x/${round}/${i}`, `alpha beta ${round} ${i}`));
      await index.commit();
    }
    const held = index.acquireSearcher();
    const heldFiles = held.generations.map((g) => `g${g.generation}.doc`);
    await index.forceMerge();
    assert.equal(index.stats().CurGenerations, 1);
    for (const file of heldFiles)
      assert.ok(existsSync(join(folder, file)), `${file} kept while a searcher uses it`);
    assert.equal(held.documentCount, 250);
    held.release();
    for (const file of heldFiles) assert.ok(!existsSync(join(folder, file)), `${file} deleted after release`);
    assert.equal(keysOf(index).length, 250);
    await index.close();
  });

  it('a merge asked to stop ends at the next term or block, releases its files, and leaves the index as it was', async () => {
    const folder = tempFolder();
    const index = await SearchIndex.open({
      directory: folder,
      indexThreads: 0,
      mergeThreads: 0,
      autoMerge: false,
    });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 300; i++)
        index.put(
          doc(`http://x/${round}/${i}`, `alpha beta gamma ${round} ${i} word${i % 17}`, `title ${i}`),
        );
      await index.commit();
    }
    const keys = keysOf(index);
    await index.close();
    const generations = readdirSync(folder)
      .filter((name) => name.endsWith('.gen'))
      .map((name) => Number(name.slice(1, -4)));
    assert.equal(generations.length, 3);
    const openFiles = () => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : 0);
    const before = openFiles();
    // Stopped in the first field's terms, in a later field, and in the stored blocks.
    const stops = [1, 40, 400];
    const unfinished = (name: string) => stops.some((_, k) => name.startsWith(`g${90 + k}.`));
    stops.forEach((stopAfter, k) => {
      let asked = 0;
      assert.throws(
        () =>
          mergeGenerations(
            new FsDirectory(folder),
            generations.map((generation) => ({ generation, killedFile: null })),
            90 + k,
            () => ++asked > stopAfter,
          ),
        (error: unknown) => error instanceof SearchError && error.code === 'MERGE_ABORTED',
      );
      assert.equal(openFiles(), before, `no file left open (stopped after ${stopAfter} checks)`);
    });
    assert.ok(readdirSync(folder).some(unfinished), 'the stopped merges wrote part of their files');
    const reopened = await SearchIndex.open({
      directory: folder,
      indexThreads: 0,
      mergeThreads: 0,
      autoMerge: false,
    });
    assert.deepEqual(keysOf(reopened), keys);
    assert.ok(!readdirSync(folder).some(unfinished), 'the unfinished files are removed at open');
    await reopened.close();
  });

  it('closing the index stops merge and indexing threads by asking them, never by terminating them', async () => {
    // A thread terminated inside a compression call can abort the whole process.
    const terminate = Object.getOwnPropertyDescriptor(Worker.prototype, 'terminate')!;
    let terminated = 0;
    Object.defineProperty(Worker.prototype, 'terminate', {
      ...terminate,
      value(this: Worker) {
        terminated++;
        return (terminate.value as (this: Worker) => Promise<number>).call(this);
      },
    });
    try {
      const folder = tempFolder();
      let mergeStarted: () => void = () => undefined;
      const merging = new Promise<void>((resolve) => (mergeStarted = resolve));
      const index = await SearchIndex.open({
        directory: folder,
        indexThreads: 2,
        mergeThreads: 1,
        autoMerge: false,
        onEvent: (event) => {
          if (event.type === 'merge-start') mergeStarted();
        },
      });
      for (let round = 0; round < 6; round++) {
        for (let i = 0; i < 1500; i++)
          index.put(
            doc(
              `http://x/${round}/${i}`,
              `alpha beta gamma delta ${round} ${i} word${i % 97} ${'lorem ipsum '.repeat(20)}`,
              `title ${i}`,
            ),
          );
        await index.commit();
      }
      index.put(doc('http://x/staged', 'staged only'));
      const merge = index.forceMerge().then(
        () => 'finished',
        (error: unknown) => (isSearchError(error) ? error.code : String(error)),
      );
      // Closed while the merge runs: from its start event, not after a guessed delay.
      await merging;
      await index.close();
      assert.ok(['finished', 'MERGE_ABORTED'].includes(await merge), await merge);
      assert.equal(terminated, 0);
    } finally {
      Object.defineProperty(Worker.prototype, 'terminate', terminate);
    }
  });

  it('indexes in worker threads with the same results, including early flushes', async () => {
    const folder = tempFolder();
    let earlyFlushes = 0;
    let flushed: () => void = () => undefined;
    const index = await SearchIndex.open({
      directory: folder,
      indexThreads: 2,
      ramBufferBytes: 64 * 1024,
      mergeThreads: 1,
      keepStagedDocuments: true,
      onEvent: (event) => {
        if (event.type === 'flush' && ++earlyFlushes >= 2) flushed();
      },
    });
    const twoEarlyFlushes = new Promise<void>((resolve) => (flushed = resolve));
    // Distinct words in every document, so that each worker's 1 MiB buffer fills several times.
    const words = (i: number) => Array.from({ length: 60 }, (_, j) => `w${i}x${j}`).join(' ');
    for (let i = 0; i < 2000; i++) {
      index.put(doc(`http://w/${i}`, `worker text number ${i} ${words(i)}`, `title ${i}`));
      // Let the workers' answers in (a full buffer is announced between batches).
      if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    }
    await twoEarlyFlushes;
    index.delete('http://w/5');
    index.put(doc('http://w/6', 'replaced six'));
    assert.equal(index.stagedDocument('http://w/6')?.body, 'replaced six');
    assert.equal(index.stagedDocument('http://w/5'), null);
    assert.equal(index.stagedDocument('http://w/nothing'), undefined);
    assert.equal(index.stagedChanges, 2002);
    const result = await index.commit();
    assert.equal(result.changes, 2002);
    assert.ok(result.generations.length >= 3, 'the early flushes and the commit made generations');
    assert.equal(index.stagedDocument('http://w/6'), undefined, 'nothing staged after the commit');
    index.put(doc('http://w/7', 'seven again'));
    await index.commit();
    await index.waitForMerges();
    const keys = keysOf(index);
    assert.equal(keys.length, 1999);
    assert.ok(!keys.includes('http://w/5'));
    const searcher = index.acquireSearcher();
    assert.equal(searcher.getDocument('http://w/6')?.record.body, 'replaced six');
    assert.equal(searcher.getDocument('http://w/7')?.record.body, 'seven again');
    searcher.release();
    await index.close();
    const reopened = await SearchIndex.open({ directory: folder });
    assert.equal(keysOf(reopened).length, 1999);
    await reopened.close();
  });

  it('commits the buffers of all indexing workers as one generation', async () => {
    const folder = tempFolder();
    const index = await SearchIndex.open({
      directory: folder,
      indexThreads: 2,
      mergeThreads: 1,
      autoMerge: false,
    });
    for (let i = 0; i < 200; i++)
      index.put({
        key: `http://one/${i}`,
        fields: { body: `kilo word${i % 7} doc${i}` },
        numbers: { n: i },
        stored: { n: i },
      });
    const first = await index.commit();
    assert.equal(first.generations.length, 1, 'one generation for both workers');
    // Replacements and deletes of keys that live in the combined generation, from both workers.
    for (let i = 0; i < 200; i += 3)
      index.put({
        key: `http://one/${i}`,
        fields: { body: `kilo replaced${i}` },
        numbers: { n: -i },
        stored: { n: -i },
      });
    for (let i = 1; i < 200; i += 5) index.delete(`http://one/${i}`);
    const second = await index.commit();
    assert.equal(second.generations.length, 1);
    const { executeQuery } = await import('../../src/query/execute-query.js');
    const searcher = index.acquireSearcher();
    try {
      const live = [...searcher.liveDocuments()];
      const expected = Array.from({ length: 200 }, (_, i) => i).filter((i) => i % 5 !== 1);
      assert.deepEqual(live.map((d) => d.key).sort(), expected.map((i) => `http://one/${i}`).sort());
      for (const { key, record } of live) {
        const i = Number(key.slice('http://one/'.length));
        assert.equal(record.n, i % 3 === 0 ? -i : i, key);
      }
      const hits = executeQuery(searcher.generations, { kind: 'term', term: 'kilo' }, { k: 500 });
      assert.equal(hits.hits.length, expected.length);
      assert.equal(
        executeQuery(searcher.generations, { kind: 'term', term: 'replaced3' }, { k: 10 }).hits.length,
        1,
      );
      assert.equal(
        executeQuery(searcher.generations, { kind: 'term', term: 'doc3' }, { k: 10 }).hits.length,
        0,
        'the replaced version is gone',
      );
    } finally {
      searcher.release();
    }
    await index.close();
  });

  it('answers queries consistently while merges run in worker threads', async () => {
    const folder = tempFolder();
    const index = await SearchIndex.open({
      directory: folder,
      mergeThreads: 2,
      mergePolicy: { mergeFactor: 3, floorDocs: 10 },
    });
    const { executeQuery } = await import('../../src/query/execute-query.js');
    let expected = 0;
    let queries = 0;
    for (let round = 0; round < 12; round++) {
      for (let i = 0; i < 40; i++)
        index.put(doc(`http://m/${round}/${i}`, `common words plus round${round} item${i}`));
      await index.commit();
      expected += 40;
      // While merges of earlier generations run, every searcher sees exactly what its manifest holds.
      for (let q = 0; q < 5; q++) {
        const searcher = index.acquireSearcher();
        const result = executeQuery(
          searcher.generations,
          { kind: 'term', term: 'common' },
          { k: 5, totalHitsThreshold: Infinity },
        );
        assert.equal(result.totalHits, searcher.documentCount);
        assert.equal(result.totalHits, expected);
        queries++;
        searcher.release();
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await index.waitForMerges();
    assert.ok(index.stats().TotMergesDone > 0, 'merges ran during the queries');
    assert.equal(queries, 60);
    await index.close();
  });

  it('snapshots by hard links and restores both through the API and by copying files', async () => {
    const folder = tempFolder();
    const live = join(folder, 'live');
    let index = await SearchIndex.open({ directory: live, mergeThreads: 0 });
    index.put(doc('k:a', 'apple'));
    index.put(doc('k:b', 'banana'));
    await index.commit();
    const snapshotInfo = await index.snapshot(new FsDirectory(join(folder, 'snap')));
    assert.equal(snapshotInfo.documents, 2);
    index.delete('k:a');
    index.put(doc('k:c', 'cherry'));
    await index.commit();
    await index.forceMerge();
    assert.deepEqual(keysOf(index), ['k:b', 'k:c']);
    await index.close();

    await SearchIndex.restore(new FsDirectory(join(folder, 'snap')), new FsDirectory(live));
    index = await SearchIndex.open({ directory: live, mergeThreads: 0 });
    assert.deepEqual(keysOf(index), ['k:a', 'k:b']);
    index.put(doc('k:d', 'date'));
    await index.commit();
    await index.close();

    // The backup procedure by hand: copy every snapshot file over live/, then open.
    for (const name of new FsDirectory(join(folder, 'snap')).listAll()) {
      writeFileSync(join(live, name), readFileSync(join(folder, 'snap', name)));
    }
    index = await SearchIndex.open({ directory: live, mergeThreads: 0 });
    assert.deepEqual(keysOf(index), ['k:a', 'k:b']);
    await index.close();
  });

  it('rejects a corrupted or truncated file with an error naming it', async () => {
    const folder = tempFolder();
    const index = await SearchIndex.open({ directory: folder, mergeThreads: 0 });
    for (let i = 0; i < 20; i++) index.put(doc(`k:${i}`, `some words number ${i}`));
    await index.commit();
    await index.close();
    const file = join(folder, 'g1.doc');
    const original = readFileSync(file);
    const flipped = Buffer.from(original);
    flipped[Math.floor(flipped.length / 2)]! ^= 0x10;
    writeFileSync(file, flipped);
    await assert.rejects(SearchIndex.open({ directory: folder }), (error: unknown) => {
      assert.ok(error instanceof CorruptIndexError);
      assert.equal(error.file, 'g1.doc');
      assert.match(error.message, /g1\.doc.*checksum/);
      return true;
    });
    writeFileSync(file, original.subarray(0, original.length - 3));
    await assert.rejects(SearchIndex.open({ directory: folder }), /g1\.doc/);
    writeFileSync(file, original);
    const reopened = await SearchIndex.open({ directory: folder });
    assert.equal(keysOf(reopened).length, 20);
    await reopened.close();
  });

  it('reports a failing merge, snapshots, refuses commits at the limit and recovers', async () => {
    const events: IndexEvent[] = [];
    const snapshots = new Map<string, MemoryDirectory>();
    let failing = true;
    const index = await SearchIndex.open({
      directory: new MemoryDirectory(),
      mergeThreads: 0,
      maxGenerations: 4,
      mergePolicy: { mergeFactor: 2, floorDocs: 1 },
      createSnapshotOnMergeFailure: true,
      snapshotFolder: (name) => {
        const dir = new MemoryDirectory(name);
        snapshots.set(name, dir);
        return dir;
      },
      beforeMerge: () => {
        if (failing) throw new Error('disk on fire');
      },
      onEvent: (e) => events.push(e),
    });
    let refused: unknown;
    for (let i = 0; i < 8 && refused === undefined; i++) {
      index.put(doc(`k:${i}`, `doc ${i}`));
      try {
        await index.commit();
      } catch (error) {
        refused = error;
      }
    }
    assert.ok(refused instanceof SearchError, 'a commit was refused');
    assert.equal(refused.code, 'GENERATION_LIMIT');
    assert.match(refused.message, /disk on fire/);
    const failure = events.find((e) => e.type === 'merge-failed');
    assert.ok(failure !== undefined && failure.type === 'merge-failed');
    assert.match(failure.snapshot ?? '', /^ServiceInternal-merge-failed-\d+$/);
    assert.ok(snapshots.get(failure.snapshot!)!.fileExists('manifest'));
    assert.ok(index.stats().TotMergesFailed >= 1);
    assert.equal(index.stagedChanges, 1, 'the refused change stays staged');

    failing = false;
    await index.forceMerge();
    await index.commit();
    assert.equal(index.stagedChanges, 0);
    assert.equal(index.stats().LastMergeError, null);
    assert.equal(keysOf(index).length, index.stats().CurDocuments);
    await index.close();
  });
});
