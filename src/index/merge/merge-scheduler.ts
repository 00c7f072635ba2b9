import { SearchError } from '../../errors.js';
import type { GenerationMeta } from '../generation/generation-files.js';
import type { KilledBits } from '../generation/killed-bits.js';
import type { LiveGeneration } from '../generation/live-generation.js';
import type { MergeInput } from '../generation/merge-generations.js';
import { ManifestMaybePublishedError } from '../manifest.js';
import type { Directory } from '../store/directory.js';
import { findMerges, type MergePolicyOptions } from './merge-policy.js';
import { runMerge as runMergeInThread } from './run-merge.js';

/** What a merge reports while it runs (the index turns these into its events). */
export type MergeEvent =
  | { type: 'merge-start'; generations: number[]; into: number }
  | { type: 'merge-done'; generations: number[]; into: number; documents: number; durationMs: number }
  | { type: 'merge-failed'; generations: number[]; into: number; error: Error; snapshot: string | null };

/** What the scheduler needs from the index that owns it. */
export interface MergeHost {
  readonly dir: Directory;
  readonly policy: MergePolicyOptions;
  /** Merges running at once, each in a worker thread; 0 runs them inline (one at a time). */
  readonly mergeThreads: number;
  /** False: merges run only when forced. */
  readonly autoMerge: boolean;
  /** The generations of the last published manifest, oldest first. */
  liveGenerations(): readonly LiveGeneration[];
  /** A new generation number for a merge result. */
  allocateGeneration(): number;
  /** Holds the files of the current point in time until released (a merge's inputs). */
  hold(): { release(): void };
  /** Publishes a merge result through the serial updater. */
  publish(
    sources: LiveGeneration[],
    killedAtStart: (KilledBits | null)[],
    meta: GenerationMeta,
  ): Promise<void>;
  /** Deletes a merge result's files that nothing holds (the merge failed). */
  deleteGeneration(generation: number): void;
  /** A merge failed (already counted): snapshot when configured; returns the snapshot's name. */
  snapshotOnFailure(): Promise<string | null>;
  /** Counts a merge done or failed (the index's statistics). */
  recordOutcome(error: Error | null): void;
  /** True once the index is closing: no merge starts, none is published. */
  readonly closed: boolean;
  emit(event: MergeEvent): void;
  /** Test hook: called before each merge runs; throwing makes that merge fail. */
  beforeMerge?: (generations: number[]) => void;
}

/** How one merge is run (tests replace it). */
export type MergeRunner = (
  dir: Directory,
  inputs: MergeInput[],
  into: number,
  useWorker: boolean,
  signal?: AbortSignal,
) => Promise<GenerationMeta>;

/**
 * Chooses and runs merges (tantivy's merge operations, Lucene's ConcurrentMergeScheduler):
 * asks the pure merge policy which generations to merge after each publish, runs at most
 * `mergeThreads` merges at once, never lets a generation be in two merges, backs off
 * (exponentially, per generation) after failures, and hands each result to the index to
 * publish through its serial updater.
 */
export class MergeScheduler {
  private readonly merging = new Set<number>();
  private readonly running = new Set<Promise<void>>();
  private readonly retryAfter = new Map<number, number>();
  private failuresInARow = 0;
  private paused = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private forced: Promise<unknown> = Promise.resolve();
  private readonly closing = new AbortController();

  constructor(
    private readonly host: MergeHost,
    private readonly runMerge: MergeRunner = runMergeInThread,
  ) {}

  /** Merges running now. */
  get runningCount(): number {
    return this.running.size;
  }

  /** Failed merges since the last successful one (a commit at the generation limit stops waiting then). */
  get failuresSinceSuccess(): number {
    return this.failuresInARow;
  }

  /** True while a merge reads the generation (a commit must not drop it). */
  isMerging(generation: number): boolean {
    return this.merging.has(generation);
  }

  /** Resolves when one of the running merges ends (at once when none runs). */
  async anyDone(): Promise<void> {
    if (this.running.size > 0) await Promise.race([...this.running]);
  }

