import { SearchError } from '../errors.js';
import type { Searcher } from '../index/searcher.js';
import type { SchemaOptions } from '../index/schema.js';
import { LiveIndexSource, ReplicaSource, type ReplicationMaster } from '../replication/replication-master.js';
import type { SyncStateView } from '../replication/replication-puller.js';
import { ChangeStager } from './change-stager.js';
import { ClientChanges, type PushedInput } from './client-changes.js';
import { CollectionCommits, type CommitAnswer } from './collection-commits.js';
import { CollectionLifecycle, type CollectionState } from './collection-lifecycle.js';
import { CollectionRole } from './collection-role.js';
import { collectionStateView, type CollectionStateView } from './collection-state-view.js';
import {
  closeRuntime,
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
import { CollectionVacuum, type VacuumProgress, type VacuumType } from './collection-vacuum.js';
import { lookUpCommitted, lookUpDocument } from './document-lookup.js';
import type { ClickProcessing, EvidenceUpdate } from './evidence/collection-evidence.js';
import { FrozenState } from './frozen-index.js';
import { GenerationLogWriter } from './generation-logs.js';
import { recordedSchemaOf, schemaRecordedIn } from './index-schema.js';
import { canonicalizeKey } from './key.js';
import { ManifestMarker } from './manifest-marker.js';
import { MasterSide } from './master-side.js';
import type { PushLog } from './push-log.js';
import {
  promoteReplica,
  replicaFolder,
  replicationContextFor,
  ReplicaRuntime,
  type ReplicationContext,
} from './replica-runtime.js';
import type { CollectionMode, ReplicationSettings } from './replication-settings.js';
import { validateName, type SearchHome } from './search-home.js';
import { SettingsCache } from './settings-cache.js';
import type { DocumentView } from './stored-document.js';

export type { DocumentView } from './stored-document.js';
export type { SnapshotListing } from './collection-snapshots.js';
export type { CollectionState } from './collection-lifecycle.js';
export type { VacuumProgress, VacuumType } from './collection-vacuum.js';
export type { CollectionStateView } from './collection-state-view.js';

/** Guard consulted before every write: the installation may be preparing for an upgrade. */
export type WriteGuard = () => void;

/**
 * A push collection at run time: the coordinator of its parts. Any request but `state`
 * starts it ({@link CollectionLifecycle}); its role ({@link CollectionRole}: admin or query
 * processor, push.run) decides what it opens and which requests it refuses. An admin holds a
 * {@link CollectionRuntime} (journal, index, evidence) that changes are staged on
 * ({@link ChangeStager}), committed ({@link CollectionCommits}) and vacuumed
 * ({@link CollectionVacuum}) through; a query processor holds a {@link ReplicaRuntime}.
 */
export class PushCollection {
  readonly name: string;
  private readonly lifecycle: CollectionLifecycle;
  private readonly role: CollectionRole;
  private runtime: CollectionRuntime | undefined;
  /** A query processor's runtime (mode SLAVE), instead of {@link runtime}. */
  private replicaRuntime: ReplicaRuntime | undefined;
  /** What searches read while push.run=false (the collection does not run then). */
  private readonly frozen: FrozenState;
  /** The master side of this collection (query processors copy from it), tied to one runtime. */
  private readonly master = new MasterSide();
  /** Stopped through the API (or at shutdown): query processors asking for it do not start it again. */
  private stoppedOnPurpose = false;
  private readonly snapshots: CollectionSnapshots;
  private readonly marker: ManifestMarker;
  private readonly stager: ChangeStager;
  private readonly changes: ClientChanges;
  private readonly commits: CollectionCommits;
  private readonly vacuums: CollectionVacuum;
  private readonly generationLogs: GenerationLogWriter;

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
    this.lifecycle = new CollectionLifecycle(this.name);
    this.role = new CollectionRole(this.name, home, settingsCache);
    this.frozen = new FrozenState(home.liveFolder(this.name), replicaFolder(home, this.name));
    this.snapshots = new CollectionSnapshots(home, this.name);
    this.marker = new ManifestMarker(home, this.name, log);
    this.generationLogs = new GenerationLogWriter(home, this.name, log);
    const isCurrent = (runtime: CollectionRuntime) => this.runtime === runtime;
    this.stager = new ChangeStager(this.name, log, isCurrent);
    this.commits = new CollectionCommits({
      collection: this.name,
      log,
      marker: this.marker,
      generationLogs: this.generationLogs,
      isCurrent,
      restage: (runtime) => this.stager.restage(runtime),
    });
    this.changes = new ClientChanges(this.stager, this.commits);
    this.vacuums = new CollectionVacuum({
      collection: this.name,
      log,
      reloadSettings: () => this.settingsCache.reload(this.name),
      stager: this.stager,
      commits: this.commits,
      isCurrent,
    });
  }

  // ---------------------------------------------------------------------------------------
  // Mode and replication

  /** The replication keys of collection.cfg (validated; CONFIG_INVALID when they are wrong). */
  replicationSettings(): ReplicationSettings {
    return this.role.settings();
  }

  /**
   * DEFAULT or SLAVE: as recorded at the first start (or by the mode API) in
   * `data/{c}/mode.json`; before the first start, `push.initial-mode` of collection.cfg.
   */
  mode(): CollectionMode {
    return this.role.mode();
  }

  /**
   * Throws when the collection takes no changes: a query processor (its master takes them),
   * a collection with push.run=false, or one switching to SLAVE.
   */
  refuseChanges(what: string): void {
    this.role.refuseChanges(what);
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
    this.role.refuseIfDisabled();
    const current = this.mode();
    if (current === mode) return;
    await this.role.switching(mode, async () => {
      if (current === 'DEFAULT') {
        // Every acknowledged change committed before the index is given up.
        await this.ensureRunning();
        await this.lifecycle.waitIdle();
        const runtime = this.runtime;
        if (runtime !== undefined && runtime.index.stagedChanges > 0) await this.commits.commit(runtime);
      }
      await this.lifecycle.serial(async () => {
        await this.stopNow();
        if (current === 'SLAVE')
          await promoteReplica(this.home, this.name, async (manifest, files) => {
            this.marker.writeRestored(await this.snapshots.installIntoLive(manifest, files));
          });
        this.role.record({ mode, sync: true });
        this.log.info({ collection: this.name, mode }, 'collection mode changed');
      });
    });
    // A query processor syncs from now on, not at its first search.
    if (mode === 'SLAVE') await this.ensureRunning();
  }

  /** The sync state of a query processor (`GET .../sync/collections/{c}/state`). */
  syncState(): SyncStateView & { mode: CollectionMode; reason?: string } {
    return this.role.syncState(this.replicaRuntime);
  }

  /** Starts (and keeps across restarts) the sync of a query processor. */
  async startSync(): Promise<void> {
    this.role.requireSlave();
    this.role.refuseIfDisabled();
    this.role.requireMaster();
    this.role.record({ mode: 'SLAVE', sync: true });
    await this.ensureRunning();
    this.replicaRuntime?.puller?.start();
  }

  /** Stops the sync of a query processor (searches go on over what it installed); kept across restarts. */
  async stopSync(): Promise<void> {
    this.role.requireSlave();
    this.role.record({ mode: 'SLAVE', sync: false });
    await this.replicaRuntime?.puller?.stop();
  }

  /**
   * The master side of this collection, for query processors that copy it (refused with
   * push.run=false). Starts the collection; an admin serves its live index, a query
   * processor the state it installed (chains).
   */
  async replicationMaster(): Promise<ReplicationMaster> {
    for (;;) {
      this.role.refuseIfDisabled();
      // Stopped by an operator (a restore needs STOPPED): the query processors wait for its next start.
      if (this.stoppedOnPurpose && this.lifecycle.state !== 'RUNNING')
        throw new SearchError(
          'INDEX_CLOSED',
          `collection ${this.name} was stopped on this server; it serves query processors again once it starts (at its next push or search request)`,
        );
      await this.ensureRunning();
      const replicaRuntime = this.replicaRuntime;
      if (replicaRuntime !== undefined)
        return this.master.for(replicaRuntime, () => new ReplicaSource(replicaRuntime.replica));
      const runtime = this.runtime;
      if (runtime !== undefined)
        return this.master.for(
          runtime,
          () => new LiveIndexSource(this.home.liveFolder(this.name), () => this.acquireSearcher()),
        );
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
      if (this.lifecycle.state === 'STOPPED') return;
      this.log.warn({ collection: this.name }, 'push.run=false: collection stopped');
      await this.lifecycle.serial(() => this.stopNow());
      return;
    }
    await this.frozen.close();
    if (this.lifecycle.state === 'STOPPED' && this.mode() === 'SLAVE')
      await this.ensureRunning().catch(() => undefined);
  }

  get state(): CollectionState {
    return this.lifecycle.state;
  }

  /** The state call: never starts the collection. */
  stateView(): CollectionStateView {
    return collectionStateView({
      collection: this.name,
      state: this.lifecycle.state,
      failure: this.lifecycle.failure,
      role: this.role.view(),
      runtime: this.runtime,
      replicaRuntime: this.replicaRuntime,
      vacuum: this.vacuums.progress,
    });
  }

  // ---------------------------------------------------------------------------------------
  // Lifecycle

  /** Starts the collection when it is not running (the push API's automatic start). */
  ensureRunning(): Promise<void> {
    return this.lifecycle.ensureRunning(
      () => this.role.refuseIfDisabled(),
      () => this.open(),
      (e) =>
        this.log.error(
          { collection: this.name, err: { message: e.message, code: (e as SearchError).code } },
          'collection failed to start',
        ),
    );
  }

  /** STOPPED: staged changes stay in the journal, the index is closed. */
  async stop(): Promise<void> {
    this.stoppedOnPurpose = true;
    await this.frozen.close();
    await this.lifecycle.serial(() => this.stopNow());
  }

  /** {@link stop}'s work, inside a transition. */
  private stopNow(): Promise<void> {
    return this.lifecycle.stop(async () => {
      this.master.close();
      const replicaRuntime = this.replicaRuntime;
      if (replicaRuntime !== undefined) {
        this.replicaRuntime = undefined;
        await replicaRuntime.close();
        return;
      }
      const runtime = this.runtime;
      if (runtime === undefined) return;
      // From here on, background work of this runtime (a RE_INDEX loop, auto-commit) sees it is
      // no longer current and stops instead of starting new commits.
      this.runtime = undefined;
      await closeRuntime(runtime);
    });
  }

  /**
   * What a start opens (see {@link CollectionLifecycle.ensureRunning}): a query processor's
   * replica, or an admin's runtime. Throws (the collection is FAILED) when a part cannot open.
   */
  private async open(): Promise<void> {
    this.stoppedOnPurpose = false;
    await this.frozen.close();
    this.snapshots.removePartial();
    // A start reads the files again: files edited by hand apply at a stop and start.
    const settings = this.settingsCache.reload(this.name);
    const { mode, sync } = this.role.modeAtStart();
    if (mode === 'SLAVE') {
      const replicaRuntime = ReplicaRuntime.open({
        collection: this.name,
        home: this.home,
        log: this.log,
        masterUrl: this.replicationSettings().masterUrl,
        context: this.replication,
      });
      this.replicaRuntime = replicaRuntime;
      replicaRuntime.start(sync);
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
      onIndexEvent: (event) => this.generationLogs.onIndexEvent(event),
      applyChange: (runtime, change, origin) => this.stager.apply(runtime, change, origin),
      commit: async (runtime) => {
        await this.commits.commit(runtime);
      },
    });
    this.runtime = runtime;
    runtime.evidence.start();
    if (runtime.index.stagedChanges > 0) this.commits.scheduleAutoCommit(runtime);
  }

  /** Runs an operation on the running collection, starting it first; stop() waits for it. */
  private async withRuntime<T>(work: (runtime: CollectionRuntime) => Promise<T> | T): Promise<T> {
    for (;;) {
      await this.ensureRunning();
      if (this.mode() === 'SLAVE') this.refuseChanges('changes');
      const runtime = this.runtime;
      if (this.lifecycle.state !== 'RUNNING' || runtime === undefined) continue;
      return this.lifecycle.hold(() => work(runtime));
    }
  }

  /** Runs a read on a running query processor (mode SLAVE), starting it first. */
  private async withReplica<T>(work: (runtime: ReplicaRuntime) => Promise<T> | T): Promise<T> {
    for (;;) {
      await this.ensureRunning();
      const replicaRuntime = this.replicaRuntime;
      if (this.lifecycle.state !== 'RUNNING' || replicaRuntime === undefined) continue;
      return this.lifecycle.hold(() => work(replicaRuntime));
    }
  }

  // ---------------------------------------------------------------------------------------
  // Documents

  /** Adds or replaces a document. Resolves (with the canonical key) once the change is durable. */
  async putDocument(input: PushedInput & { key: string }): Promise<string> {
    const key = canonicalizeKey(input.key);
    this.guardWrite();
    this.refuseChanges('documents');
    return this.withRuntime(async (runtime) => {
      await this.changes.put(runtime, key, input);
      return key;
    });
  }

  async deleteDocument(rawKey: string): Promise<string> {
    const key = canonicalizeKey(rawKey);
    this.guardWrite();
    this.refuseChanges('deletes');
    return this.withRuntime(async (runtime) => {
      await this.changes.delete(runtime, key);
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
      await this.changes.redirect(runtime, key, target);
      return key;
    });
  }

  /** The document as pushed: staged version first, else the committed one; null when absent. */
  async getDocument(rawKey: string): Promise<DocumentView | null> {
    const key = canonicalizeKey(rawKey);
    if (this.mode() === 'SLAVE') return this.withReplica((runtime) => lookUpCommitted(runtime.replica, key));
    return this.withRuntime((runtime) => lookUpDocument(runtime.index, key));
  }

  // ---------------------------------------------------------------------------------------
  // Commits and vacuum

  /**
   * Makes staged changes searchable. With `wait` it resolves once the new generation is
   * live; without, it starts the commit and resolves at once (errors go to push.log).
   */
  async commit(wait = true, requestId?: string): Promise<CommitAnswer> {
    this.guardWrite();
    this.refuseChanges('commits');
    return this.withRuntime(async (runtime) => {
      const run = this.commits.commit(runtime, requestId);
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

  /** MERGE: every generation into one. RE_INDEX: every stored document indexed again under today's configuration. */
  async vacuum(type: VacuumType, wait = true, requestId?: string): Promise<VacuumProgress> {
    this.guardWrite();
    this.refuseChanges('vacuums');
    return this.withRuntime((runtime) => this.vacuums.run(runtime, type, wait, requestId));
  }

  /**
   * How queries are analysed: as the published documents were, so the analysis recorded with
   * the last commit. During a RE_INDEX that switches it, that stays the old one until the
   * re-indexed documents are published together. Undefined when the collection is not running.
   */
  indexSchema(): SchemaOptions | undefined {
    const runtime = this.runtime;
    if (runtime !== undefined) return recordedSchemaOf(runtime.index) ?? runtime.schema;
    const replicated = this.replicaRuntime?.replica.manifest ?? this.frozen.manifest;
    return replicated == null ? undefined : schemaRecordedIn(replicated);
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
    if (this.mode() === 'SLAVE')
      return this.withReplica((runtime) => this.snapshots.createFromReplica(name, runtime.replica));
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
    await this.lifecycle.serial(async () => {
      const state = this.lifecycle.state;
      if (state !== 'STOPPED' && state !== 'FAILED') {
        throw new SearchError(
          'WRONG_STATE',
          `collection ${this.name} is ${state}: stop it first (POST state/stop)`,
        );
      }
      const manifest = await this.snapshots.restore(name);
      // The journal's records since the snapshot belong to the replaced index: the next start
      // releases them instead of replaying them.
      this.marker.writeRestored(manifest);
      this.lifecycle.clearFailure();
    });
  }

  // ---------------------------------------------------------------------------------------
  // Search side

  /** A point-in-time searcher of the committed index (starts the collection). */
  async acquireSearcher(): Promise<Searcher> {
    // push.run=false: the collection does not run, its last state is still searched.
    if (!this.role.runs()) return this.frozen.acquireSearcher(this.mode());
    if (this.mode() === 'SLAVE') return this.withReplica((runtime) => runtime.replica.acquireSearcher());
    return this.withRuntime((runtime) => runtime.index.acquireSearcher());
  }

  /**
   * {@link acquireSearcher} without waiting, for a collection that runs (an admin's index or
   * a query processor's replica): what a search finds nearly always. Undefined when only
   * the asynchronous path can tell (stopped, starting, failed, push.run=false). Spares the
   * event loop the promises of the path that may have to start the collection first.
   */
  acquireSearcherNow(): Searcher | undefined {
    if (this.lifecycle.state !== 'RUNNING' || !this.role.runs()) return undefined;
    if (this.mode() === 'SLAVE') return this.replicaRuntime?.replica.acquireSearcher();
    return this.runtime?.index.acquireSearcher();
  }

  /** Waits for merges and commits everything staged (upgrade preparation). */
  async quiesce(): Promise<void> {
    if (this.lifecycle.state !== 'RUNNING' || this.runtime === undefined) return;
    await this.withRuntime(async (runtime) => {
      if (runtime.index.stagedChanges > 0) await this.commits.commit(runtime);
      await runtime.index.waitForMerges();
    });
  }
}
