/**
 * The collection's replication parts on real folders, without HTTP: the frozen state a
 * collection with push.run=false searches, a query processor's installed state handed on
 * (promotion to admin, its snapshot), and the master side tied to one runtime.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CollectionSnapshots } from '../../src/collection/collection-snapshots.js';
import { FrozenState } from '../../src/collection/frozen-index.js';
import { MasterSide } from '../../src/collection/master-side.js';
import {
  promoteReplica,
  replicaFolder,
  withInstalledState,
  type InstalledFile,
} from '../../src/collection/replica-runtime.js';
import { SearchHome } from '../../src/collection/search-home.js';
import type { SearchError } from '../../src/errors.js';
import type { Manifest } from '../../src/index/manifest.js';
import { SearchIndex } from '../../src/index/search-index.js';
import { FsDirectory } from '../../src/index/store/fs-directory.js';
import { ReplicaIndex } from '../../src/replication/replica-index.js';
import { LiveIndexSource, type ReplicationSource } from '../../src/replication/replication-master.js';

const folders: string[] = [];
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'pushsearch-replication-parts-'));
  folders.push(folder);
  return folder;
}
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** An index in `folder` with the keys committed (and closed again). */
async function committedIndex(folder: string, keys: string[]): Promise<void> {
  const index = await SearchIndex.open({
    directory: new FsDirectory(folder),
    mergeThreads: 0,
    autoMerge: false,
  });
  try {
    for (const key of keys) index.put({ key, fields: { body: `text of ${key}` } });
    await index.commit();
  } finally {
    await index.close();
  }
}

/** A replica in `folder` that has installed the state of an admin index holding `keys`, as a sync would. */
async function installedReplica(folder: string, keys: string[]): Promise<ReplicaIndex> {
  const adminFolder = tempFolder();
  await committedIndex(adminFolder, keys);
  const admin = await SearchIndex.open({
    directory: new FsDirectory(adminFolder),
    mergeThreads: 0,
    autoMerge: false,
  });
  const replica = ReplicaIndex.open(folder);
  try {
    const pinned = await new LiveIndexSource(adminFolder, () =>
      Promise.resolve(admin.acquireSearcher()),
    ).pin();
    try {
      for (const file of pinned.listing.files) {
        const target = replica.pathOf(pinned.listing, file);
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(pinned.path(file), target);
      }
      await replica.install(pinned.listing);
    } finally {
      pinned.release();
    }
  } finally {
    await admin.close();
  }
  return replica;
}

/** The keys a searcher finds among `keys`. */
function found(searcher: { getDocument(key: string): unknown; release(): void }, keys: string[]): string[] {
  try {
    return keys.filter((key) => searcher.getDocument(key) !== null);
  } finally {
    searcher.release();
  }
}

/** The frozen state's manifest, read anew (no narrowing across calls). */
const manifestOf = (frozen: FrozenState): Manifest | null | undefined => frozen.manifest;

describe('FrozenState', () => {
  it("an admin's frozen state is its last commit, opened at the first search and closed on demand", async () => {
    const live = tempFolder();
    await committedIndex(live, ['local:a', 'local:b']);
    const frozen = new FrozenState(live, join(tempFolder(), 'replica'));
    assert.equal(manifestOf(frozen), undefined, 'nothing is opened before a search');
    const searcher = frozen.acquireSearcher('DEFAULT');
    assert.equal(manifestOf(frozen)?.generations.length, 1);
    assert.deepEqual(found(searcher, ['local:a', 'local:b', 'local:c']), ['local:a', 'local:b']);
    await frozen.close();
    assert.equal(frozen.manifest, undefined);
  });

  it("a query processor's frozen state is what it installed last", async () => {
    const folder = join(tempFolder(), 'replica');
    await (await installedReplica(folder, ['local:r'])).close();
    const frozen = new FrozenState(tempFolder(), folder);
    assert.deepEqual(found(frozen.acquireSearcher('SLAVE'), ['local:r']), ['local:r']);
    assert.notEqual(frozen.manifest, null);
    await frozen.close();
  });
});

