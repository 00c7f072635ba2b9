import { createHash, type Hash } from 'node:crypto';
import { createReadStream, linkSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SearchError, isSearchError } from '../errors.js';
import { checkListing, type ReplicatedFile, type ReplicationListing } from './listing.js';
import type { ReplicaIndex } from './replica-index.js';
import { SyncClient } from './sync-client.js';

/** What the sync of one collection is doing (`GET .../sync/collections/{c}/state`). */
export type SyncState =
  /** Not running (never started, or stopped by the API or at shutdown). */
  | 'STOPPED'
  /** The installed state is the newest the master has: waiting for its next one. */
  | 'IN_SYNC'
  /** Transferring or installing a newer state. */
  | 'SYNCING'
  /** The last attempt failed (see `lastError`); retrying with a growing pause. */
  | 'ERROR';

/** The sync state as the API answers it. */
export interface SyncStateView {
  state: SyncState;
  /** The master's base URL; null when none is configured. */
  master: string | null;
  /** Manifest number of the installed state (the master's numbering); null before the first sync. */
  lastSyncedGeneration: number | null;
  /** Id of the installed state (see ReplicationListing.id). */
  lastSyncedId: string | null;
  /** Commit time recorded in the installed manifest (the admin's clock). */
  lastCommitTime: string | null;
  /** When this server installed it. */
  lastSyncTime: string | null;
  /** Newest manifest number the master announced. */
  masterGeneration: number | null;
  /**
   * Seconds the installed state is behind: since the master published the oldest state not
   * yet installed (0 when in sync), on one clock (the master's age of that state, then this
   * server's time since it heard of it).
   */
  lagSeconds: number;
  /** Manifests the installed state is behind the newest one the master announced (0 when in sync). */
  lagGenerations: number;
  bytesPulled: number;
  filesPulled: number;
  /** Last time the master answered. */
  lastContact: string | null;
  lastError: { time: string; code: string; message: string } | null;
}

/** Options of a {@link ReplicationPuller}. */
export interface PullerOptions {
  collection: string;
  masterUrl: string;
  /** `server_secret` of global.cfg (read at each request, so that a corrected file applies). */
  secret: () => string | undefined;
  replica: ReplicaIndex;
  /** Files downloaded at once. Default 4. */
  concurrency?: number;
  /** How long the master may hold a manifest request open waiting for a change. Default 20 s. */
  longPollMs?: number;
  /** First pause after a failure; doubles up to {@link retryMaxMs}. Default 250 ms. */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** Told about installs and failures (push.log). */
  onEvent?: (event: PullerEvent) => void;
  /** This server's clock, ms since the epoch. Default `Date.now` (tests fake a skew between servers). */
  now?: () => number;
}

export type PullerEvent =
  | { type: 'installed'; listing: ReplicationListing; files: number; bytes: number; durationMs: number }
  | { type: 'failed'; error: SearchError<string> };

/**
 * The query processor's side of replication: asks the master for the state it serves
 * (a long poll that answers as soon as it changes), downloads the files this server does
 * not have into `staging/` (several at once; a download cut by a stop or a kill resumes
 * with an HTTP range request), verifies every file's SHA-256 against the listing, moves
 * verified files into place and installs the listing (one atomic publish, see
 * {@link ReplicaIndex.install}). Searches see the old state until that moment and the new
 * one after it: never a part of one.
 *
 * A failure (master unreachable, wrong secret, checksum mismatch, master gone on to a newer
 * state) is recorded in the state and retried after a pause that doubles up to
 * {@link PullerOptions.retryMaxMs}; the installed state keeps being served meanwhile.
 */
export class ReplicationPuller {
  private readonly client: SyncClient;
  private readonly replica: ReplicaIndex;
  private running: { abort: AbortController; loop: Promise<void> } | undefined;
  private phase: 'WAITING' | 'TRANSFERRING' = 'WAITING';
  private newestSeen: ReplicationListing | null = null;
  /** When the master published the oldest state not yet installed (ms since the epoch). */
  private behindSince: number | undefined;
  private startedAt = 0;
  private lastContact: number | undefined;
  private lastError: SyncStateView['lastError'] = null;
  private failing = false;
  private bytesPulled = 0;
  private filesPulled = 0;

  private readonly now: () => number;