  /** Starts the merges the policy asks for, up to the thread limit (called after each publish). */
  maybeMerge(): void {
    if (this.host.closed || !this.host.autoMerge || this.paused > 0) return;
    const threads = Math.max(1, this.host.mergeThreads);
    const now = Date.now();
    const blocked = new Set(this.merging);
    let nextRetry = Infinity;
    for (const [generation, until] of this.retryAfter) {
      if (until > now) {
        blocked.add(generation);
        nextRetry = Math.min(nextRetry, until);
      } else this.retryAfter.delete(generation);
    }
    const candidates = this.host.liveGenerations().map((g) => ({
      generation: g.generation,
      docCount: g.maxDoc,
      killedCount: g.killedCount,
    }));
    for (const merge of findMerges(candidates, blocked, this.host.policy)) {
      if (this.running.size >= threads) break;
      void this.start(merge);
    }
    if (nextRetry !== Infinity && this.retryTimer === undefined) {
      this.retryTimer = setTimeout(
        () => {
          this.retryTimer = undefined;
          this.maybeMerge();
        },
        nextRetry - now + 10,
      );
      this.retryTimer.unref();
    }
  }

  /** Waits until no merge is running (new ones may start afterwards). */
  async waitForMerges(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /**
   * Merges every live generation into one, dropping killed documents (vacuum MERGE). One
   * forced merge at a time: two would both see no merge running and take the same inputs.
   */
  forceMerge(): Promise<void> {
    const run = this.forced.then(() => this.forceMergeNow());
    this.forced = run.catch(() => undefined);
    return run;
  }

  /** Stops scheduling, aborts running merges and waits for them to end. */
  async close(): Promise<void> {
    this.closing.abort();
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    await Promise.allSettled([...this.running]);
  }

  private async forceMergeNow(): Promise<void> {
    this.paused++;
    try {
      await this.waitForMerges();
      const generations = this.host.liveGenerations();
      if (generations.length > 1 || (generations.length === 1 && generations[0]!.killedCount > 0)) {
        const failure = await this.start(generations.map((g) => g.generation));
        if (failure !== undefined) throw failure;
      }
    } finally {
      this.paused--;
      this.maybeMerge();
    }
  }

  /** Runs one merge to completion; resolves with the error when it failed (already reported). */
  private start(generations: number[]): Promise<Error | undefined> {
    const host = this.host;
    if (host.closed) return Promise.resolve(new SearchError('INDEX_CLOSED', 'the index is closed'));
    // A generation in two merges at once would have its documents twice in the index.
    const busy = generations.filter((g) => this.merging.has(g));
    if (busy.length > 0)
      return Promise.resolve(
        new SearchError('MERGE_BUSY', `generations ${busy.join(', ')} are being merged already`),
      );
    const into = host.allocateGeneration();
    const live = host.liveGenerations();
    const sources = generations.map((g) => live.find((l) => l.generation === g)!);
    const inputs: MergeInput[] = sources.map((g) => ({
      generation: g.generation,
      killedFile: g.killedFileName,
    }));
    const killedAtStart = sources.map((g) => g.killed);
    // Hold the files of the inputs until the merge is over, whatever commits do meanwhile.
    const holder = host.hold();
    for (const g of generations) this.merging.add(g);
    const started = performance.now();
    host.emit({ type: 'merge-start', generations, into });
    let outcome: Error | undefined;
    const run = (async () => {
      try {
        host.beforeMerge?.(generations);
        const meta = await this.runMerge(host.dir, inputs, into, host.mergeThreads > 0, this.closing.signal);
        await host.publish(sources, killedAtStart, meta);
        this.failuresInARow = 0;
        host.recordOutcome(null);
        host.emit({
          type: 'merge-done',
          generations,
          into,
          documents: meta.docCount,
          durationMs: performance.now() - started,
        });
      } catch (error) {
        outcome = error as Error;
        if (!(error instanceof ManifestMaybePublishedError)) host.deleteGeneration(into);
        if (!host.closed) await this.reportFailure(generations, into, outcome);
      } finally {
        for (const g of generations) this.merging.delete(g);
        holder.release();
      }
    })();
    this.running.add(run);
    return run.then(() => {
      this.running.delete(run);
      this.maybeMerge();
      return outcome;
    });
  }

  private async reportFailure(generations: number[], into: number, error: Error): Promise<void> {
    this.host.recordOutcome(error);
    this.failuresInARow++;
    const delay = Math.min(60_000, 1000 * 2 ** Math.min(6, this.failuresInARow - 1));
    for (const g of generations) this.retryAfter.set(g, Date.now() + delay);
    const snapshot = await this.host.snapshotOnFailure();
    this.host.emit({ type: 'merge-failed', generations, into, error, snapshot });
  }
}
