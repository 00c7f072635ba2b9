import { CorruptIndexError, SearchError } from '../errors.js';
import { KEY_FIELD, type DocumentInput, type StoredRecord } from './document.js';
import { InlineStager } from './staging/inline-stager.js';
import type { PendingFlush, Stager } from './staging/stager.js';
import { INDEXING_TIMEOUT_MS, WorkerStager } from './staging/worker-stager.js';
import { emptyManifest, MANIFEST_FILE, manifestFiles, readManifest, type Manifest } from './manifest.js';
import { DEFAULT_MERGE_POLICY, type MergePolicyOptions } from './merge/merge-policy.js';
import { MergeScheduler, type MergeEvent } from './merge/merge-scheduler.js';
import { publishMerge } from './merge/publish-merge.js';
import { Schema, type SchemaOptions } from './schema.js';
import { Searcher } from './searcher.js';
import { emptyStats, type IndexStats } from './index-stats.js';
import type { Directory } from './store/directory.js';
import { FsDirectory } from './store/fs-directory.js';
import { describeDirectory } from './store/directory-description.js';
import { verifyCodecFile } from './store/codec-file.js';
import { LiveManifest } from './live-manifest.js';
import { SerialUpdater } from './serial-updater.js';
import {
  CommitPublisher,
  MERGE_CATCH_UP_MS,
  type CommitEvent,
  type CommitOptions,
  type CommitResult,
} from './commit-publisher.js';

export interface IndexOptions {
  /** The index folder (a path, or a Directory for tests). */
  directory: Directory | string;
  schema?: SchemaOptions;
  /** Commits are refused at this many generations (`push.max-generations`). Default 64. */
  maxGenerations?: number;
  /** `push.scheduler.killed-percentage-for-reindex`. Default 50. */
  killedPercentageForReindex?: number;
  /** Merges running at once, each in a worker thread (`push.worker-thread-count`); 0 runs them inline. */
  mergeThreads?: number;
  mergePolicy?: Partial<MergePolicyOptions>;
  /** Merge automatically after commits. Default true. */
  autoMerge?: boolean;
  /** The indexing buffer is written out as a generation (not yet published) beyond this size. Default 64 MiB. */
  ramBufferBytes?: number;
  /**
   * Worker threads that analyse and invert staged documents (0: on the calling thread).
   * Needs a directory that worker threads can rebuild ({@link Directory.describe}); in-memory
   * directories always index inline.
   */
  indexThreads?: number;
  /** `push.create-snapshot-on-merge-failure`: snapshot into `snapshotFolder(name)` when a merge fails. */
  createSnapshotOnMergeFailure?: boolean;
  snapshotFolder?: (name: string) => Directory;
  onEvent?: (event: IndexEvent) => void;
  /**
   * Keep staged documents readable by key until they are committed (`stagedDocument`), as a
   * push API GET needs. Off by default: a bulk load should not hold its documents twice.
   */
  keepStagedDocuments?: boolean;
  /** Test hook: called before each merge runs; throwing makes that merge fail. */
  beforeMerge?: (generations: number[]) => void;
  /**
   * How long a commit at the generation limit waits for running merges to bring the count
   * down before it is refused with GENERATION_LIMIT. Default {@link MERGE_CATCH_UP_MS}.
   */
  mergeCatchUpMs?: number;
  /**
   * How long a commit waits for an indexing thread's answer before it fails with
   * COMMIT_FAILED and the thread is replaced (`push.commit.indexing-timeout-ms`); the staged
   * changes are then lost ({@link SearchIndex.stagedChangesLost}). Default
   * {@link INDEXING_TIMEOUT_MS}.
   */
  indexingTimeoutMs?: number;
}

/** What the index reports: commits, early flushes, merges. */
export type IndexEvent = CommitEvent | MergeEvent;

export interface SnapshotInfo {
  manifest: number;
  files: string[];
  documents: number;
}

/** Staged documents by key (null: a staged delete), for GET before commit. */
type StagedLayer = Map<string, StoredRecord | null>;

/** What {@link SearchIndex.checkSnapshot} found. */
export interface SnapshotCheck {
  /** The manifest the snapshot holds; null when the manifest itself is damaged. */
  manifest: number | null;
  /** Files the manifest lists (itself included). */
  files: number;
  /** Each file missing or damaged (wrong header, bad checksum, truncated), with what is wrong. */
  damaged: { file: string; problem: string }[];
}

