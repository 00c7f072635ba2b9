import { CorruptIndexError, SearchError } from '../errors.js';
import type { IndexEvent } from '../index/search-index.js';
import type { Searcher } from '../index/searcher.js';
import type { StoredRecord } from '../index/document.js';
import type { IndexStats } from '../index/index-stats.js';
import type { SchemaOptions } from '../index/schema.js';
import { encodeChange, type ChangeRecord } from './change-record.js';
import {
  openFileJournal,
  startRuntime,
  type CollectionRuntime,
  type JournalOpener,
} from './collection-runtime.js';
import {
  CollectionSnapshots,
  type SnapshotListing,
  type SnapshotVerification,
} from './collection-snapshots.js';
import { SettingsCache } from './settings-cache.js';
import { mapDocument, mapRedirect, type PushedDocument } from './document-mapper.js';
import { appendGenerationLog } from './generation-logs.js';
import { extractBinary } from './filters/binary/extract-binary.js';
import { runFilterChain } from './filters/filter-chain.js';
import { htmlElementsOf } from './config/metamap.js';
import { canonicalizeKey } from './key.js';
import { ManifestMarker } from './manifest-marker.js';
import type { PushLog } from './push-log.js';
import { formatReceivedTime, RECEIVED_TIME_METADATA } from './received-time.js';
import { validateName, type SearchHome } from './search-home.js';
import { changeFromStored, documentView, type DocumentView } from './stored-document.js';
import { recordedSchemaOf, sameSchema, SCHEMA_USER_DATA, indexSchemaFor } from './index-schema.js';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest } from '../index/manifest.js';
import { ReplicaIndex } from '../replication/replica-index.js';
import { LiveIndexSource, ReplicaSource, ReplicationMaster } from '../replication/replication-master.js';
import type { SyncStateView } from '../replication/replication-puller.js';
import { CollectionModeFile } from './collection-mode.js';
import { FrozenIndex } from './frozen-index.js';
import {
  replicaFolder,
  replicationContextFor,
  ReplicaRuntime,
  stoppedSyncView,
  type ReplicationContext,
} from './replica-runtime.js';
import {
  replicationSettingsFrom,
  type CollectionMode,
  type ReplicationSettings,
} from './replication-settings.js';
import type { ClickProcessing, EvidenceUpdate } from './evidence/collection-evidence.js';

export type { DocumentView } from './stored-document.js';
export type { SnapshotListing } from './collection-snapshots.js';

export type CollectionState = 'STOPPED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'FAILED';
export type VacuumType = 'MERGE' | 'RE_INDEX';

export interface VacuumProgress {
  type: VacuumType;
  state: 'RUNNING' | 'DONE' | 'FAILED';
  done: number;
  total: number;
  startedAt: string;
  finishedAt?: string;
  error?: string;
}

export interface CollectionStateView {
  collection: string;
  state: CollectionState;
  /** DEFAULT (accepts changes) or SLAVE (a query processor); absent when the configuration does not parse. */
  mode?: CollectionMode;
  /** A query processor's master (`push.replication.master-url`). */
  master?: string;
  /** Why the collection is FAILED, or why it does not run (push.run=false). */
  reason?: string;
  file?: string;
  documents?: number;
  stagedChanges?: number;
  generations?: number;
  lastCommitTime?: string | null;
  mergesRunning?: number;
  vacuum?: VacuumProgress;
  stats?: IndexStats & { JournalAppends: number; JournalFsyncs: number; JournalLastFsyncMs: number };
}

/** Guard consulted before every write: the installation may be preparing for an upgrade. */
export type WriteGuard = () => void;

/**
 * A push collection at run time: its state machine, journal, index and auto-commit.
 * STOPPED → STARTING → RUNNING → STOPPING → STOPPED; FAILED (with the reason) when it
 * cannot open. Any request but `state` starts it.
 */
export class PushCollection {
  readonly name: string;
  private currentState: CollectionState = 'STOPPED';
  private failure: { reason: string; file?: string } | undefined;
  private runtime: CollectionRuntime | undefined;
  private transition: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private vacuumProgress: VacuumProgress | undefined;
  /** Filters of the original noted in push.log as skipped (once each). */
  private readonly skippedFilters = new Set<string>();
  private readonly snapshots: CollectionSnapshots;
  private readonly marker: ManifestMarker;
  /** A query processor's runtime (mode SLAVE), instead of {@link runtime}. */
  private replicaRuntime: ReplicaRuntime | undefined;
  /** What searches read while push.run=false (the collection does not run then). */
  private frozen: { index: FrozenIndex | ReplicaIndex; manifest: Manifest | null } | undefined;
  /** The master side of this collection (query processors copy from it), tied to one runtime. */
  private master: { owner: object; master: ReplicationMaster } | undefined;
  private readonly modeFile: CollectionModeFile;
  private cachedMode: CollectionMode | undefined;
  /** Stopped through the API (or at shutdown): query processors asking for it do not start it again. */
  private stoppedOnPurpose = false;
  /** Set while the mode changes: writes are refused from the moment the switch begins. */
  private switchingTo: CollectionMode | undefined;

