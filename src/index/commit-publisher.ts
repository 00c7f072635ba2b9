import { diskFullError, isDiskFull, SearchError } from '../errors.js';
import { KilledBits } from './generation/killed-bits.js';
import type { IndexStats } from './index-stats.js';
import {
  docOfLocation,
  generationOfLocation,
  locationOf,
  type KeyLocations,
  type Location,
} from './key-locations.js';
import type { KilledUpdate, LiveManifest } from './live-manifest.js';
import {
  ManifestMaybePublishedError,
  publishManifest,
  type Manifest,
  type ManifestGeneration,
} from './manifest.js';
import type { MergeScheduler } from './merge/merge-scheduler.js';
import type { SerialUpdater } from './serial-updater.js';
import type { FlushedGeneration } from './staging/flushed-generation.js';
import type { PendingFlush } from './staging/stager.js';

export interface CommitOptions {
  /** Highest journal sequence number whose change is in this commit (recorded in the manifest). */
  journalSeq?: number;
  userData?: Record<string, unknown>;
}

export interface CommitResult {
  manifest: number;
  /** Generations this commit created (usually one; more when the buffer was flushed early). */
  generations: number[];
  changes: number;
}

/** What commits report (the index passes them on as its events). */
export type CommitEvent =
  | { type: 'commit'; manifest: number; generations: number[]; changes: number; durationMs: number }
  | { type: 'flush'; generation: number; documents: number };

/**
 * Default of `IndexOptions.mergeCatchUpMs`: long enough for a merge of small generations
 * on a busy machine, short enough that a merge that does not end (a disk that stops
 * answering) answers the commit with a retryable 503 instead of holding it, and the
 * collection's stop queued behind it, for ever.
 */
export const MERGE_CATCH_UP_MS = 30_000;

/** What a commit asks of the running merges: whether one reads a generation, and when they end. */
export type CommitMerges = Pick<
  MergeScheduler,
  'isMerging' | 'runningCount' | 'failuresSinceSuccess' | 'anyDone' | 'maybeMerge'
>;

/** The parts of the index a commit works with. */
export interface CommitHost {
  readonly state: LiveManifest;
  /** Commits publish on it, one at a time with merge results and snapshots. */
  readonly updater: SerialUpdater;
  readonly merges: CommitMerges;
  /** `push.max-generations`: a commit that would leave more generations is refused. */
  readonly maxGenerations: number;
  /** How long a commit at the generation limit waits for running merges (`IndexOptions.mergeCatchUpMs`). */
  readonly mergeCatchUpMs: number;
  /** The index's statistics: commits and flushes are counted here, the last merge error is read. */
  readonly counters: IndexStats;
  emit(event: CommitEvent): void;
}

/**
 * Turns cuts of staged changes into a published manifest (the commit half of tantivy's segment
 * updater): holds the cuts until a commit takes them, waits for the generations' files,
 * kills the older versions of every changed key, publishes the manifest on the serial
 * updater and installs it. A failed commit leaves the live manifest and the cuts as they were,
 * so the next commit publishes the same changes.
 */
export class CommitPublisher {
  /** Cuts of staged changes, oldest first, waiting for the next commit to publish them. */
  private pending: PendingFlush[] = [];
  /** Counts {@link discard} calls: a commit whose cuts were discarded meanwhile must not publish. */
  private discards = 0;

  constructor(private readonly host: CommitHost) {}

  /** Changes in cuts not yet published. */
  get pendingChanges(): number {
    let changes = 0;
    for (const pending of this.pending) changes += pending.changes;
    return changes;
  }

  /**
   * A cut the stager made because its buffer was full. Written now, on the updater (not at
   * the commit), so that memory stays bounded; the next commit publishes it.
   */
  addEarlyCut(flush: PendingFlush): void {
    this.pending.push(flush);
    void this.host.updater
      .run(async () => {
        const flushed = await flush.result();
        if (flushed.meta !== null)
          this.host.emit({
            type: 'flush',
            generation: flushed.meta.generation,
            documents: flushed.meta.docCount,
          });
      })
      .catch(() => undefined);
  }