/**
 * The index engine's entry point: stages changes in an in-memory buffer, commits them as
 * new immutable generations by publishing manifests, merges generations in the background,
 * hands out point-in-time searchers and takes snapshots.
 *
 * One serial updater owns the manifest (tantivy's segment updater): commits, merge results
 * and snapshots run one at a time on it ({@link SerialUpdater}). Its helpers each own one
 * concern: which merges run ({@link MergeScheduler}, outside the updater, in worker threads,
 * so they never block commits or queries), and the last published manifest with what this
 * process holds for it ({@link LiveManifest}: the current point in time, its open readers,
 * the reference count of every file, where each key's live document is).
 */
export class SearchIndex {
  /** How staged documents are analysed (see {@link useSchema}). */
  get schema(): Schema {
    return this.currentSchema;
  }
  private currentSchema: Schema;
  readonly dir: Directory;
  private readonly options: IndexOptions;
  private readonly policy: MergePolicyOptions;
  /** The last published manifest, its point in time, readers, file references and key locations. */
  private readonly state: LiveManifest;
  private stager: Stager;
  /** Stagers replaced by {@link useSchema}, still ending their threads; close() waits for them. */
  private readonly retiredStagers = new Set<Promise<void>>();
  private readonly newStager: (schema: Schema) => Stager;
  /** Publishes cuts of staged changes as commits. */
  private readonly commits: CommitPublisher;
  /** Staged documents by key, newest layer last; a layer leaves once its commit is published. */
  private stagedLayers: StagedLayer[] = [new Map() as StagedLayer];
  private readonly updater = new SerialUpdater();
  private readonly merges: MergeScheduler;
  private closed = false;
  private readonly counters: IndexStats = emptyStats();

  private constructor(dir: Directory, options: IndexOptions, manifest: Manifest) {
    this.dir = dir;
    this.options = options;
    this.currentSchema = new Schema(options.schema);
    this.policy = {
      ...DEFAULT_MERGE_POLICY,
      ...options.mergePolicy,
      maxGenerations: options.maxGenerations ?? DEFAULT_MERGE_POLICY.maxGenerations,
      killedPercentageForReindex:
        options.killedPercentageForReindex ?? DEFAULT_MERGE_POLICY.killedPercentageForReindex,
    };
    this.state = new LiveManifest(dir, manifest);
    this.merges = this.newMergeScheduler();
    const allocate = () => this.state.allocateGeneration();
    const ramBufferBytes = options.ramBufferBytes ?? 64 * 1024 * 1024;
    this.commits = new CommitPublisher({
      state: this.state,
      updater: this.updater,
      merges: this.merges,
      maxGenerations: this.policy.maxGenerations,
      mergeCatchUpMs: options.mergeCatchUpMs ?? MERGE_CATCH_UP_MS,
      counters: this.counters,
      emit: (event) => this.emit(event),
    });
    const onFull = (flush: PendingFlush) => this.commits.addEarlyCut(flush);
    const threads = options.indexThreads ?? 0;
    // The inline stager analyses with the index's own Schema (its analyzers and their caches); worker threads build theirs from the options.
    const description = threads > 0 ? describeDirectory(dir) : null;
    this.newStager = (schema) =>
      description !== null
        ? new WorkerStager(
            description,
            schema.options,
            threads,
            ramBufferBytes,
            allocate,
            onFull,
            options.indexingTimeoutMs ?? INDEXING_TIMEOUT_MS,
          )
        : new InlineStager(dir, schema, allocate, ramBufferBytes, onFull);
    this.stager = this.newStager(this.currentSchema);
  }

  /**
   * Opens (or creates) the index in a folder: reads the manifest, verifies every file it
   * names, deletes leftovers that no manifest references (a crash mid-commit or mid-merge).
   */
  static async open(options: IndexOptions): Promise<SearchIndex> {
    const dir =
      typeof options.directory === 'string' ? new FsDirectory(options.directory) : options.directory;
    const manifest = readManifest(dir) ?? emptyManifest();
    const index = new SearchIndex(dir, options, manifest);
    await index.state.load();
    await index.state.removeLeftovers();
    return index;
  }

  /**
   * Builds the map of keys to documents (what a commit needs to replace and delete documents;
   * searches never read it) in slices on the event loop, instead of at the first commit or
   * merge that needs it. A collection calls it once it runs, so that opening does not wait.
   */
  buildKeysInBackground(): void {
    this.state.keys.buildInBackground();
  }