  constructor(
    name: string,
    private readonly home: SearchHome,
    private readonly log: PushLog,
    private readonly guardWrite: WriteGuard = () => {},
    /** Where the collection's configuration is read (shared with searches: see SettingsCache). */
    private readonly settingsCache: SettingsCache = new SettingsCache(home),
    /** The journal: the file journal in `live/journal/` unless a test gives another. */
    private readonly openJournal: JournalOpener = openFileJournal,
    /** The server's replication secret and id (shared by its collections). */
    private readonly replication: ReplicationContext = replicationContextFor(home),
  ) {
    this.name = validateName('collection', name);
    this.snapshots = new CollectionSnapshots(home, this.name);
    this.marker = new ManifestMarker(home, this.name, log);
    this.modeFile = new CollectionModeFile(
      home.collectionDataFolder(this.name),
      `data/${this.name}/mode.json`,
    );
  }

  // ---------------------------------------------------------------------------------------
  // Mode and replication

  /** The replication keys of collection.cfg (validated; CONFIG_INVALID when they are wrong). */
  replicationSettings(): ReplicationSettings {
    return replicationSettingsFrom(
      this.settingsCache.get(this.name).config.extra,
      `conf/${this.name}/collection.cfg`,
    );
  }

  /**
   * DEFAULT or SLAVE: as recorded at the first start (or by the mode API) in
   * `data/{c}/mode.json`; before the first start, `push.initial-mode` of collection.cfg.
   */
  mode(): CollectionMode {
    return this.resolveMode(false);
  }

  /**
   * {@link mode}; `strict`: a collection.cfg that does not parse throws (at start, where it
   * makes the collection FAILED) instead of counting as DEFAULT (requests refused or
   * answered meanwhile: the start reports the problem).
   */
  private resolveMode(strict: boolean): CollectionMode {
    if (this.cachedMode !== undefined) return this.cachedMode;
    const recorded = this.modeFile.read();
    if (recorded !== undefined) return (this.cachedMode = recorded.mode);
    // Started before this collection had a mode file: it has been an admin all along.
    const startedBefore =
      existsSync(join(this.home.liveFolder(this.name), 'manifest')) ||
      existsSync(this.home.journalFolder(this.name));
    if (startedBefore) return 'DEFAULT';
    if (strict) return this.replicationSettings().initialMode;
    return this.lenientSettings().initialMode;
  }

  /** The replication settings, or their defaults when collection.cfg does not parse (the start reports that). */
  private lenientSettings(): ReplicationSettings {
    try {
      return this.replicationSettings();
    } catch {
      return { run: true, initialMode: 'DEFAULT', masterUrl: undefined };
    }
  }

  /** False when collection.cfg says push.run=false. */
  private runs(): boolean {
    return this.lenientSettings().run;
  }

  /**
   * Throws when the collection takes no changes: a query processor (its master takes them),
   * a collection with push.run=false, or one switching to SLAVE.
   */
  refuseChanges(what: string): void {
    if (this.mode() === 'SLAVE' || this.switchingTo === 'SLAVE') {
      const master = this.safeMasterUrl();
      throw new SearchError(
        'COLLECTION_READ_ONLY',
        `collection ${this.name} is a query processor (mode SLAVE) and takes no ${what}: send it to its master${
          master === undefined ? ' (push.replication.master-url is not set)' : ` at ${master}`
        }`,
        { details: { master } },
      );
    }
    this.refuseIfDisabled();
  }

  private refuseIfDisabled(): void {
    if (!this.runs())
      throw new SearchError(
        'COLLECTION_DISABLED',
        `collection ${this.name} does not run: push.run=false in conf/${this.name}/collection.cfg (remove the line or set it to true)`,
      );
  }

  private safeMasterUrl(): string | undefined {
    return this.lenientSettings().masterUrl;
  }

  /**
   * Switches between DEFAULT and SLAVE. To SLAVE: writes are refused from now on, what is
   * staged is committed, the index is closed and the collection starts syncing from its
   * master into `data/{c}/replica/` (live/ stays as it was, unused). To DEFAULT: the state
   * the query processor served becomes live/ (verified like a restore; staged changes of
   * its earlier life as an admin are discarded) and it takes changes again.
   */
  async setMode(mode: CollectionMode): Promise<void> {
    this.guardWrite();
    this.refuseIfDisabled();
    const current = this.mode();
    if (current === mode) return;
    this.switchingTo = mode;
    try {
      if (current === 'DEFAULT') {
        // Every acknowledged change committed before the index is given up.
        await this.ensureRunning();
        await this.waitIdle();
        const runtime = this.runtime;
        if (runtime !== undefined && runtime.index.stagedChanges > 0) await this.commitNow(runtime);
      }
      await this.serialTransition(async () => {
        await this.stopNow();
        if (current === 'SLAVE') await this.promoteReplica();
        this.modeFile.write({ mode, sync: true });
        this.cachedMode = mode;
        this.log.info({ collection: this.name, mode }, 'collection mode changed');
      });
    } finally {
      this.switchingTo = undefined;
    }
    // A query processor syncs from now on, not at its first search.
    if (mode === 'SLAVE') await this.ensureRunning();
  }

  /** live/ from the replica's installed state (SLAVE to DEFAULT); the replica's folder is then removed. */
  private async promoteReplica(): Promise<void> {
    const folder = replicaFolder(this.home, this.name);
    if (!existsSync(folder)) return;
    const replica = ReplicaIndex.open(folder);
    try {
      const pinned = replica.pin();
      if (pinned !== null) {
        try {
          const files = pinned.listing.files.map((file) => ({ name: file.name, path: pinned.path(file) }));
          const number = await this.snapshots.installIntoLive(pinned.listing.manifest, files);
          this.marker.writeRestored(number);
        } finally {
          pinned.release();
        }
      }
    } finally {
      await replica.close();
    }
    rmSync(folder, { recursive: true, force: true });
  }

