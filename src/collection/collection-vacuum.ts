import { SearchError } from '../errors.js';
import type { SchemaOptions } from '../index/schema.js';
import type { ChangeStager } from './change-stager.js';
import type { CollectionCommits } from './collection-commits.js';
import type { CollectionRuntime } from './collection-runtime.js';
import type { CollectionSettings } from './collection-settings.js';
import { indexSchemaFor, sameSchema } from './index-schema.js';
import type { PushLog } from './push-log.js';
import { changeFromStored } from './stored-document.js';

export type VacuumType = 'MERGE' | 'RE_INDEX';

/** The state call's `vacuum`: the last vacuum of this collection object, running or ended. */
export interface VacuumProgress {
  type: VacuumType;
  state: 'RUNNING' | 'DONE' | 'FAILED';
  done: number;
  total: number;
  startedAt: string;
  finishedAt?: string;
  error?: string;
}

/** What {@link CollectionVacuum} needs from its collection. */
export interface VacuumOptions {
  collection: string;
  log: PushLog;
  /** Reads collection.cfg again (a RE_INDEX applies today's configuration). */
  reloadSettings: () => CollectionSettings;
  stager: ChangeStager;
  commits: CollectionCommits;
  /** False once the runtime is stopping: a RE_INDEX then ends with WRONG_STATE. */
  isCurrent: (runtime: CollectionRuntime) => boolean;
}

/** Documents a RE_INDEX stages between two turns of the event loop. */
const REINDEX_BATCH = 200;

/**
 * A collection's vacuums, one at a time: MERGE (every generation into one, by the index's
 * forced merge) and RE_INDEX (every stored document indexed again under today's
 * configuration, switching the analysis when `indexer_options` changed), with the progress
 * the state call shows.
 */
export class CollectionVacuum {
  private last: VacuumProgress | undefined;

  constructor(private readonly options: VacuumOptions) {}

  /** A copy of the last vacuum's progress; undefined before the first. */
  get progress(): VacuumProgress | undefined {
    return this.last === undefined ? undefined : { ...this.last };
  }

  /**
   * Runs a vacuum on `runtime`. With `wait` it resolves (or rejects) when the vacuum ends;
   * without, it answers the RUNNING progress at once and the vacuum goes on in
   * `runtime.vacuumsInFlight` (a failure then goes to push.log only). WRONG_STATE while
   * another vacuum runs.
   */
  async run(
    runtime: CollectionRuntime,
    type: VacuumType,
    wait: boolean,
    requestId?: string,
  ): Promise<VacuumProgress> {
    if (this.last?.state === 'RUNNING') {
      throw new SearchError('WRONG_STATE', `a ${this.last.type} vacuum is already running`);
    }
    const progress: VacuumProgress = {
      type,
      state: 'RUNNING',
      done: 0,
      total: 0,
      startedAt: new Date().toISOString(),
    };
    this.last = progress;
    const run = (type === 'MERGE' ? runtime.index.forceMerge() : this.reindex(runtime, progress)).then(
      () => {
        progress.state = 'DONE';
        progress.finishedAt = new Date().toISOString();
      },
      (error: Error) => {
        progress.state = 'FAILED';
        progress.error = error.message;
        progress.finishedAt = new Date().toISOString();
        this.options.log.error(
          {
            collection: this.options.collection,
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
  }

  private async reindex(runtime: CollectionRuntime, progress: VacuumProgress): Promise<void> {
    // Reload the configuration: re-indexing exists to apply changed mappings.
    runtime.settings = this.options.reloadSettings();
    const wanted = indexSchemaFor(runtime.settings);
    if (!sameSchema(wanted, runtime.schema)) await this.switchSchema(runtime, wanted);
    // Staged changes dropped meanwhile (an indexing thread replaced) take re-indexed documents with them.
    const restages = runtime.restages;
    const searcher = runtime.index.acquireSearcher();
    const touched = new Set<string>();
    runtime.reindexTouched = touched;
    try {
      progress.total = searcher.documentCount;
      let sinceYield = 0;
      for (const { key, record } of searcher.liveDocuments()) {
        this.requireCurrent(runtime);
        this.requireNoRestage(runtime, restages);
        // A key changed by a client since (or staged before and not yet committed) keeps that change.
        if (!touched.has(key) && runtime.index.stagedDocument(key) === undefined) {
          this.options.stager.apply(runtime, changeFromStored(key, record), 'reindex');
        }
        progress.done++;
        if (++sinceYield === REINDEX_BATCH) {
          sinceYield = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    } finally {
      runtime.reindexTouched = undefined;
      searcher.release();
    }
    this.requireCurrent(runtime);
    this.requireNoRestage(runtime, restages);
    await this.options.commits.commit(runtime);
    // The filters may now find other links: recompute anchor text from every document.
    runtime.evidence.invalidate('RE_INDEX');
  }

  /**
   * Stages from now on under `schema` (changed indexer_options): what is staged is committed
   * first under the old one, so that no generation mixes two analyses. Queries keep the old
   * analysis until a commit publishes documents indexed the new way (see
   * PushCollection.indexSchema): the RE_INDEX's own at its end, unless an automatic commit
   * falls in between.
   */
  private async switchSchema(runtime: CollectionRuntime, schema: SchemaOptions): Promise<void> {
    for (;;) {
      await this.options.commits.commit(runtime);
      this.requireCurrent(runtime);
      // A client's PUT may have been staged while the commit ran: commit again.
      if (runtime.index.stagedChanges === 0) break;
    }
    runtime.index.useSchema(schema);
    runtime.schema = schema;
  }

  /** Staged changes dropped since `restages` was read took the documents re-indexed so far with them. */
  private requireNoRestage(runtime: CollectionRuntime, restages: number): void {
    if (runtime.restages !== restages || runtime.index.stagedChangesLost) {
      throw new SearchError(
        'COMMIT_FAILED',
        'RE_INDEX interrupted: an indexing thread did not answer and was replaced, and the documents ' +
          're-indexed so far were dropped with it (pushed changes are kept); run the RE_INDEX again',
      );
    }
  }

  private requireCurrent(runtime: CollectionRuntime): void {
    if (!this.options.isCurrent(runtime))
      throw new SearchError('WRONG_STATE', 'the collection stopped during RE_INDEX');
  }
}