  /**
   * Stages a document (added, or replacing the one with the same key at commit). `reindex`:
   * the same document indexed again (RE_INDEX, new ranking evidence), which
   * `TotDocumentsPut` does not count: it counts documents that arrived.
   */
  put(doc: DocumentInput, options: { reindex?: boolean } = {}): void {
    this.ensureOpen();
    this.stager.put(doc);
    if (this.options.keepStagedDocuments === true)
      this.stagedLayers.at(-1)!.set(doc.key, { ...doc.stored, [KEY_FIELD]: doc.key });
    if (options.reindex !== true) this.counters.TotDocumentsPut++;
  }

  /** Stages the removal of a key (no error when absent). */
  delete(key: string): void {
    this.ensureOpen();
    this.stager.delete(key);
    if (this.options.keepStagedDocuments === true) this.stagedLayers.at(-1)!.set(key, null);
    this.counters.TotDocumentsDeleted++;
  }

  /**
   * Resolves when the index can take more documents without piling up unprocessed work
   * (worker threads behind). Producers that can wait (bulk loads, HTTP) should await it.
   */
  ready(): Promise<void> {
    return this.stager.ready();
  }

  /**
   * Analyses the changes staged from now on with another schema: how a collection applies
   * changed analysis options (a RE_INDEX stages every document again after this). Generations
   * already written keep the terms they were written with. Only with nothing staged or
   * waiting to be published (commit first), so that no generation mixes two analyses.
   */
  useSchema(options: SchemaOptions): void {
    this.ensureOpen();
    if (this.stagedChanges > 0) {
      throw new SearchError(
        'WRONG_STATE',
        `${this.stagedChanges} staged changes: commit them before changing the schema`,
      );
    }
    const retired = this.stager;
    this.currentSchema = new Schema(options);
    this.stager = this.newStager(this.currentSchema);
    // The old stager holds nothing: ending its threads can go on in the background.
    const ended: Promise<void> = retired.close().finally(() => this.retiredStagers.delete(ended));
    this.retiredStagers.add(ended);
  }

  /**
   * True when staged changes were lost: an indexing thread did not answer within
   * `indexingTimeoutMs` and was replaced. Commits fail until the owner calls
   * {@link discardStaged} and stages the changes again (from its journal).
   */
  get stagedChangesLost(): boolean {
    return this.stager.changesLost;
  }

  /**
   * Drops every staged change (buffers and cuts not yet published) and starts a new stager:
   * how the owner recovers after {@link stagedChangesLost}, before staging the changes again.
   * A commit whose changes were cut before this fails instead of publishing. Resolves once the
   * work queued on the serial updater before it has ended, so that the last commit is then
   * settled: the owner restages what came after `lastCommit.journalSeq`.
   */
  async discardStaged(): Promise<void> {
    this.ensureOpen();
    this.commits.discard();
    this.stagedLayers = [new Map() as StagedLayer];
    const retired = this.stager;
    this.stager = this.newStager(this.currentSchema);
    const ended: Promise<void> = retired.close().finally(() => this.retiredStagers.delete(ended));
    this.retiredStagers.add(ended);
    await this.updater.idle();
  }

  /** Changes staged and not yet committed. */
  get stagedChanges(): number {
    return this.stager.changes + this.commits.pendingChanges;
  }

