import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SearchError } from '../errors.js';
import type { SyncStateView } from '../replication/replication-puller.js';
import { CollectionModeFile, type ModeRecord } from './collection-mode.js';
import { stoppedSyncView, type ReplicaRuntime } from './replica-runtime.js';
import {
  replicationSettingsFrom,
  type CollectionMode,
  type ReplicationSettings,
} from './replication-settings.js';
import type { SearchHome } from './search-home.js';
import type { SettingsCache } from './settings-cache.js';

/** What the state call says about a collection's role (each absent when collection.cfg does not parse). */
export interface RoleView {
  mode?: CollectionMode;
  /** A query processor's master. */
  master?: string;
  /** Why the collection does not run (push.run=false). */
  reason?: string;
}

/** Replication settings by the loaded configuration they were read from (never changed: see SettingsCache). */
const validatedSettings = new WeakMap<ReadonlyMap<string, string>, ReplicationSettings>();

/**
 * A collection's role: admin (mode DEFAULT, takes changes) or query processor (mode SLAVE,
 * copies its master), and whether it runs at all (`push.run` of collection.cfg). Decides
 * which requests are refused, with the error that says what to do instead. The mode is
 * kept in `data/{c}/mode.json` (see {@link CollectionModeFile}); collection.cfg is read
 * through the shared {@link SettingsCache}.
 */
export class CollectionRole {
  private readonly modeFile: CollectionModeFile;
  private cachedMode: CollectionMode | undefined;
  /** Set while the mode changes: writes are refused from the moment the switch begins. */
  private switchingTo: CollectionMode | undefined;

  constructor(
    private readonly collection: string,
    private readonly home: SearchHome,
    private readonly settingsCache: SettingsCache,
  ) {
    this.modeFile = new CollectionModeFile(
      home.collectionDataFolder(collection),
      `data/${collection}/mode.json`,
    );
  }

  /** The replication keys of collection.cfg (validated; CONFIG_INVALID when they are wrong). */
  settings(): ReplicationSettings {
    const extra = this.settingsCache.get(this.collection).config.extra;
    // Validated once per loaded configuration (a reload loads a new one), not at every search,
    // which asks whether the collection runs; keys that do not validate throw every time.
    let settings = validatedSettings.get(extra);
    if (settings === undefined) {
      settings = Object.freeze(replicationSettingsFrom(extra, `conf/${this.collection}/collection.cfg`));
      validatedSettings.set(extra, settings);
    }
    return settings;
  }

  /**
   * DEFAULT or SLAVE: as recorded at the first start (or by the mode API) in
   * `data/{c}/mode.json`; before the first start, `push.initial-mode` of collection.cfg. A
   * collection.cfg that does not parse counts as DEFAULT here (the start reports it).
   */
  mode(): CollectionMode {
    return this.resolveMode(false);
  }

  /**
   * The mode a start opens the collection in, and whether its sync runs. Unlike
   * {@link mode}, a collection.cfg or mode.json that does not parse throws (the start
   * fails with it). The first start records the mode in mode.json.
   */
  modeAtStart(): ModeRecord {
    const mode = this.resolveMode(true);
    const recorded = this.modeFile.read();
    if (recorded === undefined) this.modeFile.write({ mode, sync: true });
    return { mode, sync: recorded?.sync !== false };
  }

  /** Records a mode (and whether a query processor syncs), durably; it holds from now on. */
  record(record: ModeRecord): void {
    this.modeFile.write(record);
    this.cachedMode = record.mode;
  }

  /** Runs a mode switch to `mode`: writes are refused (as in mode SLAVE) while it runs. */
  async switching(mode: CollectionMode, work: () => Promise<void>): Promise<void> {
    this.switchingTo = mode;
    try {
      await work();
    } finally {
      this.switchingTo = undefined;
    }
  }

  private resolveMode(strict: boolean): CollectionMode {
    if (this.cachedMode !== undefined) return this.cachedMode;
    const recorded = this.modeFile.read();
    if (recorded !== undefined) return (this.cachedMode = recorded.mode);
    // Started before this collection had a mode file: it has been an admin all along.
    const startedBefore =
      existsSync(join(this.home.liveFolder(this.collection), 'manifest')) ||
      existsSync(this.home.journalFolder(this.collection));
    if (startedBefore) return 'DEFAULT';
    if (strict) return this.settings().initialMode;
    return this.lenientSettings().initialMode;
  }