  /** The sync state of a query processor (`GET .../sync/collections/{c}/state`). */
  syncState(): SyncStateView & { mode: CollectionMode; reason?: string } {
    const mode = this.mode();
    const settings = this.replicationSettings();
    const master = settings.masterUrl ?? null;
    let reason: string | undefined;
    let view: SyncStateView;
    if (this.replicaRuntime !== undefined) {
      view = this.replicaRuntime.syncView();
      if (this.replicaRuntime.puller === undefined) reason = 'push.replication.master-url is not set';
      else if (!this.replicaRuntime.puller.isRunning) reason = 'stopped through the sync API';
    } else {
      view = stoppedSyncView(master, null);
      if (mode !== 'SLAVE')
        reason = 'the collection is in mode DEFAULT: it is a master, not a query processor';
      else if (!settings.run) reason = `push.run=false in conf/${this.name}/collection.cfg`;
      else reason = 'the collection is not running';
    }
    return { ...view, mode, ...(reason === undefined ? {} : { reason }) };
  }

  /** Starts (and keeps across restarts) the sync of a query processor. */
  async startSync(): Promise<void> {
    this.requireSlave();
    this.refuseIfDisabled();
    if (this.replicationSettings().masterUrl === undefined)
      throw new SearchError(
        'WRONG_STATE',
        `collection ${this.name} has no master: set push.replication.master-url in conf/${this.name}/collection.cfg`,
      );
    this.modeFile.write({ mode: 'SLAVE', sync: true });
    await this.ensureRunning();
    this.replicaRuntime?.puller?.start();
  }

  /** Stops the sync of a query processor (searches go on over what it installed); kept across restarts. */
  async stopSync(): Promise<void> {
    this.requireSlave();
    this.modeFile.write({ mode: 'SLAVE', sync: false });
    await this.replicaRuntime?.puller?.stop();
  }

  private requireSlave(): void {
    if (this.mode() !== 'SLAVE')
      throw new SearchError(
        'WRONG_STATE',
        `collection ${this.name} is in mode DEFAULT: only a query processor (mode SLAVE) syncs; POST .../mode?mode=SLAVE first`,
      );
  }

  /**
   * The master side of this collection, for query processors that copy it (refused with
   * push.run=false). Starts the collection; an admin serves its live index, a query
   * processor the state it installed (chains).
   */
  async replicationMaster(): Promise<ReplicationMaster> {
    for (;;) {
      this.refuseIfDisabled();
      // Stopped by an operator (a restore needs STOPPED): the query processors wait for its next start.
      if (this.stoppedOnPurpose && this.currentState !== 'RUNNING')
        throw new SearchError(
          'INDEX_CLOSED',
          `collection ${this.name} was stopped on this server; it serves query processors again once it starts (at its next push or search request)`,
        );
      await this.ensureRunning();
      const owner = this.replicaRuntime ?? this.runtime;
      if (owner === undefined) continue;
      if (this.master?.owner === owner) return this.master.master;
      this.master?.master.close();
      const source =
        this.replicaRuntime !== undefined
          ? new ReplicaSource(this.replicaRuntime.replica)
          : new LiveIndexSource(this.home.liveFolder(this.name), () => this.acquireSearcher());
      this.master = { owner, master: new ReplicationMaster(source) };
      return this.master.master;
    }
  }

  /**
   * Applies collection.cfg as it is now (the server looks for changes every second):
   * push.run=false stops the collection and its sync; back to true, a query processor
   * starts syncing again.
   */
  async applyConfiguration(): Promise<void> {
    let settings: ReplicationSettings;
    try {
      this.settingsCache.reload(this.name);
      settings = this.replicationSettings();
    } catch {
      return; // reported to whoever uses the collection next
    }
    if (!settings.run) {
      if (this.currentState === 'STOPPED') return;
      this.log.warn({ collection: this.name }, 'push.run=false: collection stopped');
      await this.serialTransition(() => this.stopNow());
      return;
    }
    await this.closeFrozen();
    if (this.currentState === 'STOPPED' && this.mode() === 'SLAVE')
      await this.ensureRunning().catch(() => undefined);
  }

  private async closeFrozen(): Promise<void> {
    const frozen = this.frozen;
    this.frozen = undefined;
    if (frozen === undefined) return;
    if (frozen.index instanceof ReplicaIndex) await frozen.index.close();
    else frozen.index.close();
  }

  /** What searches read while push.run=false: the last installed or committed state, opened read-only. */
  private frozenView(): { index: FrozenIndex | ReplicaIndex; manifest: Manifest | null } {
    if (this.frozen !== undefined) return this.frozen;
    if (this.mode() === 'SLAVE') {
      const replica = ReplicaIndex.open(replicaFolder(this.home, this.name));
      this.frozen = { index: replica, manifest: replica.manifest };
    } else {
      const index = FrozenIndex.open(this.home.liveFolder(this.name));
      this.frozen = { index, manifest: index.manifest };
    }
    return this.frozen;
  }

  get state(): CollectionState {
    return this.currentState;
  }

