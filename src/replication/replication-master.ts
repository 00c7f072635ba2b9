import { statSync } from 'node:fs';
import { join } from 'node:path';
import { SearchError } from '../errors.js';
import { emptyManifest, MANIFEST_FILE, manifestFiles, readManifest } from '../index/manifest.js';
import type { Searcher } from '../index/searcher.js';
import { FsDirectory } from '../index/store/fs-directory.js';
import { FileChecksums } from './file-checksums.js';
import { listingId, type ReplicatedFile, type ReplicationListing } from './listing.js';
import type { ReplicaIndex } from './replica-index.js';

/** Files a listing hashes at once. */
const HASHING_CONCURRENCY = 4;

/** A state pinned for serving: its files stay on disk until {@link release}. */
export interface PinnedListing {
  listing: ReplicationListing;
  path(file: ReplicatedFile): string;
  release(): void;
}

/**
 * Where a master's states come from: the admin's live index, or a query processor's
 * installed replica (chains).
 */
export interface ReplicationSource {
  /** Changes whenever a new state is published; cheap (called every few ms by long polls). */
  version(): string;
  /** Pins the state searches see now and describes it. */
  pin(): Promise<PinnedListing>;
}

/**
 * The admin's live index as a replication source. A state is pinned by holding a searcher
 * of it (the index deletes no file a searcher needs); the manifest is read from `live/` and
 * must be the searcher's own (a commit between the two is retried). Checksums are computed
 * once per file ({@link FileChecksums}).
 */
export class LiveIndexSource implements ReplicationSource {
  private readonly checksums = new FileChecksums();

  constructor(
    private readonly liveFolder: string,
    private readonly acquireSearcher: () => Promise<Searcher>,
  ) {}

  version(): string {
    try {
      const info = statSync(join(this.liveFolder, MANIFEST_FILE));
      return `${info.ino}:${info.mtimeMs}:${info.size}`;
    } catch {
      return 'none';
    }
  }

  async pin(): Promise<PinnedListing> {
    for (let attempt = 0; ; attempt++) {
      const searcher = await this.acquireSearcher();
      try {
        const listing = await this.describe(searcher.manifestNumber);
        if (listing !== undefined) {
          return {
            listing,
            path: (file) => join(this.liveFolder, file.name),
            release: once(() => searcher.release()),
          };
        }
      } catch (error) {
        searcher.release();
        throw error;
      }
      searcher.release();
      // A manifest was published between acquiring the searcher and reading it: again.
      if (attempt === 50)
        throw new SearchError('SYNC_BUSY', 'the index publishes too fast to pin a state; retry');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** The listing of the manifest on disk when it is `number`, else undefined. */
  private async describe(number: number): Promise<ReplicationListing | undefined> {
    const dir = new FsDirectory(this.liveFolder);
    const before = this.version();
    const manifest = readManifest(dir);
    if (manifest === null) {
      // Nothing committed yet: an empty state, which query processors install like any other.
      if (number !== 0) return undefined;
      const empty = emptyManifest();
      return { id: listingId(empty, []), manifest: empty, files: [], publishedAt: new Date().toISOString() };
    }
    if (manifest.number !== number) return undefined;
    const publishedAt = statSync(join(this.liveFolder, MANIFEST_FILE)).mtime.toISOString();
    const names = manifestFiles(manifest).filter((name) => name !== MANIFEST_FILE);
    // A few files at once: one file's read is on its way while another's bytes are hashed
    // (a brand-new query processor's first listing hashes the whole index).
    const files = new Array<ReplicatedFile>(names.length);
    let next = 0;
    const hashNext = async () => {
      for (let i = next++; i < names.length; i = next++) {
        const name = names[i]!;
        const { sha256, size } = await this.checksums.sha256(join(this.liveFolder, name));
        files[i] = { name, size, sha256 };
      }
    };
    await Promise.all(Array.from({ length: Math.min(HASHING_CONCURRENCY, names.length) }, hashNext));
    if (this.version() !== before) return undefined;
    this.checksums.retain(new Set(names.map((name) => join(this.liveFolder, name))));
    return { id: listingId(manifest, files), manifest, files, publishedAt };
  }
}

/** A query processor's installed state as the source of the query processors below it. */
export class ReplicaSource implements ReplicationSource {
  constructor(private readonly replica: ReplicaIndex) {}

  version(): string {
    return this.replica.listing?.id ?? 'none';
  }

  pin(): Promise<PinnedListing> {
    const pinned = this.replica.pin();
    if (pinned === null)
      return Promise.reject(
        new SearchError(
          'SYNC_NOTHING_TO_SERVE',
          'this query processor has not installed any state from its own master yet; retry later',
        ),
      );
    return Promise.resolve(pinned);
  }
}

/** Options of a {@link ReplicationMaster}. */
export interface MasterOptions {
  /** A pinned state stays pinned this long after its last request. Default 60 s. */
  leaseMs?: number;
  /** How often a long poll looks for a new state. Default 20 ms. */
  pollMs?: number;
}

interface Lease {
  pinned: PinnedListing;
  version: string;
  expires: number;
}

/**
 * The master side of one collection's replication: answers manifest listings (long polls
 * that return as soon as the state changes) and resolves file requests to paths of a
 * pinned state. A state a query processor is copying stays pinned (its files kept) for
 * {@link MasterOptions.leaseMs} after its last request, so a slow query processor costs the
 * master disk space, never a blocked commit or search. The master keeps no list of its
 * query processors: leases are per state, not per client.
 */
export class ReplicationMaster {
  private readonly leases = new Map<string, Lease>();
  private newest: Lease | undefined;
  private pinning: Promise<Lease> | undefined;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly source: ReplicationSource,
    private readonly options: MasterOptions = {},
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(10_000, this.leaseMs / 2));
    this.sweeper.unref();
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? 60_000;
  }