  /** The replication settings, or their defaults when collection.cfg does not parse (the start reports that). */
  private lenientSettings(): ReplicationSettings {
    try {
      return this.settings();
    } catch {
      return { run: true, initialMode: 'DEFAULT', masterUrl: undefined };
    }
  }

  /** False when collection.cfg says push.run=false. */
  runs(): boolean {
    return this.lenientSettings().run;
  }

  /**
   * Throws when the collection takes no changes: a query processor (COLLECTION_READ_ONLY,
   * naming its master), one switching to SLAVE, or one with push.run=false
   * (COLLECTION_DISABLED).
   */
  refuseChanges(what: string): void {
    if (this.mode() === 'SLAVE' || this.switchingTo === 'SLAVE') {
      const master = this.lenientSettings().masterUrl;
      throw new SearchError(
        'COLLECTION_READ_ONLY',
        `collection ${this.collection} is a query processor (mode SLAVE) and takes no ${what}: send it to its master${
          master === undefined ? ' (push.replication.master-url is not set)' : ` at ${master}`
        }`,
        { details: { master } },
      );
    }
    this.refuseIfDisabled();
  }

  /** Throws COLLECTION_DISABLED when collection.cfg says push.run=false. */
  refuseIfDisabled(): void {
    if (!this.runs())
      throw new SearchError(
        'COLLECTION_DISABLED',
        `collection ${this.collection} does not run: push.run=false in conf/${this.collection}/collection.cfg (remove the line or set it to true)`,
      );
  }

  /** Throws WRONG_STATE unless the collection is a query processor (only those sync). */
  requireSlave(): void {
    if (this.mode() !== 'SLAVE')
      throw new SearchError(
        'WRONG_STATE',
        `collection ${this.collection} is in mode DEFAULT: only a query processor (mode SLAVE) syncs; POST .../mode?mode=SLAVE first`,
      );
  }

  /** Throws WRONG_STATE when collection.cfg names no master to sync from (a query processor's start of its sync). */
  requireMaster(): void {
    if (this.settings().masterUrl === undefined)
      throw new SearchError(
        'WRONG_STATE',
        `collection ${this.collection} has no master: set push.replication.master-url in conf/${this.collection}/collection.cfg`,
      );
  }

  /** The role part of the state call; never throws (a configuration that does not parse leaves it out). */
  view(): RoleView {
    const view: RoleView = {};
    try {
      view.mode = this.mode();
      const settings = this.settings();
      if (settings.masterUrl !== undefined && view.mode === 'SLAVE') view.master = settings.masterUrl;
      if (!settings.run) view.reason = `push.run=false in conf/${this.collection}/collection.cfg`;
    } catch {
      // A configuration that does not parse: the next start reports it (FAILED).
    }
    return view;
  }

  /**
   * The sync state (`GET .../sync/collections/{c}/state`): the running query processor's
   * (`replica`), or a STOPPED one with the reason it does not sync.
   */
  syncState(replica: ReplicaRuntime | undefined): SyncStateView & { mode: CollectionMode; reason?: string } {
    const mode = this.mode();
    const settings = this.settings();
    const master = settings.masterUrl ?? null;
    let reason: string | undefined;
    let view: SyncStateView;
    if (replica !== undefined) {
      view = replica.syncView();
      if (replica.puller === undefined) reason = 'push.replication.master-url is not set';
      else if (!replica.puller.isRunning) reason = 'stopped through the sync API';
    } else {
      view = stoppedSyncView(master, null);
      if (mode !== 'SLAVE')
        reason = 'the collection is in mode DEFAULT: it is a master, not a query processor';
      else if (!settings.run) reason = `push.run=false in conf/${this.collection}/collection.cfg`;
      else reason = 'the collection is not running';
    }
    return { ...view, mode, ...(reason === undefined ? {} : { reason }) };
  }
}
