import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest } from '../index/manifest.js';
import { ClickForwarder } from '../replication/click-forwarder.js';
import { ReplicaIndex } from '../replication/replica-index.js';
import {
  ReplicationPuller,
  type PullerEvent,
  type SyncStateView,
} from '../replication/replication-puller.js';
import { SyncClient } from '../replication/sync-client.js';
import { serverIdIn } from '../replication/click-forwarder.js';
import type { PushLog } from './push-log.js';
import { ServerSecret } from './server-secret.js';
import type { SearchHome } from './search-home.js';

/** What the collections of a server share for replication. */
export interface ReplicationContext {
  /** `server_secret` of global.cfg (read when it changes; undefined: not set). */
  secret: () => string | undefined;
  /** This server's replication id (names its click batches). */
  serverId: () => string;
  /** How often a query processor hands its click log to its master. Default 5 s. */
  clickIntervalMs?: number;
  /** Longest pause between sync attempts after failures. Default 5 s. */
  retryMaxMs?: number;
}

/**
 * What a running query processor collection (mode SLAVE) holds: its replica index (what
 * searches read), the puller that keeps it in step with the master, and the forwarder of
 * its click log to the master. No journal and no index writer: nothing is written here but
 * what the master published.
 */
export class ReplicaRuntime {
  readonly replica: ReplicaIndex;
  readonly puller: ReplicationPuller | undefined;
  private readonly forwarder: ClickForwarder | undefined;
  private readonly forwarderClient: SyncClient | undefined;
  private lastLoggedError: string | undefined;

  private constructor(
    options: {
      collection: string;
      home: SearchHome;
      log: PushLog;
      masterUrl: string | undefined;
      context: ReplicationContext;
    },
    replica: ReplicaIndex,
  ) {
    const { collection, home, log, masterUrl, context } = options;
    this.replica = replica;
    if (masterUrl === undefined) return;
    this.puller = new ReplicationPuller({
      collection,
      masterUrl,
      secret: context.secret,
      replica,
      retryMaxMs: context.retryMaxMs ?? 5_000,
      onEvent: (event) => this.logEvent(collection, log, event),
    });
    this.forwarderClient = new SyncClient(masterUrl, context.secret);
    this.forwarder = new ClickForwarder({
      collection,
      clickFolder: home.clickLogFolder(collection),
      client: this.forwarderClient,
      serverId: context.serverId(),
      ...(context.clickIntervalMs !== undefined ? { intervalMs: context.clickIntervalMs } : {}),
    });
  }

  /** Opens `data/{collection}/replica/` (verifying the installed state's files) and, with a master, the puller and click forwarder (not started). */
  static open(options: {
    collection: string;
    home: SearchHome;
    log: PushLog;
    masterUrl: string | undefined;
    context: ReplicationContext;
  }): ReplicaRuntime {
    const replica = ReplicaIndex.open(replicaFolder(options.home, options.collection));
    return new ReplicaRuntime(options, replica);
  }

  /** Starts pulling (when `sync`) and forwarding clicks. */
  start(sync: boolean): void {
    if (sync) this.puller?.start();
    this.forwarder?.start();
  }

  /** Stops everything and closes the replica (searchers still held keep their files until released). */
  async close(): Promise<void> {
    await this.puller?.close();
    await this.forwarder?.stop();
    this.forwarderClient?.close();
    await this.replica.close();
  }

  /** The sync state (a STOPPED one without a master). */
  syncView(): SyncStateView {
    if (this.puller !== undefined) return this.puller.view();
    return stoppedSyncView(null, this.replica);
  }

  private logEvent(collection: string, log: PushLog, event: PullerEvent): void {
    if (event.type === 'installed') {
      this.lastLoggedError = undefined;
      log.info(
        {
          collection,
          manifest: event.listing.manifest.number,
          listing: event.listing.id,
          files: event.files,
          bytes: event.bytes,
          durationMs: Math.round(event.durationMs),
        },
        'replication: installed the master state',
      );
      return;
    }
    // A master that stays away would write a line per retry: one per distinct failure.
    const key = `${event.error.code}:${event.error.message}`;
    if (key === this.lastLoggedError) return;
    this.lastLoggedError = key;
    log.warn(
      { collection, err: { code: event.error.code, message: event.error.message } },
      'replication: sync failed (retrying)',
    );
  }
}

/** The server's secret (`server_secret` of global.cfg) and replication id (`conf/replication-server-id`). */
export function replicationContextFor(home: SearchHome): ReplicationContext {
  const secret = new ServerSecret(home.globalConfigFile);
  let id: string | undefined;
  return {
    secret: () => secret.get(),
    serverId: () => (id ??= serverIdIn(join(home.confFolder, 'replication-server-id'))),
  };
}

/** `data/{collection}/replica/`. */
export function replicaFolder(home: SearchHome, collection: string): string {
  return join(home.collectionDataFolder(collection), 'replica');
}

/** A file of an installed state: its name in a manifest folder, and where it lies on this server. */
export interface InstalledFile {
  name: string;
  path: string;
}

/**
 * Runs `work` on the state `replica` has installed (manifest and files), pinned so that no
 * newer state deletes its files meanwhile. Resolves with `work`'s result, or null when
 * nothing has been installed yet.
 */
export async function withInstalledState<T>(
  replica: ReplicaIndex,
  work: (manifest: Manifest, files: InstalledFile[]) => Promise<T>,
): Promise<T | null> {
  const pinned = replica.pin();
  if (pinned === null) return null;
  try {
    const files = pinned.listing.files.map((file) => ({ name: file.name, path: pinned.path(file) }));
    return await work(pinned.listing.manifest, files);
  } finally {
    pinned.release();
  }
}

/**
 * A query processor becomes an admin (SLAVE to DEFAULT): the state in
 * `data/{collection}/replica/` is handed to `install` (which makes it live/), then the
 * replica's folder is removed. Nothing is installed when the folder does not exist or holds
 * no state.
 */
export async function promoteReplica(
  home: SearchHome,
  collection: string,
  install: (manifest: Manifest, files: InstalledFile[]) => Promise<void>,
): Promise<void> {
  const folder = replicaFolder(home, collection);
  if (!existsSync(folder)) return;
  const replica = ReplicaIndex.open(folder);
  try {
    await withInstalledState(replica, install);
  } finally {
    await replica.close();
  }
  rmSync(folder, { recursive: true, force: true });
}

/** A sync state for a collection whose sync does not run. */
export function stoppedSyncView(
  master: string | null,
  replica: { listing: ReplicaIndex['listing']; installedAt: string | null } | null,
): SyncStateView {
  const listing = replica?.listing ?? null;
  return {
    state: 'STOPPED',
    master,
    lastSyncedGeneration: listing?.manifest.number ?? null,
    lastSyncedId: listing?.id ?? null,
    lastCommitTime: listing?.manifest.lastCommitTime ?? null,
    lastSyncTime: replica?.installedAt ?? null,
    masterGeneration: null,
    lagSeconds: 0,
    lagGenerations: 0,
    bytesPulled: 0,
    filesPulled: 0,
    lastContact: null,
    lastError: null,
  };
}
