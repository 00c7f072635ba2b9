import type { SearchError } from '../errors.js';
import type { CommitResult } from '../index/commit-publisher.js';
import type { CollectionRuntime } from './collection-runtime.js';
import type { GenerationLogWriter } from './generation-logs.js';
import { recordedSchemaOf, sameSchema, SCHEMA_USER_DATA } from './index-schema.js';
import type { ManifestMarker } from './manifest-marker.js';
import type { PushLog } from './push-log.js';

/** What a commit answers: the newest generation it wrote (null: nothing was staged), the manifest, the changes. */
export interface CommitAnswer {
  generation: number | null;
  manifest: number;
  changes: number;
}

/** What {@link CollectionCommits} needs from its collection. */
export interface CommitsOptions {
  collection: string;
  log: PushLog;
  marker: ManifestMarker;
  generationLogs: GenerationLogWriter;
  /** False once the runtime is stopping: its auto-commit then starts no new commit. */
  isCurrent: (runtime: CollectionRuntime) => boolean;
  /** Stages the changes again from the journal after the index lost them (ChangeStager.restage). */
  restage: (runtime: CollectionRuntime) => Promise<void>;
}

/**
 * A running collection's commits: what one does around the index's commit (the evidence
 * batch, the analysis recorded with the first documents, the journal released up to what
 * the commit holds, the manifest marker, commit.log), and auto-commit, by count
 * (`autoCommitMaxChanges`) and by time (`autoCommitTimeoutSeconds` from the first change
 * staged after a commit).
 */
export class CollectionCommits {
  constructor(private readonly options: CommitsOptions) {}

  /**
   * Commits what is staged on `runtime`; resolves once the new generation is live. A
   * failure is logged and thrown. Every commit is in `runtime.commitsInFlight` while it runs.
   * @param requestId the HTTP request that asked for it (for push.log); none for automatic commits.
   */
  async commit(runtime: CollectionRuntime, requestId?: string): Promise<CommitAnswer> {
    if (runtime.autoCommitTimer !== undefined) {
      clearTimeout(runtime.autoCommitTimer);
      runtime.autoCommitTimer = undefined;
    }
    const started = performance.now();
    const evidenceBatch = runtime.evidence.beforeCommit();
    const run = this.commitIndex(runtime);
    runtime.commitsInFlight.add(run);
    try {
      const result = await run;
      runtime.evidence.afterCommit(evidenceBatch, true);
      await runtime.journal.releaseThrough(runtime.index.lastCommit.journalSeq);
      this.options.marker.write(result.manifest);
      for (const generation of result.generations) {
        this.options.generationLogs.write(generation, 'commit.log', {
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
      // An indexing thread that did not answer was replaced, and the staged changes with it:
      // staged again from the journal, the next commit publishes them.
      if (runtime.index.stagedChangesLost && this.options.isCurrent(runtime)) {
        this.options.restage(runtime).then(
          () => {
            if (runtime.index.stagedChanges > 0 && this.options.isCurrent(runtime))
              this.scheduleAutoCommit(runtime);
          },
          () => undefined,
        );
      }
      const e = error as SearchError;
      this.options.log.error(
        {
          collection: this.options.collection,
          ...(requestId === undefined ? { origin: 'automatic' } : { requestId }),
          err: { message: e.message, code: e.code },
        },
        'commit failed',
      );
      throw error;
    } finally {
      runtime.commitsInFlight.delete(run);
      if (runtime.index.stagedChanges > 0 && this.options.isCurrent(runtime))
        this.scheduleAutoCommit(runtime);
    }
  }

  /**
   * The index's commit of everything applied so far. While the staged changes are staged
   * again (see ChangeStager.restage) it waits: its journal position must only claim changes
   * the index holds. The position and the index's cut are taken together, with nothing
   * applied in between.
   */
  private async commitIndex(runtime: CollectionRuntime): Promise<CommitResult> {
    while (runtime.restaging !== undefined) await runtime.restaging;
    // Recorded with the first commit that writes documents under it (an empty commit stays a no-op).
    const unrecorded =
      runtime.index.stagedChanges > 0 && !sameSchema(recordedSchemaOf(runtime.index), runtime.schema);
    return runtime.index.commit({
      journalSeq: runtime.appliedSeq,
      ...(unrecorded ? { userData: { [SCHEMA_USER_DATA]: runtime.schema } } : {}),
    });
  }

  /**
   * After a client's change was staged: commits at once when `autoCommitMaxChanges` are
   * staged and no commit runs, otherwise makes sure the auto-commit timer runs.
   */
  afterStaged(runtime: CollectionRuntime): void {
    const { autoCommitMaxChanges } = runtime.settings.config;
    if (
      autoCommitMaxChanges > 0 &&
      runtime.index.stagedChanges >= autoCommitMaxChanges &&
      runtime.commitsInFlight.size === 0
    ) {
      this.commit(runtime).catch(() => undefined);
      return;
    }
    this.scheduleAutoCommit(runtime);
  }

  /** Starts the auto-commit timer unless it runs (or is off): it runs from the first staged change after a commit. */
  scheduleAutoCommit(runtime: CollectionRuntime): void {
    const seconds = runtime.settings.config.autoCommitTimeoutSeconds;
    if (seconds <= 0 || runtime.autoCommitTimer !== undefined) return;
    runtime.autoCommitTimer = setTimeout(() => {
      runtime.autoCommitTimer = undefined;
      if (!this.options.isCurrent(runtime) || runtime.index.stagedChanges === 0) return;
      this.commit(runtime).catch(() => undefined);
    }, seconds * 1000);
    runtime.autoCommitTimer.unref();
  }
}