  /** The state call: never starts the collection. */
  stateView(): CollectionStateView {
    const view: CollectionStateView = { collection: this.name, state: this.currentState };
    try {
      view.mode = this.mode();
      const settings = this.replicationSettings();
      if (settings.masterUrl !== undefined && view.mode === 'SLAVE') view.master = settings.masterUrl;
      if (!settings.run) view.reason = `push.run=false in conf/${this.name}/collection.cfg`;
    } catch {
      // A configuration that does not parse: the next start reports it (FAILED).
    }
    if (this.failure !== undefined && this.currentState === 'FAILED') {
      view.reason = this.failure.reason;
      if (this.failure.file !== undefined) view.file = this.failure.file;
    }
    const replica = this.replicaRuntime?.replica;
    if (replica !== undefined && this.currentState === 'RUNNING') {
      const manifest = replica.manifest;
      view.documents = manifest?.generations.reduce((n, g) => n + g.docCount - g.killedCount, 0) ?? 0;
      view.generations = manifest?.generations.length ?? 0;
      view.lastCommitTime = manifest?.lastCommitTime ?? null;
    }
    const runtime = this.runtime;
    if (runtime !== undefined && this.currentState === 'RUNNING') {
      const stats = runtime.index.stats();
      view.documents = stats.CurDocuments;
      view.stagedChanges = stats.CurStagedChanges;
      view.generations = stats.CurGenerations;
      view.lastCommitTime = stats.LastCommitTime;
      view.mergesRunning = stats.CurMergesRunning;
      view.stats = {
        ...stats,
        JournalAppends: runtime.journal.stats.appends,
        JournalFsyncs: runtime.journal.stats.fsyncs,
        JournalLastFsyncMs: runtime.journal.stats.lastFsyncMs,
      };
    }
    if (this.vacuumProgress !== undefined) view.vacuum = { ...this.vacuumProgress };
    return view;
  }

  // ---------------------------------------------------------------------------------------
  // Lifecycle

  /** Starts the collection when it is not running (the push API's automatic start). */
  async ensureRunning(): Promise<void> {
    for (;;) {
      if (this.currentState === 'RUNNING') return;
      this.refuseIfDisabled();
      await this.serialTransition(async () => {
        if (this.currentState === 'RUNNING') return;
        await this.start();
      });
      if (this.currentState === 'FAILED') {
        throw new SearchError(
          'COLLECTION_FAILED',
          `collection ${this.name} cannot start: ${this.failure?.reason ?? 'unknown'}`,
          {
            details: { file: this.failure?.file },
          },
        );
      }
    }
  }

  /** STOPPED: staged changes stay in the journal, the index is closed. */
  async stop(): Promise<void> {
    this.stoppedOnPurpose = true;
    await this.closeFrozen();
    await this.serialTransition(() => this.stopNow());
  }

  /** {@link stop}'s work, inside a transition. */
  private async stopNow(): Promise<void> {
    {
      if (this.currentState !== 'RUNNING') {
        if (this.currentState === 'FAILED') this.currentState = 'STOPPED';
        return;
      }
      this.currentState = 'STOPPING';
      await this.waitIdle();
      this.master?.master.close();
      this.master = undefined;
      const replicaRuntime = this.replicaRuntime;
      if (replicaRuntime !== undefined) {
        this.replicaRuntime = undefined;
        await replicaRuntime.close();
        this.currentState = 'STOPPED';
        return;
      }
      const runtime = this.runtime!;
      // From here on, background work of this runtime (a RE_INDEX loop, auto-commit) sees it is
      // no longer current and stops instead of starting new commits.
      this.runtime = undefined;
      if (runtime.autoCommitTimer !== undefined) clearTimeout(runtime.autoCommitTimer);
      await settleAll(runtime.commitsInFlight);
      // Evidence: stops its timers, waits for its job (which may commit), saves its files.
      await runtime.evidence.close();
      // Aborts running merges (a MERGE vacuum among them) and waits for them.
      await runtime.index.close();
      await settleAll(runtime.vacuumsInFlight);
      await runtime.journal.close();
      this.currentState = 'STOPPED';
    }
  }

  private async start(): Promise<void> {
    this.currentState = 'STARTING';
    this.failure = undefined;
    this.stoppedOnPurpose = false;
    try {
      await this.closeFrozen();
      this.snapshots.removePartial();
      // A start reads the files again: files edited by hand apply at a stop and start.
      const settings = this.settingsCache.reload(this.name);
      const mode = this.resolveMode(true);
      const recorded = this.modeFile.read();
      if (recorded === undefined) this.modeFile.write({ mode, sync: true });
      if (mode === 'SLAVE') {
        const replicaRuntime = ReplicaRuntime.open({
          collection: this.name,
          home: this.home,
          log: this.log,
          masterUrl: this.replicationSettings().masterUrl,
          context: this.replication,
        });
        this.replicaRuntime = replicaRuntime;
        this.currentState = 'RUNNING';
        replicaRuntime.start(recorded?.sync !== false);
        return;
      }
      const runtime = await startRuntime({
        collection: this.name,
        home: this.home,
        log: this.log,
        settings,
        marker: this.marker,
        openJournal: this.openJournal,
        guardWrite: () => this.guardWrite(),
        onIndexEvent: (event) => this.onIndexEvent(event),
        applyChange: (runtime, change, origin) => this.applyChange(runtime, change, origin),
        commit: async (runtime) => {
          await this.commitNow(runtime);
        },
      });
      this.runtime = runtime;
      this.currentState = 'RUNNING';
      runtime.evidence.start();
      if (runtime.index.stagedChanges > 0) this.scheduleAutoCommit(runtime);
    } catch (error) {
      const e = error as Error;
      this.failure = {
        reason: e.message,
        ...(error instanceof CorruptIndexError ? { file: error.file } : {}),
      };
      this.currentState = 'FAILED';
      this.log.error(
        { collection: this.name, err: { message: e.message, code: (e as SearchError).code } },
        'collection failed to start',
      );
    }
  }