  constructor(private readonly options: PullerOptions) {
    this.client = new SyncClient(options.masterUrl, options.secret);
    this.replica = options.replica;
    this.now = options.now ?? Date.now;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Starts pulling (no-op when running). */
  start(): void {
    if (this.running !== undefined) return;
    const abort = new AbortController();
    this.startedAt = this.now();
    this.failing = false;
    const loop = this.run(abort.signal);
    this.running = { abort, loop };
  }

  /** Stops pulling: aborts the request in flight and resolves once nothing runs any more. */
  async stop(): Promise<void> {
    const running = this.running;
    if (running === undefined) return;
    running.abort.abort();
    await running.loop;
    if (this.running === running) this.running = undefined;
    this.phase = 'WAITING';
  }

  /** Stops and closes the connections to the master. */
  async close(): Promise<void> {
    await this.stop();
    this.client.close();
  }

  view(now = this.now()): SyncStateView {
    const installed = this.replica.listing;
    const behind = this.newestSeen !== null && this.newestSeen.id !== installed?.id;
    let lagSeconds =
      behind && this.behindSince !== undefined ? Math.max(0, now - this.behindSince) / 1000 : 0;
    if (this.running !== undefined) {
      // A master that does not answer may have published since: count from the last contact.
      const quietFor = now - (this.lastContact ?? this.startedAt);
      const expectedQuiet = (this.options.longPollMs ?? 20_000) + 5_000;
      if (quietFor > expectedQuiet || (installed === null && this.lastContact === undefined))
        lagSeconds = Math.max(lagSeconds, quietFor / 1000);
    }
    let lagGenerations = 0;
    if (behind)
      lagGenerations = Math.max(1, this.newestSeen!.manifest.number - (installed?.manifest.number ?? 0));
    let state: SyncState = 'STOPPED';
    if (this.running !== undefined) {
      if (this.failing) state = 'ERROR';
      else if (this.phase === 'TRANSFERRING' || behind || installed === null) state = 'SYNCING';
      else state = 'IN_SYNC';
    }
    return {
      state,
      master: this.client.masterUrl,
      lastSyncedGeneration: installed?.manifest.number ?? null,
      lastSyncedId: installed?.id ?? null,
      lastCommitTime: installed?.manifest.lastCommitTime ?? null,
      lastSyncTime: this.replica.installedAt,
      masterGeneration: this.newestSeen?.manifest.number ?? installed?.manifest.number ?? null,
      lagSeconds: Math.round(lagSeconds * 1000) / 1000,
      lagGenerations,
      bytesPulled: this.bytesPulled,
      filesPulled: this.filesPulled,
      lastContact: this.lastContact === undefined ? null : new Date(this.lastContact).toISOString(),
      lastError: this.lastError,
    };
  }

  // ---------------------------------------------------------------------------------------

  private async run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.syncOnce(signal);
        failures = 0;
        this.failing = false;
      } catch (error) {
        if (signal.aborted) break;
        const e = isSearchError(error)
          ? error
          : new SearchError('SYNC_FAILED', (error as Error).message, { cause: error });
        this.failing = true;
        this.lastError = { time: new Date().toISOString(), code: e.code, message: e.message };
        this.options.onEvent?.({ type: 'failed', error: e });
        failures++;
        const min = this.options.retryMinMs ?? 250;
        const max = this.options.retryMaxMs ?? 10_000;
        await pause(Math.min(max, min * 2 ** Math.min(failures - 1, 16)), signal);
      } finally {
        this.phase = 'WAITING';
      }
    }
  }

  /** One round: ask for the master's state (waiting for a change when in sync), then bring this server to it. */
  private async syncOnce(signal: AbortSignal): Promise<void> {
    const installed = this.replica.listing;
    const wait = this.options.longPollMs ?? 20_000;
    const since = installed === null ? '' : `&since=${installed.id}`;
    const answer = await this.client.getJson(
      `/collections/${encodeURIComponent(this.options.collection)}/manifest?wait=${wait}${since}`,
      signal,
    );
    let listing: ReplicationListing;
    try {
      listing = onThisClock(checkListing(answer), answer, this.now());
    } catch (error) {
      throw new SearchError('SYNC_LISTING_INVALID', (error as Error).message);
    }
    this.lastContact = this.now();
    if (listing.id === this.replica.listing?.id) {
      this.newestSeen = listing;
      this.behindSince = undefined;
      return;
    }
    if (this.behindSince === undefined || this.newestSeen?.id === this.replica.listing?.id) {
      const published = Date.parse(listing.publishedAt);
      this.behindSince = Math.min(this.now(), Number.isFinite(published) ? published : this.now());
    }
    this.newestSeen = listing;
    this.phase = 'TRANSFERRING';
    const started = performance.now();
    const pulled = await this.transfer(listing, signal);
    await this.replica.install(listing);
    if (this.newestSeen.id === listing.id) this.behindSince = undefined;
    this.options.onEvent?.({
      type: 'installed',
      listing,
      files: pulled.files,
      bytes: pulled.bytes,
      durationMs: performance.now() - started,
    });
  }

  /** Downloads every file of the listing this server lacks, verified, into its place. */
  private async transfer(
    listing: ReplicationListing,
    signal: AbortSignal,
  ): Promise<{ files: number; bytes: number }> {
    // One download per distinct content (two killed files may be identical).
    const bySha = new Map<string, ReplicatedFile[]>();
    for (const file of listing.files) {
      if (this.replica.hasFile(listing, file)) continue;
      const same = bySha.get(file.sha256);
      if (same === undefined) bySha.set(file.sha256, [file]);
      else same.push(file);
    }
    this.removeStaleStaging(new Set(listing.files.map((file) => file.sha256)));
    const queue = [...bySha.values()].sort((a, b) => b[0]!.size - a[0]!.size);
    let bytes = 0;
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        // Not `bytes += await ...`: that reads `bytes` before the await, and the downloads
        // running beside this one would overwrite each other's sums.
        const received = await this.download(listing, next, signal);
        bytes += received;
      }
    };
    const workers = Math.max(1, this.options.concurrency ?? 4);
    const results = await Promise.allSettled(Array.from({ length: workers }, worker));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return { files: [...bySha.values()].reduce((n, same) => n + same.length, 0), bytes };
  }

  /** Staged downloads no longer wanted (the master moved on): disk is not kept for them. */
  private removeStaleStaging(wanted: ReadonlySet<string>): void {
    for (const name of readdirSync(this.replica.stagingFolder)) {
      if (!wanted.has(name)) rmSync(join(this.replica.stagingFolder, name), { force: true, recursive: true });
    }
  }

  /**
   * Downloads one content (resuming a staged part), verifies size and SHA-256, fsyncs it and
   * links it under every name that needs it. Returns the bytes received.
   */
  private async download(
    listing: ReplicationListing,
    files: ReplicatedFile[],
    signal: AbortSignal,
  ): Promise<number> {
    const file = files[0]!;
    const part = join(this.replica.stagingFolder, file.sha256);
    let have = sizeOf(part);
    if (have > file.size) {
      rmSync(part, { force: true });
      have = 0;
    }
    let hash = createHash('sha256');
    if (have > 0) await hashInto(hash, part, have);
    let received = 0;
    if (have < file.size) {
      const path =
        `/collections/${encodeURIComponent(this.options.collection)}/files/${encodeURIComponent(file.name)}` +
        `?listing=${listing.id}&sha256=${file.sha256}`;
      const response = await this.client.send('GET', path, {
        signal,
        headers: have > 0 ? { range: `bytes=${have}-` } : {},
      });
      if (have > 0 && response.statusCode !== 206) {
        // The master sent the whole file: start over.
        hash = createHash('sha256');
        have = 0;
      }
      const handle = await open(part, have === 0 ? 'w' : 'a');
      // Chunks are hashed as they arrive and written in batches, one batch on its way to disk
      // while the next one arrives: a write per chunk (64 KiB) cost more CPU than the hashing.
      let writing: Promise<unknown> = Promise.resolve();
      try {
        let batch: Buffer[] = [];
        let batchBytes = 0;
        for await (const chunk of response as AsyncIterable<Buffer>) {
          if (have + received + chunk.length > file.size) {
            throw new SearchError(
              'SYNC_CHECKSUM_MISMATCH',
              `${file.name}: the master sent more than ${file.size} bytes`,
            );
          }
          hash.update(chunk);
          batch.push(chunk);
          batchBytes += chunk.length;
          received += chunk.length;
          this.bytesPulled += chunk.length;
          if (batchBytes >= WRITE_BATCH_BYTES) {
            await writing;
            writing = handle.writev(batch);
            batch = [];
            batchBytes = 0;
          }
        }
        await writing;
        if (batch.length > 0) await handle.writev(batch);
        await handle.sync();
      } finally {
        await writing.catch(() => undefined);
        await handle.close();
      }
    }
    const size = have + received;
    const digest = hash.digest('hex');
    if (size !== file.size || digest !== file.sha256) {
      rmSync(part, { force: true });
      throw new SearchError(
        'SYNC_CHECKSUM_MISMATCH',
        size !== file.size
          ? `${file.name}: received ${size} bytes of ${file.size}`
          : `${file.name}: SHA-256 ${digest} differs from the listed ${file.sha256}; the download was discarded`,
      );
    }
    for (const target of files) {
      const path = this.replica.pathOf(listing, target);
      mkdirSync(dirname(path), { recursive: true });
      rmSync(path, { force: true });
      linkSync(part, path);
    }
    rmSync(part, { force: true });
    this.filesPulled += files.length;
    return received;
  }
}