  /**
   * Publishes `cuts` (the stager's cut at this commit) and every cut before them. Changes
   * staged while it runs go to the next commit.
   */
  async commit(cuts: PendingFlush[], options: CommitOptions): Promise<CommitResult> {
    this.pending.push(...cuts);
    const discards = this.discards;
    await this.waitWhileMergesCatchUp();
    return this.host.updater.run(() => {
      if (this.discards !== discards) throw this.discardedError();
      return this.publishPending(options, discards);
    });
  }

  /**
   * Drops every cut not yet published (the index's staged changes were lost with an indexing
   * thread; its owner stages them again). A commit that took its cuts before this fails
   * instead of publishing: its journal position would claim changes no longer held here.
   */
  discard(): void {
    this.discards++;
    this.pending = [];
  }

  /** A commit whose cuts were {@link discard}ed before it could publish them. */
  private discardedError(): SearchError {
    this.host.counters.TotCommitFailures++;
    return new SearchError(
      'COMMIT_FAILED',
      'commit failed: its staged changes were dropped meanwhile (an indexing thread was replaced); ' +
        'they are kept in the journal and staged again: the next commit retries them',
    );
  }

  private async publishPending(options: CommitOptions, discards: number): Promise<CommitResult> {
    const { state, counters } = this.host;
    const started = performance.now();
    const pending = this.pending.slice();
    const journalSeq = Math.max(options.journalSeq ?? state.manifest.journalSeq, state.manifest.journalSeq);
    if (pending.length === 0 && journalSeq === state.manifest.journalSeq && options.userData === undefined) {
      return { manifest: state.manifest.number, generations: [], changes: 0 };
    }
    const liveCount = state.manifest.generations.length + pending.length;
    if (liveCount > this.host.maxGenerations) throw this.generationLimitError(liveCount);

    let flushed: FlushedGeneration[];
    try {
      // Every cut is written at once (each worker writes its own): the commit waits for the slowest, not the sum.
      flushed = await Promise.all(pending.map((entry) => entry.result()));
    } catch (error) {
      counters.TotCommitFailures++;
      if (error instanceof SearchError) throw error;
      if (isDiskFull(error)) throw diskFullError('writing a generation', error);
      throw new SearchError('COMMIT_FAILED', `writing a generation failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    counters.TotFlushes += flushed.filter((f) => f.meta !== null).length;
    // Discarded while the flushes ran: `options.journalSeq` claims changes no longer staged here.
    if (this.discards !== discards) throw this.discardedError();
    const { kills, keyUpdates, changes } = killsOf(flushed, state.keys);

    const next: Manifest = {
      ...state.manifest,
      number: state.manifest.number + 1,
      journalSeq,
      lastCommitTime: new Date().toISOString(),
      userData: { ...state.manifest.userData, ...options.userData },
    };
    const written: string[] = [];
    let releaseReaders = () => {};
    const killedUpdates = new Map<number, KilledUpdate>();
    const killGeneration = (
      generation: number,
      maxDoc: number,
      base: KilledBits | null,
      docs: Iterable<number>,
    ) => {
      const bits = (base ?? new KilledBits(maxDoc)).with(docs);
      const file = state.writeKilled(next, generation, bits);
      written.push(file);
      killedUpdates.set(generation, { bits, file });
      return { bits, file };
    };
    try {
      const generations: ManifestGeneration[] = [];
      for (const entry of state.manifest.generations) {
        const docs = kills.get(entry.generation);
        if (docs === undefined) {
          generations.push(entry);
          continue;
        }
        const live = state.liveGeneration(entry.generation)!;
        const { bits, file } = killGeneration(entry.generation, live.maxDoc, live.killed, docs);
        generations.push({ ...entry, killedCount: bits.count, killedFile: file });
      }
      for (const entry of flushed) {
        if (entry.meta === null) continue;
        const generation = entry.meta.generation;
        const docs = [...entry.killed, ...(kills.get(generation) ?? [])];
        let killedCount = 0;
        let killedName: string | null = null;
        if (docs.length > 0) {
          const { bits, file } = killGeneration(generation, entry.meta.docCount, null, docs);
          killedCount = bits.count;
          killedName = file;
        }
        generations.push({
          generation,
          docCount: entry.meta.docCount,
          killedCount,
          killedFile: killedName,
          files: entry.meta.files,
          sizeBytes: entry.meta.sizeBytes,
        });
      }
      // A generation whose every document is killed is dropped, unless a merge reads it.
      next.generations = generations.filter(
        (g) => g.killedCount < g.docCount || this.host.merges.isMerging(g.generation),
      );
      const newFiles = flushed.flatMap((entry) => entry.meta?.files ?? []);
      next.nextGeneration = state.nextGenerationNumber;
      releaseReaders = state.openReaders(
        flushed.flatMap((entry) => (entry.meta === null ? [] : [entry.meta.generation])),
      );
      // One round of fsyncs for the new files and the manifest, then the rename and the folder.
      await publishManifest(state.dir, next, [...newFiles, ...written]);
    } catch (error) {
      releaseReaders();
      if (!(error instanceof ManifestMaybePublishedError))
        for (const file of written) state.files.deleteQuietly(file);
      counters.TotCommitFailures++;
      if (error instanceof SearchError) throw error;
      if (isDiskFull(error)) throw diskFullError('the commit', error);
      throw new SearchError('COMMIT_FAILED', `commit failed: ${(error as Error).message}`, { cause: error });
    }

    this.pending = this.pending.filter((entry) => !pending.includes(entry));
    for (const [key, location] of keyUpdates) {
      if (location === null) state.keys.delete(key);
      else state.keys.set(key, location);
    }
    state.install(next, killedUpdates);
    releaseReaders();
    counters.TotCommits++;
    const created = flushed.flatMap((entry) => (entry.meta === null ? [] : [entry.meta.generation]));
    this.host.emit({
      type: 'commit',
      manifest: next.number,
      generations: created,
      changes,
      durationMs: performance.now() - started,
    });
    this.host.merges.maybeMerge();
    return { manifest: next.number, generations: created, changes };
  }

  private generationLimitError(count: number): SearchError {
    const cause = this.host.counters.LastMergeError;
    return new SearchError(
      'GENERATION_LIMIT',
      `commit refused: the index would have ${count} generations, above the limit of ${this.host.maxGenerations} ` +
        `(push.max-generations)` +
        (cause === null
          ? '; merges have not caught up yet, retry shortly'
          : `; merges are failing: ${cause}. See push.log`),
    );
  }

  /**
   * Before committing at the generation limit, give running merges the chance to finish, for
   * at most `mergeCatchUpMs`: past it `publishPending` refuses the commit (GENERATION_LIMIT,
   * retry) rather than wait on a merge that may never end.
   */
  private async waitWhileMergesCatchUp(): Promise<void> {
    const { state, merges } = this.host;
    const deadline = performance.now() + this.host.mergeCatchUpMs;
    for (;;) {
      const count = state.manifest.generations.length + this.pending.length;
      const left = deadline - performance.now();
      if (
        count <= this.host.maxGenerations ||
        merges.runningCount === 0 ||
        merges.failuresSinceSuccess > 0 ||
        left <= 0
      )
        return;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          merges.anyDone().then(() => this.host.updater.idle()),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, left))),
        ]);
      } finally {
        clearTimeout(timer);
      }
    }
  }
}

/**
 * Which older documents flushed changes kill (docIds by generation), where each changed key
 * lives afterwards (null: deleted), and how many changes they hold. A key changed in two cuts
 * kills its version in the first: cuts are in staging order.
 */
function killsOf(
  flushed: readonly FlushedGeneration[],
  keys: KeyLocations,
): { kills: Map<number, number[]>; keyUpdates: Map<string, Location | null>; changes: number } {
  const kills = new Map<number, number[]>();
  const keyUpdates = new Map<string, Location | null>();
  let changes = 0;
  for (const entry of flushed) {
    changes += entry.changes;
    const generation = entry.meta?.generation;
    entry.changedKeys.forEach((key, i) => {
      const previous = keyUpdates.has(key) ? keyUpdates.get(key)! : keys.get(key);
      if (previous !== undefined && previous !== null) {
        const g = generationOfLocation(previous);
        let list = kills.get(g);
        if (list === undefined) kills.set(g, (list = []));
        list.push(docOfLocation(previous));
      }
      const doc = entry.liveDocs[i]!;
      keyUpdates.set(key, doc < 0 || generation === undefined ? null : locationOf(generation, doc));
    });
  }
  return { kills, keyUpdates, changes };
}
