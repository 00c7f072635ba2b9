import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { CorruptIndexError, SearchError } from '../errors.js';
import { SearchIndex, type IndexEvent } from '../index/search-index.js';
import type { Searcher } from '../index/searcher.js';
import type { StoredRecord } from '../index/document.js';
import { FsDirectory } from '../index/store/fs-directory.js';
import { readManifest } from '../index/manifest.js';
import type { IndexStats } from '../index/index-stats.js';
import { FileJournal } from '../journal/file-journal.js';
import { decodeChange, encodeChange, type ChangeRecord } from './change-record.js';
import type { CollectionSettings } from './collection-settings.js';
import { SettingsCache } from './settings-cache.js';
import { mapDocument, mapRedirect, type PushedDocument } from './document-mapper.js';
import { appendGenerationLog } from './generation-logs.js';
import { extractBinary } from './filters/binary/extract-binary.js';
import { runFilterChain } from './filters/filter-chain.js';
import { canonicalizeKey } from './key.js';
import type { PushLog } from './push-log.js';
import { formatReceivedTime, RECEIVED_TIME_METADATA } from './received-time.js';
import { validateName, type SearchHome } from './search-home.js';
import { STORED } from './stored-fields.js';
import { indexSchemaFor, recordedSchemaOf, sameSchema, SCHEMA_USER_DATA } from './index-schema.js';
import type { SchemaOptions } from '../index/schema.js';
// Evidence (anchor text, clicks) lives with the search side but is kept per collection; see CollectionEvidence.
import {
  CollectionEvidence,
  type ClickProcessing,
  type EvidenceUpdate,
} from '../search/evidence/collection-evidence.js';
import { evidenceOptionsFrom } from '../search/evidence/evidence-options.js';

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

export interface DocumentView {
  key: string;
  pushContent: {
    content: string;
    contentType: string;
    metadata: Record<string, string[]>;
    receivedTime: string;
  };
  committed: boolean;
  redirect?: string;
}

export interface SnapshotListing {
  name: string;
  manifest: number;
  documents: number;
  created: string;
  bytes: number;
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

interface Runtime {
  index: SearchIndex;
  journal: FileJournal;
  settings: CollectionSettings;
  /** Highest journal sequence number applied to the index buffer. */
  appliedSeq: number;
  /** Changes made durable but not yet applied, waiting for their turn (seq order). */
  waiting: Map<number, () => void>;
  autoCommitTimer: NodeJS.Timeout | undefined;
  /** Commits started and not finished (API with wait=false, auto-commit, RE_INDEX, evidence). */
  commitsInFlight: Set<Promise<unknown>>;
  /** Vacuums started with wait=false: stop() lets them end before the collection counts as stopped. */
  vacuumsInFlight: Set<Promise<unknown>>;
  /** Keys changed by clients while a RE_INDEX runs: it must not overwrite them. */
  reindexTouched: Set<string> | undefined;
  /** Anchor-text and click evidence: told which keys commits change, consulted on every put. */
  evidence: CollectionEvidence;
  /**
   * How the index analyses text: what its documents were indexed with (recorded in each
   * manifest), not collection.cfg's `indexer_options` of the moment, which a RE_INDEX applies.
   */
  schema: SchemaOptions;
}

const MARKER = 'last-manifest.json';
/** Prefix of a snapshot folder being built (snapshot names cannot start with a dot). */
const PARTIAL_SNAPSHOT = '.partial-';

/**
 * A push collection at run time: its state machine, journal, index and auto-commit.
 * STOPPED → STARTING → RUNNING → STOPPING → STOPPED; FAILED (with the reason) when it
 * cannot open. Any request but `state` starts it.
 */
export class PushCollection {
  readonly name: string;
  private currentState: CollectionState = 'STOPPED';
  private failure: { reason: string; file?: string } | undefined;
  private runtime: Runtime | undefined;
  private transition: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private vacuumProgress: VacuumProgress | undefined;
  /** Filters of the original noted in push.log as skipped (once each). */
  private readonly skippedFilters = new Set<string>();