  private serialTransition(work: () => Promise<void>): Promise<void> {
    const run = this.transition.then(work, work);
    this.transition = run.catch(() => undefined);
    return run;
  }

  /** Runs an operation on the running collection, starting it first; stop() waits for it. */
  private async withRuntime<T>(work: (runtime: CollectionRuntime) => Promise<T> | T): Promise<T> {
    for (;;) {
      await this.ensureRunning();
      if (this.mode() === 'SLAVE') this.refuseChanges('changes');
      if (this.currentState !== 'RUNNING' || this.runtime === undefined) continue;
      this.inFlight++;
      try {
        return await work(this.runtime);
      } finally {
        if (--this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
      }
    }
  }

  /** Runs a read on a running query processor (mode SLAVE), starting it first. */
  private async withReplica<T>(work: (runtime: ReplicaRuntime) => Promise<T> | T): Promise<T> {
    for (;;) {
      await this.ensureRunning();
      if (this.currentState !== 'RUNNING' || this.replicaRuntime === undefined) continue;
      this.inFlight++;
      try {
        return await work(this.replicaRuntime);
      } finally {
        if (--this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
      }
    }
  }

  private waitIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  // ---------------------------------------------------------------------------------------
  // Documents

  /** Adds or replaces a document. Resolves (with the canonical key) once the change is durable. */
  async putDocument(input: {
    key: string;
    content: Uint8Array;
    contentType: string;
    metadata: Record<string, string[]>;
    filters?: string | undefined;
  }): Promise<string> {
    const key = canonicalizeKey(input.key);
    this.guardWrite();
    this.refuseChanges('documents');
    return this.withRuntime(async (runtime) => {
      const metadata = { ...input.metadata };
      const receivedTime = formatReceivedTime(new Date());
      metadata[RECEIVED_TIME_METADATA] = [receivedTime];
      const change: ChangeRecord = {
        op: 'put',
        key,
        content: input.content,
        contentType: input.contentType,
        metadata,
        receivedTime,
        filters: input.filters === '' ? undefined : input.filters,
      };
      // A PDF or Office document is extracted first, off this thread; the journal keeps the result.
      const extracted = await extractBinary(
        key,
        input,
        change.filters ?? runtime.settings.config.filterClasses,
      );
      if (extracted !== undefined) change.extracted = extracted;
      // Filters run before the journal: a document that cannot be filtered is refused and nothing is stored.
      const doc = this.documentFor(runtime, change);
      await runtime.index.ready();
      await this.appendAndApply(runtime, change, doc.stored, () => runtime.index.put(doc));
      return key;
    });
  }

  async deleteDocument(rawKey: string): Promise<string> {
    const key = canonicalizeKey(rawKey);
    this.guardWrite();
    this.refuseChanges('deletes');
    return this.withRuntime(async (runtime) => {
      await this.appendAndApply(runtime, { op: 'delete', key }, null, () => runtime.index.delete(key));
      return key;
    });
  }

  async putRedirect(rawKey: string, rawTarget: string): Promise<string> {
    const key = canonicalizeKey(rawKey);
    const target = canonicalizeKey(rawTarget);
    if (key === target)
      throw new SearchError('PARAMETER_INVALID', 'a redirect must point to another key than itself');
    this.guardWrite();
    this.refuseChanges('redirects');
    return this.withRuntime(async (runtime) => {
      const change: ChangeRecord = { op: 'redirect', key, target };
      const doc = mapRedirect(key, target, formatReceivedTime(new Date()));
      await this.appendAndApply(runtime, change, doc.stored, () => runtime.index.put(doc));
      return key;
    });
  }

  /** The document as pushed: staged version first, else the committed one; null when absent. */
  async getDocument(rawKey: string): Promise<DocumentView | null> {
    const key = canonicalizeKey(rawKey);
    if (this.mode() === 'SLAVE') {
      // A query processor has only committed documents: those its master published.
      return this.withReplica((runtime) => {
        const searcher = runtime.replica.acquireSearcher();
        try {
          const found = searcher.getDocument(key);
          return found === null ? null : documentView(key, found.record, true);
        } finally {
          searcher.release();
        }
      });
    }
    return this.withRuntime((runtime) => {
      const staged = runtime.index.stagedDocument(key);
      if (staged === null) return null;
      if (staged !== undefined) return documentView(key, staged, false);
      const searcher = runtime.index.acquireSearcher();
      try {
        const found = searcher.getDocument(key);
        return found === null ? null : documentView(key, found.record, true);
      } finally {
        searcher.release();
      }
    });
  }

  /** `staged`: the stored record the change stages (null for a delete; undefined: not known), which the evidence store takes its links from. */
  private async appendAndApply(
    runtime: CollectionRuntime,
    change: ChangeRecord,
    staged: StoredRecord | null | undefined,
    apply: () => void,
  ): Promise<void> {
    const seq = await runtime.journal.append(encodeChange(change));
    // Durable now. Apply in journal order, so the index buffer matches a replay exactly.
    runtime.waiting.set(seq, () => {
      apply();
      runtime.reindexTouched?.add(change.key);
      runtime.evidence.noteChanged(change.key, staged);
    });
    while (runtime.waiting.has(runtime.appliedSeq + 1)) {
      const next = runtime.appliedSeq + 1;
      runtime.waiting.get(next)!();
      runtime.waiting.delete(next);
      runtime.appliedSeq = next;
    }
    this.afterStaged(runtime);
  }

  private applyChange(
    runtime: CollectionRuntime,
    change: ChangeRecord,
    origin: 'replay' | 'reindex' | 'evidence',
  ): void {
    try {
      switch (change.op) {
        case 'put':
          runtime.index.put(this.documentFor(runtime, change), { reindex: origin !== 'replay' });
          break;
        case 'delete':
          runtime.index.delete(change.key);
          break;
        case 'redirect':
          runtime.index.put(mapRedirect(change.key, change.target, formatReceivedTime(new Date())), {
            reindex: origin !== 'replay',
          });
          break;
      }
    } catch (error) {
      this.log.error(
        { collection: this.name, key: change.key, origin, err: { message: (error as Error).message } },
        `${origin}: change could not be indexed`,
      );
    }
  }

  private documentFor(runtime: CollectionRuntime, change: Extract<ChangeRecord, { op: 'put' }>) {
    const settings = runtime.settings;
    const pushed: PushedDocument = change;
    const xml = settings.xml;
    const filtered = runFilterChain(
      {
        key: change.key,
        content: change.content,
        contentType: change.contentType,
        metadata: change.metadata,
        ...(change.extracted !== undefined ? { extracted: change.extracted } : {}),
      },
      change.filters ?? settings.config.filterClasses,
      {
        xmlConfig:
          xml === undefined
            ? undefined
            : {
                mappings: [
                  ...[...xml.classes.values()].flatMap((m) =>
                    m.paths.map((path) => ({ className: m.className, type: m.type, xpath: path.source })),
                  ),
                  // Collected like a class, read by the mapper as the result's file type.
                  ...xml.docFileType.map((path) => ({
                    className: 'docfiletype',
                    type: 0,
                    xpath: path.source,
                  })),
                ],
                ...(xml.docUrl[0] !== undefined ? { docUrlXpath: xml.docUrl[0].source } : {}),
              },
        htmlElements: htmlElementsOf(settings.metamap),
        onSkipped: (filter, reason) => this.noteSkippedFilter(filter, reason),
      },
    );
    // Every put consults the evidence store: a document pushed again keeps its anchor text and clicks.
    return mapDocument(pushed, filtered, settings, runtime.evidence.documentEvidence(change.key));
  }

  /** One push.log note per filter name the collection passes over (see `SKIPPED_REASON`). */
  private noteSkippedFilter(filter: string, reason: string): void {
    if (this.skippedFilters.has(filter)) return;
    this.skippedFilters.add(filter);
    this.log.info({ collection: this.name, filter }, `filter ${filter} skipped: ${reason}`);
  }

  // ---------------------------------------------------------------------------------------
  // Commits

  /**
   * Makes staged changes searchable. With `wait` it resolves once the new generation is
   * live; without, it starts the commit and resolves at once (errors go to push.log).
   */
  async commit(
    wait = true,
    requestId?: string,
  ): Promise<{ generation: number | null; manifest: number; changes: number }> {
    this.guardWrite();
    this.refuseChanges('commits');
    return this.withRuntime(async (runtime) => {
      const run = this.commitNow(runtime, requestId);
      if (!wait) {
        run.catch(() => undefined);
        return {
          generation: null,
          manifest: runtime.index.lastCommit.manifest,
          changes: runtime.index.stagedChanges,
        };
      }
      return run;
    });
  }

  /** @param requestId the HTTP request that asked for it (for push.log); none for automatic commits. */
  private async commitNow(
    runtime: CollectionRuntime,
    requestId?: string,
  ): Promise<{ generation: number | null; manifest: number; changes: number }> {
    if (runtime.autoCommitTimer !== undefined) {
      clearTimeout(runtime.autoCommitTimer);
      runtime.autoCommitTimer = undefined;
    }
    const started = performance.now();
    const evidenceBatch = runtime.evidence.beforeCommit();
    // Recorded with the first commit that writes documents under it (an empty commit stays a no-op).
    const unrecorded =
      runtime.index.stagedChanges > 0 && !sameSchema(recordedSchemaOf(runtime.index), runtime.schema);
    const run = runtime.index.commit({
      journalSeq: runtime.appliedSeq,
      ...(unrecorded ? { userData: { [SCHEMA_USER_DATA]: runtime.schema } } : {}),
    });
    runtime.commitsInFlight.add(run);
    try {
      const result = await run;
      runtime.evidence.afterCommit(evidenceBatch, true);
      await runtime.journal.releaseThrough(runtime.index.lastCommit.journalSeq);
      this.marker.write(result.manifest);
      for (const generation of result.generations) {
        this.writeGenerationLog(generation, 'commit.log', {
          time: new Date().toISOString(),
          step: 'commit',
          manifest: result.manifest,
          changes: result.changes,
          durationMs: Math.round(performance.now() - started),
        });
      }
      return {
        generation: result.generations.at(-1) ?? null,
        manifest: result.manifest,
        changes: result.changes,
      };
    } catch (error) {
      runtime.evidence.afterCommit(evidenceBatch, false);
      const e = error as SearchError;
      this.log.error(
        {
          collection: this.name,
          ...(requestId === undefined ? { origin: 'automatic' } : { requestId }),
          err: { message: e.message, code: e.code },
        },
        'commit failed',
      );
      throw error;
    } finally {
      runtime.commitsInFlight.delete(run);
      if (runtime.index.stagedChanges > 0 && this.runtime === runtime) this.scheduleAutoCommit(runtime);
    }
  }

  private afterStaged(runtime: CollectionRuntime): void {
    const { autoCommitMaxChanges } = runtime.settings.config;
    if (
      autoCommitMaxChanges > 0 &&
      runtime.index.stagedChanges >= autoCommitMaxChanges &&
      runtime.commitsInFlight.size === 0
    ) {
      this.commitNow(runtime).catch(() => undefined);
      return;
    }
    this.scheduleAutoCommit(runtime);
  }

  /** The auto-commit timer runs from the first staged change after a commit. */
  private scheduleAutoCommit(runtime: CollectionRuntime): void {
    const seconds = runtime.settings.config.autoCommitTimeoutSeconds;
    if (seconds <= 0 || runtime.autoCommitTimer !== undefined) return;
    runtime.autoCommitTimer = setTimeout(() => {
      runtime.autoCommitTimer = undefined;
      if (this.runtime !== runtime || runtime.index.stagedChanges === 0) return;
      this.commitNow(runtime).catch(() => undefined);
    }, seconds * 1000);
    runtime.autoCommitTimer.unref();
  }

  // ---------------------------------------------------------------------------------------
  // Vacuum

  /** MERGE: every generation into one. RE_INDEX: every stored document indexed again under today's configuration. */
  async vacuum(type: VacuumType, wait = true, requestId?: string): Promise<VacuumProgress> {
    this.guardWrite();
    this.refuseChanges('vacuums');
    return this.withRuntime(async (runtime) => {
      if (this.vacuumProgress?.state === 'RUNNING') {
        throw new SearchError('WRONG_STATE', `a ${this.vacuumProgress.type} vacuum is already running`);
      }
      const progress: VacuumProgress = {
        type,
        state: 'RUNNING',
        done: 0,
        total: 0,
        startedAt: new Date().toISOString(),
      };
      this.vacuumProgress = progress;
      const run = (type === 'MERGE' ? runtime.index.forceMerge() : this.reindex(runtime, progress)).then(
        () => {
          progress.state = 'DONE';
          progress.finishedAt = new Date().toISOString();
        },
        (error: Error) => {
          progress.state = 'FAILED';
          progress.error = error.message;
          progress.finishedAt = new Date().toISOString();
          this.log.error(
            {
              collection: this.name,
              ...(requestId === undefined ? {} : { requestId }),
              err: { message: error.message },
            },
            `vacuum ${type} failed`,
          );
          if (wait) throw error;
        },
      );
      if (wait) await run;
      else {
        runtime.vacuumsInFlight.add(run);
        void run.finally(() => runtime.vacuumsInFlight.delete(run));
      }
      return { ...progress };
    });
  }

  private async reindex(runtime: CollectionRuntime, progress: VacuumProgress): Promise<void> {
    // Reload the configuration: re-indexing exists to apply changed mappings.
    runtime.settings = this.settingsCache.reload(this.name);
    const wanted = indexSchemaFor(runtime.settings);
    if (!sameSchema(wanted, runtime.schema)) await this.switchSchema(runtime, wanted);
    const searcher = runtime.index.acquireSearcher();
    runtime.reindexTouched = new Set();
    try {
      progress.total = searcher.documentCount;
      let sinceYield = 0;
      for (const { key, record } of searcher.liveDocuments()) {
        if (this.runtime !== runtime)
          throw new SearchError('WRONG_STATE', 'the collection stopped during RE_INDEX');
        // A key changed by a client since (or staged before and not yet committed) keeps that change.
        if (!runtime.reindexTouched.has(key) && runtime.index.stagedDocument(key) === undefined) {
          this.applyChange(runtime, changeFromStored(key, record), 'reindex');
        }
        progress.done++;
        if (++sinceYield === 200) {
          sinceYield = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    } finally {
      runtime.reindexTouched = undefined;
      searcher.release();
    }
    if (this.runtime !== runtime)
      throw new SearchError('WRONG_STATE', 'the collection stopped during RE_INDEX');
    await this.commitNow(runtime);
    // The filters may now find other links: recompute anchor text from every document.
    runtime.evidence.invalidate('RE_INDEX');
  }

  /**
   * Stages from now on under `schema` (changed indexer_options): what is staged is committed
   * first under the old one, so that no generation mixes two analyses. Queries keep the old
   * analysis until a commit publishes documents indexed the new way (see indexSchema): the
   * RE_INDEX's own at its end, unless an automatic commit falls in between.
   */
  private async switchSchema(runtime: CollectionRuntime, schema: SchemaOptions): Promise<void> {
    for (;;) {
      await this.commitNow(runtime);
      if (this.runtime !== runtime)
        throw new SearchError('WRONG_STATE', 'the collection stopped during RE_INDEX');
      // A client's PUT may have been staged while the commit ran: commit again.
      if (runtime.index.stagedChanges === 0) break;
    }
    runtime.index.useSchema(schema);
    runtime.schema = schema;
  }

  /**
   * How queries are analysed: as the published documents were, so the analysis recorded with
   * the last commit. During a RE_INDEX that switches it, that stays the old one until the
   * re-indexed documents are published together. Undefined when the collection is not running.
   */
  indexSchema(): SchemaOptions | undefined {
    const replicated = this.replicaRuntime?.replica.manifest ?? this.frozen?.manifest;
    if (this.runtime === undefined && replicated != null) {
      const recorded = replicated.userData[SCHEMA_USER_DATA];
      return typeof recorded === 'object' && recorded !== null ? (recorded as SchemaOptions) : undefined;
    }
    const runtime = this.runtime;
    return runtime === undefined ? undefined : (recordedSchemaOf(runtime.index) ?? runtime.schema);
  }

  // ---------------------------------------------------------------------------------------
  // Evidence (anchor text and clicks)

  /**
   * Brings anchor text up to date now (it otherwise runs `push.evidence.delay-seconds` after
   * a commit) and resolves once the re-indexed documents are committed.
   */
  async updateEvidence(): Promise<EvidenceUpdate> {
    this.refuseChanges('evidence updates');
    return this.withRuntime((runtime) => runtime.evidence.updateNow());
  }

  /**
   * Processes the click logs now (otherwise every `push.click-logs.interval-seconds`,
   * hourly by default) and resolves once the re-indexed documents are committed. `now`
   * replaces the clock (tests and simulations).
   */
  async processClickLogs(options: { now?: number } = {}): Promise<ClickProcessing> {
    this.guardWrite();
    this.refuseChanges('click log processing (its clicks go to the master)');
    return this.withRuntime((runtime) => runtime.evidence.processClickLogs(options));
  }

  // ---------------------------------------------------------------------------------------
  // Snapshots and restore

  async createSnapshot(name: string): Promise<SnapshotListing> {
    this.guardWrite();
    this.home.snapshotFolder(this.name, name); // validates the name before the collection starts
    if (this.mode() === 'SLAVE') {
      return this.withReplica(async (runtime) => {
        const pinned = runtime.replica.pin();
        if (pinned === null)
          throw new SearchError(
            'WRONG_STATE',
            `query processor ${this.name} has installed nothing from its master yet: nothing to snapshot`,
          );
        try {
          const files = pinned.listing.files.map((file) => ({ name: file.name, path: pinned.path(file) }));
          return await this.snapshots.createFromFiles(name, pinned.listing.manifest, files);
        } finally {
          pinned.release();
        }
      });
    }
    return this.withRuntime((runtime) => this.snapshots.create(runtime.index, name));
  }

  /** Does not start the collection. */
  listSnapshots(): SnapshotListing[] {
    return this.snapshots.list();
  }

  /** Checks every file of a snapshot; does not start the collection. */
  verifySnapshot(name: string): Promise<SnapshotVerification> {
    return this.snapshots.verify(name);
  }

  /** Does not start the collection. */
  deleteSnapshot(name: string): void {
    this.guardWrite();
    this.snapshots.delete(name);
  }

  /** Replaces live/ by a snapshot. Needs STOPPED (the spec's rule); the next request starts on it. */
  async restoreSnapshot(name: string): Promise<void> {
    this.guardWrite();
    this.refuseChanges('restores (restore the admin: its query processors follow)');
    this.home.snapshotFolder(this.name, name);
    await this.serialTransition(async () => {
      if (this.currentState !== 'STOPPED' && this.currentState !== 'FAILED') {
        throw new SearchError(
          'WRONG_STATE',
          `collection ${this.name} is ${this.currentState}: stop it first (POST state/stop)`,
        );
      }
      const manifest = await this.snapshots.restore(name);
      // The journal's records since the snapshot belong to the replaced index: the next start
      // releases them instead of replaying them.
      this.marker.writeRestored(manifest);
      this.currentState = 'STOPPED';
    });
  }

  // ---------------------------------------------------------------------------------------
  // Search side

  /** A point-in-time searcher of the committed index (starts the collection). */
  async acquireSearcher(): Promise<Searcher> {
    // push.run=false: the collection does not run, its last state is still searched.
    if (!this.runs()) return this.frozenView().index.acquireSearcher();
    if (this.mode() === 'SLAVE') return this.withReplica((runtime) => runtime.replica.acquireSearcher());
    return this.withRuntime((runtime) => runtime.index.acquireSearcher());
  }

  /** Waits for merges and commits everything staged (upgrade preparation). */
  async quiesce(): Promise<void> {
    if (this.currentState !== 'RUNNING' || this.runtime === undefined) return;
    await this.withRuntime(async (runtime) => {
      if (runtime.index.stagedChanges > 0) await this.commitNow(runtime);
      await runtime.index.waitForMerges();
    });
  }

  // ---------------------------------------------------------------------------------------
  // Logs and markers

  private onIndexEvent(event: IndexEvent): void {
    if (event.type === 'merge-failed') {
      this.log.error(
        {
          collection: this.name,
          generation: event.into,
          inputs: event.generations,
          snapshot: event.snapshot,
          err: { message: event.error.message },
        },
        'merge failed',
      );
    } else if (event.type === 'merge-done') {
      this.writeGenerationLog(event.into, 'merge.log', {
        time: new Date().toISOString(),
        step: 'merge',
        inputs: event.generations,
        documents: event.documents,
        durationMs: Math.round(event.durationMs),
      });
    }
  }

  private writeGenerationLog(generation: number, file: string, entry: Record<string, unknown>): void {
    try {
      appendGenerationLog(this.home.generationLogFolder(this.name, generation), file, entry);
    } catch (error) {
      this.log.error(
        { collection: this.name, generation, err: { message: (error as Error).message } },
        'cannot write generation log',
      );
    }
  }
}

/** Waits until every promise of a set (which may grow meanwhile) has settled. */
async function settleAll(work: Set<Promise<unknown>>): Promise<void> {
  while (work.size > 0) await Promise.allSettled([...work]);
}