  /**
   * The current state's listing. With `since` equal to the current id, waits (up to
   * `waitMs`, or until `signal` aborts) for a newer state and answers whatever is current then.
   */
  async listing(
    options: { since?: string; waitMs?: number; signal?: AbortSignal } = {},
  ): Promise<ReplicationListing> {
    let lease = await this.currentLease();
    if (options.since === undefined || lease.pinned.listing.id !== options.since) return lease.pinned.listing;
    const deadline = Date.now() + Math.max(0, options.waitMs ?? 0);
    const pollMs = this.options.pollMs ?? 20;
    while (Date.now() < deadline && options.signal?.aborted !== true && !this.closed) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      if (this.source.version() === lease.version) continue;
      lease = await this.currentLease();
      if (lease.pinned.listing.id !== options.since) break;
    }
    return lease.pinned.listing;
  }

  /**
   * Where the file `name` with this checksum of the pinned state `listingId` is; renews the
   * lease. `SYNC_STATE_GONE` when that state is no longer pinned (the query processor asks
   * for the current listing again), `NOT_FOUND` when the state has no such file.
   */
  file(id: string, name: string, sha256: string): { path: string; size: number } {
    const lease = this.leases.get(id);
    if (lease === undefined) {
      throw new SearchError(
        'SYNC_STATE_GONE',
        `state ${id} is no longer kept by this master (a newer one replaced it): ask for the manifest again`,
      );
    }
    lease.expires = Date.now() + this.leaseMs;
    const file = lease.pinned.listing.files.find((f) => f.name === name && f.sha256 === sha256);
    if (file === undefined)
      throw new SearchError('NOT_FOUND', `state ${id} has no file ${name} with SHA-256 ${sha256}`);
    return { path: lease.pinned.path(file), size: file.size };
  }

  /** Releases every pinned state. */
  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const lease of this.leases.values()) lease.pinned.release();
    this.leases.clear();
    this.newest = undefined;
  }

  private async currentLease(): Promise<Lease> {
    if (this.closed) throw new SearchError('INDEX_CLOSED', 'replication of this collection has stopped');
    const version = this.source.version();
    const newest = this.newest;
    if (newest !== undefined && newest.version === version) {
      newest.expires = Date.now() + this.leaseMs;
      return newest;
    }
    // Several long polls see the change at once: one pin serves them all.
    this.pinning ??= this.pinNew().finally(() => (this.pinning = undefined));
    return this.pinning;
  }

  private async pinNew(): Promise<Lease> {
    const version = this.source.version();
    const pinned = await this.source.pin();
    if (this.closed) {
      pinned.release();
      throw new SearchError('INDEX_CLOSED', 'replication of this collection has stopped');
    }
    const known = this.leases.get(pinned.listing.id);
    if (known !== undefined) {
      pinned.release();
      known.version = version;
      known.expires = Date.now() + this.leaseMs;
      this.newest = known;
      return known;
    }
    const lease: Lease = { pinned, version, expires: Date.now() + this.leaseMs };
    this.leases.set(pinned.listing.id, lease);
    this.newest = lease;
    return lease;
  }

  /** Releases states nobody asked about for a lease period. */
  private sweep(): void {
    const now = Date.now();
    for (const [id, lease] of this.leases) {
      if (lease.expires > now) continue;
      this.leases.delete(id);
      if (this.newest === lease) this.newest = undefined;
      lease.pinned.release();
    }
  }
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}