  constructor(
    name: string,
    private readonly home: SearchHome,
    private readonly log: PushLog,
    private readonly guardWrite: WriteGuard = () => {},
    /** Where the collection's configuration is read (shared with searches: see SettingsCache). */
    private readonly settingsCache: SettingsCache = new SettingsCache(home),
  ) {
    this.name = validateName('collection', name);
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
    let index: SearchIndex | undefined;
    let journal: FileJournal | undefined;
    try {
      // A start reads the files again: files edited by hand apply at a stop and start.
      const settings = this.settingsCache.reload(this.name);
      const live = this.home.liveFolder(this.name);
      mkdirSync(live, { recursive: true });
      this.removePartialSnapshots();
      index = await SearchIndex.open({
        directory: new FsDirectory(live),
        schema: indexSchemaFor(settings),
        maxGenerations: settings.config.maxGenerations,
        killedPercentageForReindex: settings.config.killedPercentageForReindex,
        mergeThreads: settings.config.workerThreadCount,
        indexThreads: settings.config.workerThreadCount,
        keepStagedDocuments: true,
        createSnapshotOnMergeFailure: settings.config.createSnapshotOnMergeFailure,
        snapshotFolder: (name) => new FsDirectory(this.home.snapshotFolder(this.name, name)),
        onEvent: (event) => this.onIndexEvent(event),
      });
      // The documents were indexed under the recorded analysis: queries and replayed changes
      // must use it too, until a RE_INDEX applies a changed indexer_options.
      const configured = indexSchemaFor(settings);
      const recorded = recordedSchemaOf(index);
      const schema = recorded ?? configured;
      if (!sameSchema(schema, configured)) {
        index.useSchema(schema);
        this.log.warn(
          { collection: this.name, indexed: schema, configured },
          'indexer_options differ from the analysis the index was built with; a RE_INDEX vacuum applies them',
        );
      }
      const journalFolder = this.home.journalFolder(this.name);
      journal = await FileJournal.open(journalFolder, { firstSeq: index.lastCommit.journalSeq + 1 });
      const openedIndex = index;
      // The host's restage and commit run only after the runtime below exists.
      const owner: { runtime?: Runtime } = {};
      // Opened before the replay below, so that replayed documents are mapped with their evidence.
      const evidence = CollectionEvidence.open({
        folder: join(this.home.collectionDataFolder(this.name), 'evidence'),
        clickFolder: this.home.clickLogFolder(this.name),
        collection: this.name,
        log: this.log,
        options: evidenceOptionsFrom(settings.config.extra, (message) =>
          this.log.warn({ collection: this.name }, message),
        ),
        host: {
          acquireSearcher: () => openedIndex.acquireSearcher(),
          stagedDocument: (key) => openedIndex.stagedDocument(key),
          lastManifest: () => openedIndex.lastCommit.manifest,
          guardWrite: () => this.guardWrite(),
          ready: () => openedIndex.ready(),
          restage: (key, record) =>
            this.applyChange(owner.runtime!, changeFromStored(key, record), 'evidence'),
          commit: async () => {
            await this.commitNow(owner.runtime!);
          },
        },
      });
      const runtime: Runtime = {
        index,
        journal,
        settings,
        appliedSeq: index.lastCommit.journalSeq,
        waiting: new Map(),
        autoCommitTimer: undefined,
        commitsInFlight: new Set(),
        vacuumsInFlight: new Set(),
        reindexTouched: undefined,
        evidence,
        schema,
      };
      owner.runtime = runtime;
      if (this.wasRestored(index)) {
        // A snapshot was copied over live/: the journal's changes belong to the replaced index.
        this.log.warn(
          { collection: this.name, manifest: index.lastCommit.manifest },
          'live index restored from a snapshot; staged changes discarded',
        );
        // Snapshots hold no evidence files: recompute anchor text for the restored documents.
        evidence.invalidate('the live index was restored from a snapshot');
        await index.commit({ journalSeq: journal.lastSeq });
        await journal.releaseThrough(journal.lastSeq);
        runtime.appliedSeq = journal.lastSeq;
      } else if (journal.lastSeq < index.lastCommit.journalSeq) {
        throw new SearchError(
          'JOURNAL_BEHIND',
          `the journal in ${journalFolder} ends before the index's last commit`,
        );
      } else {
        await journal.replay(index.lastCommit.journalSeq, (seq, payload) => {
          const change = decodeChange(payload);
          this.applyChange(runtime, change, 'replay');
          evidence.noteChanged(change.key);
          runtime.appliedSeq = seq;
        });
      }
      this.writeMarker(index.lastCommit.manifest);
      this.runtime = runtime;
      this.currentState = 'RUNNING';
      evidence.start();
      if (index.stagedChanges > 0) this.scheduleAutoCommit(runtime);
    } catch (error) {
      await index?.close().catch(() => undefined);
      await journal?.close().catch(() => undefined);
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
  private async withRuntime<T>(work: (runtime: Runtime) => Promise<T> | T): Promise<T> {
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
    runtime: Runtime,
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
    runtime: Runtime,
    change: ChangeRecord,
    origin: 'replay' | 'reindex' | 'evidence',
  ): void {
    try {
      switch (change.op) {
        case 'put':
          runtime.index.put(this.documentFor(runtime, change));
          break;
        case 'delete':
          runtime.index.delete(change.key);
          break;
        case 'redirect':
          runtime.index.put(mapRedirect(change.key, change.target, formatReceivedTime(new Date())));
          break;
      }
    } catch (error) {
      this.log.error(
        { collection: this.name, key: change.key, origin, err: { message: (error as Error).message } },
        `${origin}: change could not be indexed`,
      );
    }
  }

  private documentFor(runtime: Runtime, change: Extract<ChangeRecord, { op: 'put' }>) {
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
      xml === undefined
        ? undefined
        : {
            mappings: [...xml.classes.values()].flatMap((m) =>
              m.paths.map((path) => ({ className: m.className, type: m.type, xpath: path.source })),
            ),
            ...(xml.docUrl[0] !== undefined ? { docUrlXpath: xml.docUrl[0].source } : {}),
          },
      (filter, reason) => this.noteSkippedFilter(filter, reason),
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
    runtime: Runtime,
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
      this.writeMarker(result.manifest);
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

  private afterStaged(runtime: Runtime): void {
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
  private scheduleAutoCommit(runtime: Runtime): void {
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

  private async reindex(runtime: Runtime, progress: VacuumProgress): Promise<void> {
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
  private async switchSchema(runtime: Runtime, schema: SchemaOptions): Promise<void> {
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
    const folder = this.home.snapshotFolder(this.name, name);
    return this.withRuntime(async (runtime) => {
      if (existsSync(folder))
        throw new SearchError(
          'SNAPSHOT_EXISTS',
          `snapshot ${name} already exists; delete it first or use another name`,
        );
      // Built under a name no snapshot can have, then renamed: a crash midway leaves no
      // half snapshot under the real name (start() removes the partial folder).
      const partial = join(this.home.snapshotsFolder(this.name), `${PARTIAL_SNAPSHOT}${name}`);
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      try {
        await runtime.index.snapshot(new FsDirectory(partial));
        if (existsSync(folder))
          throw new SearchError(
            'SNAPSHOT_EXISTS',
            `snapshot ${name} already exists; delete it first or use another name`,
          );
        renameSync(partial, folder);
        await new FsDirectory(this.home.snapshotsFolder(this.name)).syncDirectory();
      } catch (error) {
        rmSync(partial, { recursive: true, force: true });
        throw error;
      }
      return this.describeSnapshot(name)!;
    });
  }

  /** Snapshots whose creation a crash interrupted. */
  private removePartialSnapshots(): void {
    const folder = this.home.snapshotsFolder(this.name);
    if (!existsSync(folder)) return;
    for (const entry of readdirSync(folder)) {
      if (entry.startsWith(PARTIAL_SNAPSHOT)) rmSync(join(folder, entry), { recursive: true, force: true });
    }
  }

  listSnapshots(): SnapshotListing[] {
    const folder = this.home.snapshotsFolder(this.name);
    if (!existsSync(folder)) return [];
    return readdirSync(folder)
      .sort()
      .map((name) => this.describeSnapshot(name))
      .filter((s): s is SnapshotListing => s !== undefined);
  }

  deleteSnapshot(name: string): void {
    this.guardWrite();
    const folder = this.home.snapshotFolder(this.name, name);
    if (!existsSync(folder))
      throw new SearchError('SNAPSHOT_NOT_FOUND', `no snapshot named ${name} in collection ${this.name}`);
    rmSync(folder, { recursive: true, force: true });
  }

  /** Replaces live/ by a snapshot. Needs STOPPED (the spec's rule); the next request starts on it. */
  async restoreSnapshot(name: string): Promise<void> {
    this.guardWrite();
    const folder = this.home.snapshotFolder(this.name, name);
    await this.serialTransition(async () => {
      if (this.currentState !== 'STOPPED' && this.currentState !== 'FAILED') {
        throw new SearchError(
          'WRONG_STATE',
          `collection ${this.name} is ${this.currentState}: stop it first (POST state/stop)`,
        );
      }
      if (!existsSync(folder))
        throw new SearchError('SNAPSHOT_NOT_FOUND', `no snapshot named ${name} in collection ${this.name}`);
      const live = this.home.liveFolder(this.name);
      mkdirSync(live, { recursive: true });
      await SearchIndex.restore(new FsDirectory(folder), new FsDirectory(live));
      this.currentState = 'STOPPED';
    });
  }

  private describeSnapshot(name: string): SnapshotListing | undefined {
    let folder: string;
    try {
      folder = this.home.snapshotFolder(this.name, name);
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

  /** The newest manifest this collection published; a lower one at start means live/ was restored. */
  private writeMarker(manifest: number): void {
    const folder = this.home.journalFolder(this.name);
    try {
      mkdirSync(folder, { recursive: true });
      const temp = join(folder, `${MARKER}.tmp`);
      writeFileSync(temp, JSON.stringify({ manifest }));
      renameSync(temp, join(folder, MARKER));
    } catch (error) {
      // A marker behind the index only means a later restore is not detected from it; the
      // commit it follows is live and must not be reported as failed (e.g. disk full now).
      this.log.warn(
        { collection: this.name, manifest, err: { message: (error as Error).message } },
        'cannot write the last-manifest marker',
      );
    }
  }

  private wasRestored(index: SearchIndex): boolean {
    const file = join(this.home.journalFolder(this.name), MARKER);
    if (!existsSync(file)) return false;
    try {
      const { manifest } = JSON.parse(readFileSync(file, 'utf8')) as { manifest: number };
      return manifest > index.lastCommit.manifest;
    } catch {
      return false;
    }
  }
}

function documentView(key: string, record: StoredRecord, committed: boolean): DocumentView {
  const redirect = record[STORED.redirect];
  const content = record[STORED.content];
  const view: DocumentView = {
    key,
    pushContent: {
      content:
        content instanceof Uint8Array
          ? Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64')
          : '',
      contentType: (record[STORED.contentType] as string | undefined) ?? '',
      metadata: JSON.parse((record[STORED.pushMetadata] as string | undefined) ?? '{}') as Record<
        string,
        string[]
      >,
      receivedTime: (record[STORED.receivedTime] as string | undefined) ?? '',
    },
    committed,
  };
  if (typeof redirect === 'string') {
    view.redirect = redirect;
    view.pushContent.metadata = { [RECEIVED_TIME_METADATA]: [view.pushContent.receivedTime] };
  }
  return view;
}

/** Rebuilds the change a stored document came from (RE_INDEX). */
function changeFromStored(key: string, record: StoredRecord): ChangeRecord {
  const redirect = record[STORED.redirect];
  if (typeof redirect === 'string') return { op: 'redirect', key, target: redirect };
  const content = record[STORED.content];
  return {
    op: 'put',
    key,
    content: content instanceof Uint8Array ? content : new Uint8Array(0),
    contentType: (record[STORED.contentType] as string | undefined) ?? '',
    metadata: JSON.parse((record[STORED.pushMetadata] as string | undefined) ?? '{}') as Record<
      string,
      string[]
    >,
    receivedTime: (record[STORED.receivedTime] as string | undefined) ?? '',
    filters: record[STORED.filters] as string | undefined,
    ...(typeof record[STORED.extracted] === 'string'
      ? { extracted: record[STORED.extracted] as string }
      : {}),
  };
}

/** Waits until every promise of a set (which may grow meanwhile) has settled. */
async function settleAll(work: Set<Promise<unknown>>): Promise<void> {
  while (work.size > 0) await Promise.allSettled([...work]);
}