/**
 * The listing with `publishedAt` on this server's clock. The master answers its own time
 * (`now`) with each listing, and `publishedAt` on that same clock: their difference is the
 * state's age, free of any skew between the two servers' clocks, and is carried over here
 * as `now − age`. Installed like that, the listing is served on to query processors below
 * this one on this server's clock, with this server's `now`: lag down a chain adds ages,
 * never compares clocks. A master that sends no `now` is taken as sharing this clock.
 */
function onThisClock(listing: ReplicationListing, answer: unknown, now: number): ReplicationListing {
  const { id, manifest, files } = listing;
  const masterNow = Date.parse(String((answer as { now?: unknown }).now));
  const published = Date.parse(listing.publishedAt);
  if (!Number.isFinite(published)) return { id, manifest, files, publishedAt: new Date(now).toISOString() };
  if (!Number.isFinite(masterNow)) return { id, manifest, files, publishedAt: listing.publishedAt };
  const age = Math.max(0, masterNow - published);
  return { id, manifest, files, publishedAt: new Date(now - age).toISOString() };
}

/** Bytes a download gathers before writing them (in one writev). */
const WRITE_BATCH_BYTES = 1 << 20;

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function hashInto(hash: Hash, path: string, length: number): Promise<void> {
  return new Promise((resolve, reject) => {
    createReadStream(path, { start: 0, end: length - 1, highWaterMark: 1 << 20 })
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve());
  });
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