  /**
   * The staged (uncommitted) state of a key: its record when a put is staged, null when a
   * delete is staged, undefined when nothing is staged for it (or `keepStagedDocuments` is off).
   */
  stagedDocument(key: string): StoredRecord | null | undefined {
    for (let i = this.stagedLayers.length - 1; i >= 0; i--) {
      const found = this.stagedLayers[i]!.get(key);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Number, journal position and time of the last published manifest. */
  get lastCommit(): {
    manifest: number;
    journalSeq: number;
    time: string | null;
    userData: Record<string, unknown>;
  } {
    return {
      manifest: this.state.manifest.number,
      journalSeq: this.state.manifest.journalSeq,
      time: this.state.manifest.lastCommitTime,
      userData: this.state.manifest.userData,
    };
  }

  /**
   * Makes every change staged before this call searchable: writes the new generation(s),
   * kills replaced and deleted documents in older ones, publishes a manifest. Changes
   * staged while it runs go to the next commit.
   */
  async commit(options: CommitOptions = {}): Promise<CommitResult> {
    this.ensureOpen();
    const cuts = this.stager.cut();
    const layers = this.stagedLayers.slice();
    this.stagedLayers.push(new Map());
    const result = await this.commits.commit(cuts, options);
    this.stagedLayers = this.stagedLayers.filter((layer) => !layers.includes(layer));
    return result;
  }

  /** A point-in-time searcher of the last published manifest. Release it when done. */
  acquireSearcher(): Searcher {
    this.ensureOpen();
    return new Searcher(this.state.acquire(), (released) => this.state.release(released));
  }

  /** Statistics: `Tot*` counters since open, `Cur*` gauges now. */
  stats(): IndexStats {
    let documents = 0;
    let killed = 0;
    let bytes = 0;
    for (const generation of this.state.manifest.generations) {
      documents += generation.docCount - generation.killedCount;
      killed += generation.killedCount;
      bytes += generation.sizeBytes;
    }
    return {
      ...this.counters,
      CurDocuments: documents,
      CurKilled: killed,
      CurGenerations: this.state.manifest.generations.length,
      CurBytesOnDisk: bytes,
      CurMergesRunning: this.merges.runningCount,
      CurStagedChanges: this.stagedChanges,
      CurManifest: this.state.manifest.number,
      LastCommitTime: this.state.manifest.lastCommitTime,
    };
  }

  /** Waits until no merge is running (new ones may start afterwards). */
  async waitForMerges(): Promise<void> {
    await this.merges.waitForMerges();
  }

  /**
   * Merges every generation into one, dropping killed documents (vacuum MERGE). Commits go
   * on meanwhile; their generations are not part of this merge.
   */
  async forceMerge(): Promise<void> {
    this.ensureOpen();
    return this.merges.forceMerge();
  }

  /**
   * Hard-links the files of the last published manifest into `target` (an empty folder):
   * fast, and safe because published files are never changed.
   */
  async snapshot(target: Directory): Promise<SnapshotInfo> {
    this.ensureOpen();
    return this.serial(async () => {
      if (this.state.manifest.number === 0) {
        throw new SearchError(
          'WRONG_STATE',
          'nothing has been committed yet: commit before taking a snapshot',
        );
      }
      const files = manifestFiles(this.state.manifest);
      for (const name of files) this.dir.linkTo(name, target);
      await target.sync(files);
      await target.syncDirectory();
      this.counters.TotSnapshots++;
      let documents = 0;
      for (const g of this.state.manifest.generations) documents += g.docCount - g.killedCount;
      return { manifest: this.state.manifest.number, files, documents };
    });
  }

  /**
   * Checks every file of a snapshot: present, header and checksum (the manifest itself is
   * verified when read). Reports each damaged file, not only the first; one file is read at a
   * time, and the event loop gets a turn between files. `SNAPSHOT_INVALID` when the folder
   * holds no manifest.
   */
  static async checkSnapshot(snapshot: Directory): Promise<SnapshotCheck> {
    let manifest: Manifest | null;
    try {
      manifest = readManifest(snapshot);
    } catch (error) {
      if (!(error instanceof CorruptIndexError)) throw error;
      // Without its manifest nothing else can be listed: the manifest is the damage to report.
      return { manifest: null, files: 1, damaged: [{ file: error.file, problem: error.message }] };
    }
    if (manifest === null) {
      throw new SearchError(
        'SNAPSHOT_INVALID',
        `${snapshot.path} holds no manifest: it is not a snapshot of this index`,
      );
    }
    const files = manifestFiles(manifest);
    const damaged: { file: string; problem: string }[] = [];
    for (const name of files) {
      if (name === MANIFEST_FILE) continue;
      if (!snapshot.fileExists(name)) {
        damaged.push({ file: name, problem: 'missing' });
        continue;
      }
      try {
        verifyCodecFile(snapshot, name);
      } catch (error) {
        damaged.push({ file: name, problem: (error as Error).message });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { manifest: manifest.number, files: files.length, damaged };
  }

  /**
   * Verifies the checksum of every file of a snapshot (`files`: all of its manifest's; the
   * manifest itself was verified when read). Throws `SNAPSHOT_CORRUPT` naming every bad file.
   */
  static verifySnapshot(snapshot: Directory, files: readonly string[]): void {
    const damaged: { file: string; problem: string }[] = [];
    for (const name of files) {
      if (name === MANIFEST_FILE) continue;
      try {
        verifyCodecFile(snapshot, name);
      } catch (error) {
        damaged.push({ file: name, problem: (error as Error).message });
      }
    }
    if (damaged.length > 0) {
      throw new SearchError(
        'SNAPSHOT_CORRUPT',
        `snapshot ${snapshot.path} is damaged: ${damaged.map((d) => d.problem).join('; ')}; nothing was restored ` +
          '(restore from a copy of the snapshot kept elsewhere)',
        { details: { file: damaged[0]!.file, files: damaged.map((d) => d.file) } },
      );
    }
  }

  /**
   * Replaces the index in `live` by a snapshot (the backup procedure: the snapshot's files
   * copied over the live ones). The index must be closed. Leftover live files are removed
   * at the next open.
   */
  static async restore(snapshot: Directory, live: Directory): Promise<void> {
    const snapshotManifest = readManifest(snapshot);
    if (snapshotManifest === null) {
      throw new SearchError(
        'SNAPSHOT_INVALID',
        `${snapshot.path} holds no manifest: it is not a snapshot of this index`,
      );
    }
    const files = manifestFiles(snapshotManifest);
    for (const name of files) {
      if (!snapshot.fileExists(name))
        throw new SearchError('SNAPSHOT_INVALID', `snapshot ${snapshot.path} lacks ${name}`);
    }
    // Every file's checksum before live is touched: a snapshot's files are hard links to live
    // files, so a file damaged in place is damaged in both, and restoring it would leave the
    // collection FAILED with its good index replaced.
    SearchIndex.verifySnapshot(snapshot, files);
    // The manifest goes last: until it is replaced, the live index stays the old one.
    for (const name of files) if (name !== MANIFEST_FILE) live.copyFrom(snapshot, name);
    await live.sync(files.filter((name) => name !== MANIFEST_FILE));
    live.copyFrom(snapshot, MANIFEST_FILE);
    await live.sync([MANIFEST_FILE]);
    await live.syncDirectory();
  }

  /**
   * Stops merges, finishes the updater's queued work, closes files. Staged changes are dropped
   * (the journal has them). Once it resolves, nothing of this instance touches the folder
   * again, so the same folder can be reopened at once: work that would start later (a commit
   * that was waiting for merges, a merge's publish) is refused instead.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.updater.close();
    await this.merges.close();
    // Queued publishes may wait for indexing workers' flushes: the workers stop after them.
    await this.updater.idle();
    await this.stager.close();
    await Promise.allSettled([...this.retiredStagers]);
    this.state.close();
  }

  // ---------------------------------------------------------------------------------------
  // Merges

  /** The scheduler of this index's merges, wired to its manifest, files and statistics. */
  private newMergeScheduler(): MergeScheduler {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const index = this;
    return new MergeScheduler({
      dir: this.dir,
      policy: this.policy,
      mergeThreads: this.options.mergeThreads ?? 1,
      autoMerge: this.options.autoMerge !== false,
      get closed() {
        return index.closed;
      },
      liveGenerations: () => this.state.current.generations,
      allocateGeneration: () => this.state.allocateGeneration(),
      hold: () => this.acquireSearcher(),
      publish: (sources, killedAtStart, meta) =>
        this.updater.run(async () => {
          if (this.closed)
            throw new SearchError('MERGE_ABORTED', 'the index closed before the merge was published');
          await publishMerge(this.state, sources, killedAtStart, meta);
        }),
      deleteGeneration: (generation) => this.state.files.deleteUnreferencedGeneration(generation),
      snapshotOnFailure: () => this.snapshotOnMergeFailure(),
      recordOutcome: (error) => {
        if (error === null) {
          this.counters.LastMergeError = null;
          this.counters.TotMergesDone++;
        } else {
          this.counters.TotMergesFailed++;
          this.counters.LastMergeError = error.message;
        }
      },
      emit: (event) => this.emit(event),
      ...(this.options.beforeMerge !== undefined ? { beforeMerge: this.options.beforeMerge } : {}),
    });
  }

  /** `push.create-snapshot-on-merge-failure`: the snapshot's name, null when none was taken. */
  private async snapshotOnMergeFailure(): Promise<string | null> {
    if (this.options.createSnapshotOnMergeFailure !== true || this.options.snapshotFolder === undefined)
      return null;
    const newest = this.state.manifest.generations.reduce((max, g) => Math.max(max, g.generation), 0);
    const name = `ServiceInternal-merge-failed-${newest}`;
    try {
      const target = this.options.snapshotFolder(name);
      if (!target.fileExists(MANIFEST_FILE)) await this.snapshot(target);
      return name;
    } catch {
      return null;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Helpers

  /** Queues work on the serial updater (refused once the index is closing). */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    return this.updater.run(work);
  }

  private emit(event: IndexEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A listener's failure must not break the index.
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new SearchError('INDEX_CLOSED', 'the index is closed');
  }
}
