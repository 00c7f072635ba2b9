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
import { CollectionSnapshots, type SnapshotListing } from './collection-snapshots.js';
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

  constructor(
    name: string,
    private readonly home: SearchHome,
    private readonly log: PushLog,
    private readonly guardWrite: WriteGuard = () => {},
    /** Where the collection's configuration is read (shared with searches: see SettingsCache). */
    private readonly settingsCache: SettingsCache = new SettingsCache(home),
    /** The journal: the file journal in `live/journal/` unless a test gives another. */
    private readonly openJournal: JournalOpener = openFileJournal,
  ) {
    this.name = validateName('collection', name);
    this.snapshots = new CollectionSnapshots(home, this.name);
    this.marker = new ManifestMarker(home, this.name, log);
  }

  get state(): CollectionState {
    return this.currentState;
  }

  /** The state call: never starts the collection. */
  stateView(): CollectionStateView {
    const view: CollectionStateView = { collection: this.name, state: this.currentState };
    if (this.failure !== undefined && this.currentState === 'FAILED') {
      view.reason = this.failure.reason;
      if (this.failure.file !== undefined) view.file = this.failure.file;
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
    await this.serialTransition(async () => {
      if (this.currentState !== 'RUNNING') {
        if (this.currentState === 'FAILED') this.currentState = 'STOPPED';
        return;
      }
      this.currentState = 'STOPPING';
      await this.waitIdle();
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
    });
  }

  private async start(): Promise<void> {
    this.currentState = 'STARTING';
    this.failure = undefined;
    try {
      this.snapshots.removePartial();
      const runtime = await startRuntime({
        collection: this.name,
        home: this.home,
        log: this.log,
        // A start reads the files again: files edited by hand apply at a stop and start.
        settings: this.settingsCache.reload(this.name),
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
      if (this.currentState !== 'RUNNING' || this.runtime === undefined) continue;
      this.inFlight++;
      try {
        return await work(this.runtime);
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
    return this.withRuntime((runtime) => runtime.evidence.updateNow());
  }

  /**
   * Processes the click logs now (otherwise every `push.click-logs.interval-seconds`,
   * hourly by default) and resolves once the re-indexed documents are committed. `now`
   * replaces the clock (tests and simulations).
   */
  async processClickLogs(options: { now?: number } = {}): Promise<ClickProcessing> {
    this.guardWrite();
    return this.withRuntime((runtime) => runtime.evidence.processClickLogs(options));
  }

  // ---------------------------------------------------------------------------------------
  // Snapshots and restore

  async createSnapshot(name: string): Promise<SnapshotListing> {
    this.guardWrite();
    this.home.snapshotFolder(this.name, name); // validates the name before the collection starts
    return this.withRuntime((runtime) => this.snapshots.create(runtime.index, name));
  }

  /** Does not start the collection. */
  listSnapshots(): SnapshotListing[] {
    return this.snapshots.list();
  }

  /** Does not start the collection. */
  deleteSnapshot(name: string): void {
    this.guardWrite();
    this.snapshots.delete(name);
  }

  /** Replaces live/ by a snapshot. Needs STOPPED (the spec's rule); the next request starts on it. */
  async restoreSnapshot(name: string): Promise<void> {
    this.guardWrite();
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
    return this.withRuntime((runtime) => runtime.index.acquireSearcher());
  }

  /** Waits for merges and commits everything staged (upgrade preparation). */
  async quiesce(): Promise<void> {
    if (this.currentState !== 'RUNNING') return;
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
