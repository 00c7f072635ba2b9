import { existsSync, linkSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SearchError } from '../errors.js';
import { publishManifest, readManifest, type Manifest } from '../index/manifest.js';
import { SearchIndex, type SnapshotCheck } from '../index/search-index.js';
import { FsDirectory } from '../index/store/fs-directory.js';
import type { ReplicaIndex } from '../replication/replica-index.js';
import { withInstalledState } from './replica-runtime.js';
import type { SearchHome } from './search-home.js';

/** A snapshot as the snapshot list shows it. */
export interface SnapshotListing {
  name: string;
  manifest: number;
  documents: number;
  created: string;
  bytes: number;
}

/** What verifying a snapshot found (`GET .../snapshot/{name}/verify`). */
export interface SnapshotVerification extends SnapshotCheck {
  name: string;
  /** True when every file is present and intact. */
  ok: boolean;
}

/** Prefix of a snapshot folder being built (snapshot names cannot start with a dot). */
const PARTIAL_SNAPSHOT = '.partial-';

/**
 * One collection's snapshots (`data/{collection}/snapshot/{name}`: hard links of the files of
 * one manifest) and restore from one. The collection decides when each may run (a running
 * index to snapshot, a stopped collection to restore); this class does the files.
 */
export class CollectionSnapshots {
  constructor(
    private readonly home: SearchHome,
    private readonly collection: string,
  ) {}

  /**
   * Snapshots the last commit of `index`. Built under a name no snapshot can have, then
   * renamed: a crash midway leaves no half snapshot under the real name (see
   * {@link removePartial}).
   */
  async create(index: SearchIndex, name: string): Promise<SnapshotListing> {
    const folder = this.home.snapshotFolder(this.collection, name);
    if (existsSync(folder)) throw exists(name);
    const partial = join(this.home.snapshotsFolder(this.collection), `${PARTIAL_SNAPSHOT}${name}`);
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    try {
      await index.snapshot(new FsDirectory(partial));
      if (existsSync(folder)) throw exists(name);
      renameSync(partial, folder);
      await new FsDirectory(this.home.snapshotsFolder(this.collection)).syncDirectory();
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw error;
    }
    return this.describe(name)!;
  }

  /**
   * Snapshots the state a query processor installed last, pinned meanwhile (its files are
   * hard-linked under their names, the master's manifest written beside them): the same
   * layout as a snapshot of an admin's index, so that it can be restored on either. Throws
   * WRONG_STATE when it has installed nothing yet.
   */
  async createFromReplica(name: string, replica: ReplicaIndex): Promise<SnapshotListing> {
    const created = await withInstalledState(replica, (manifest, files) =>
      this.createFromFiles(name, manifest, files),
    );
    if (created === null)
      throw new SearchError(
        'WRONG_STATE',
        `query processor ${this.collection} has installed nothing from its master yet: nothing to snapshot`,
      );
    return created;
  }

  private async createFromFiles(
    name: string,
    manifest: Manifest,
    files: readonly { name: string; path: string }[],
  ): Promise<SnapshotListing> {
    const folder = this.home.snapshotFolder(this.collection, name);
    if (existsSync(folder)) throw exists(name);
    const partial = join(this.home.snapshotsFolder(this.collection), `${PARTIAL_SNAPSHOT}${name}`);
    try {
      await this.linkState(partial, manifest, files);
      if (existsSync(folder)) throw exists(name);
      renameSync(partial, folder);
      await new FsDirectory(this.home.snapshotsFolder(this.collection)).syncDirectory();
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw error;
    }
    return this.describe(name)!;
  }

  /**
   * Replaces live/ by a query processor's installed state (a query processor switched to
   * DEFAULT carries on from what it served). Verified and copied as a restore is; resolves
   * with the manifest's number.
   */
  async installIntoLive(
    manifest: Manifest,
    files: readonly { name: string; path: string }[],
  ): Promise<number> {
    const partial = join(this.home.snapshotsFolder(this.collection), `${PARTIAL_SNAPSHOT}promote`);
    try {
      await this.linkState(partial, manifest, files);
      const live = this.home.liveFolder(this.collection);
      mkdirSync(live, { recursive: true });
      await SearchIndex.restore(new FsDirectory(partial), new FsDirectory(live));
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
    return manifest.number;
  }

  private async linkState(
    folder: string,
    manifest: Manifest,
    files: readonly { name: string; path: string }[],
  ): Promise<void> {
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    for (const file of files) linkSync(file.path, join(folder, file.name));
    await publishManifest(new FsDirectory(folder), manifest);
  }

  /** Removes snapshots whose creation a crash interrupted (at start). */
  removePartial(): void {
    const folder = this.home.snapshotsFolder(this.collection);
    if (!existsSync(folder)) return;
    for (const entry of readdirSync(folder)) {
      if (entry.startsWith(PARTIAL_SNAPSHOT)) rmSync(join(folder, entry), { recursive: true, force: true });
    }
  }

  list(): SnapshotListing[] {
    const folder = this.home.snapshotsFolder(this.collection);
    if (!existsSync(folder)) return [];
    return readdirSync(folder)
      .sort()
      .map((name) => this.describe(name))
      .filter((s): s is SnapshotListing => s !== undefined);
  }

  delete(name: string): void {
    const folder = this.home.snapshotFolder(this.collection, name);
    if (!existsSync(folder)) throw this.notFound(name);
    rmSync(folder, { recursive: true, force: true });
  }

  /**
   * Replaces live/ by the snapshot's files; the caller makes sure the collection is stopped.
   * Resolves with the restored manifest's number.
   */
  async restore(name: string): Promise<number> {
    const folder = this.home.snapshotFolder(this.collection, name);
    if (!existsSync(folder)) throw this.notFound(name);
    const live = this.home.liveFolder(this.collection);
    mkdirSync(live, { recursive: true });
    await SearchIndex.restore(new FsDirectory(folder), new FsDirectory(live));
    return readManifest(new FsDirectory(live))?.number ?? 0;
  }

  /**
   * Checks every file of a snapshot (present, header, checksum) without touching live/ or the
   * collection's state, and reports each damaged one. A snapshot's files are hard links to
   * live files: damage done to a live file in place shows here too, which is why a snapshot is
   * a backup only once copied away.
   */
  async verify(name: string): Promise<SnapshotVerification> {
    const folder = this.home.snapshotFolder(this.collection, name);
    if (!existsSync(folder)) throw this.notFound(name);
    const check = await SearchIndex.checkSnapshot(new FsDirectory(folder));
    return { name, ok: check.damaged.length === 0, ...check };
  }

  private describe(name: string): SnapshotListing | undefined {
    let folder: string;
    try {
      folder = this.home.snapshotFolder(this.collection, name);
    } catch {
      return undefined;
    }
    try {
      const manifest = readManifest(new FsDirectory(folder));
      if (manifest === null) return undefined;
      let bytes = 0;
      for (const file of readdirSync(folder)) bytes += statSync(join(folder, file)).size;
      return {
        name,
        manifest: manifest.number,
        documents: manifest.generations.reduce((n, g) => n + g.docCount - g.killedCount, 0),
        created: statSync(join(folder, 'manifest')).mtime.toISOString(),
        bytes,
      };
    } catch {
      return undefined;
    }
  }

  private notFound(name: string): SearchError {
    return new SearchError(
      'SNAPSHOT_NOT_FOUND',
      `no snapshot named ${name} in collection ${this.collection}`,
    );
  }
}

function exists(name: string): SearchError {
  return new SearchError(
    'SNAPSHOT_EXISTS',
    `snapshot ${name} already exists; delete it first or use another name`,
  );
}