describe("a query processor's installed state", () => {
  it('withInstalledState hands over the manifest and the files where they lie, and null before any sync', async () => {
    const empty = ReplicaIndex.open(tempFolder());
    assert.equal(await withInstalledState(empty, () => Promise.resolve('called')), null);
    await empty.close();

    const replica = await installedReplica(tempFolder(), ['local:1', 'local:2']);
    try {
      const seen = await withInstalledState(replica, (manifest, files) =>
        Promise.resolve({ manifest, files }),
      );
      assert.ok(seen !== null);
      assert.equal(seen.manifest.number, replica.manifest?.number);
      assert.ok(seen.files.length > 0);
      for (const file of seen.files) assert.ok(existsSync(file.path), file.path);
    } finally {
      await replica.close();
    }
  });

  it('promoteReplica installs the state, then removes the replica folder; without a folder it does nothing', async () => {
    const home = new SearchHome(tempFolder());
    const installed: { manifest: Manifest; files: InstalledFile[] }[] = [];
    const install = (manifest: Manifest, files: InstalledFile[]) => {
      for (const file of files) assert.ok(existsSync(file.path), 'the files are in place while installed');
      installed.push({ manifest, files });
      return Promise.resolve();
    };
    await promoteReplica(home, 'c', install);
    assert.equal(installed.length, 0);

    const folder = replicaFolder(home, 'c');
    await (await installedReplica(folder, ['local:p'])).close();
    await promoteReplica(home, 'c', install);
    assert.equal(installed.length, 1);
    assert.equal(installed[0]?.manifest.generations.length, 1);
    assert.equal(existsSync(folder), false);
  });
});

describe("a query processor's snapshot", () => {
  it('is the state it installed, verified intact; before any sync WRONG_STATE says there is nothing', async () => {
    const home = new SearchHome(tempFolder());
    const snapshots = new CollectionSnapshots(home, 'qp');
    const empty = ReplicaIndex.open(tempFolder());
    try {
      await assert.rejects(snapshots.createFromReplica('first', empty), (error: SearchError) => {
        assert.equal(error.code, 'WRONG_STATE');
        assert.equal(
          error.message,
          'query processor qp has installed nothing from its master yet: nothing to snapshot',
        );
        return true;
      });
    } finally {
      await empty.close();
    }
    assert.deepEqual(snapshots.list(), [], 'a refused snapshot leaves nothing behind');

    const replica = await installedReplica(tempFolder(), ['local:1', 'local:2']);
    try {
      const listing = await snapshots.createFromReplica('nightly', replica);
      assert.equal(listing.name, 'nightly');
      assert.equal(listing.manifest, replica.manifest?.number);
      assert.equal(listing.documents, 2);
      assert.deepEqual(
        snapshots.list().map((s) => s.name),
        ['nightly'],
      );
      assert.equal((await snapshots.verify('nightly')).ok, true);
    } finally {
      await replica.close();
    }
  });
});

describe('MasterSide', () => {
  /** A source whose state is never pinned here (only closed masters are asked). */
  function source(): ReplicationSource {
    return { version: () => 'v', pin: () => Promise.reject(new Error('not pinned in this test')) };
  }

  it('one master per runtime: the same while it lives, a new one (the old closed) for the next', async () => {
    const side = new MasterSide();
    const first = {};
    let made = 0;
    const make = () => {
      made++;
      return source();
    };
    const master = side.for(first, make);
    assert.equal(side.for(first, make), master);
    assert.equal(made, 1);

    const next = side.for({}, make);
    assert.notEqual(next, master);
    assert.equal(made, 2);
    await assert.rejects(master.listing(), (error: SearchError) => error.code === 'INDEX_CLOSED');

    side.close();
    await assert.rejects(next.listing(), (error: SearchError) => error.code === 'INDEX_CLOSED');
  });
});
