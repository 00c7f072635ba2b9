import type { DocumentInput, StoredRecord } from '../index/document.js';
import { decodeChange, encodeChange, type ChangeRecord } from './change-record.js';
import type { CollectionRuntime } from './collection-runtime.js';
import { htmlElementsOf } from './config/metamap.js';
import { mapDocument, mapRedirect, type PushedDocument } from './document-mapper.js';
import { runFilterChain } from './filters/filter-chain.js';
import type { PushLog } from './push-log.js';
import { formatReceivedTime } from './received-time.js';

/** Why a change is staged without a client asking: the journal's replay at start, a RE_INDEX, an evidence update. */
export type ChangeOrigin = 'replay' | 'reindex' | 'evidence';

/**
 * Turns changes into index operations on a running collection: a put through the filter
 * chain and the field mapping (with the document's evidence), and a client's change into
 * the journal first, staged in the index buffer only once durable and in journal order, so
 * that the buffer always matches what a replay of the journal would build.
 */
export class ChangeStager {
  /** Filters of the original noted in push.log as skipped (once each). */
  private readonly skippedFilters = new Set<string>();

  constructor(
    private readonly collection: string,
    private readonly log: PushLog,
    /** False once the runtime is stopping: a restage then stops staging. */
    private readonly isCurrent: (runtime: CollectionRuntime) => boolean = () => true,
  ) {}

  /**
   * Appends `change` to the journal and, once it is durable and every earlier append has
   * been staged, runs `apply` (which stages it) and tells the evidence store and a running
   * RE_INDEX about the key. Rejects, staging nothing, when the append fails.
   * @param staged the stored record the change stages (null for a delete; undefined: not
   *   known), which the evidence store takes the document's links from.
   */
  async appendAndApply(
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
    this.drain(runtime);
  }

  /** Applies the waiting changes that are next in journal order (none while a restage runs). */
  private drain(runtime: CollectionRuntime): void {
    for (;;) {
      if (runtime.restaging !== undefined) return;
      if (runtime.index.stagedChangesLost) {
        // Staged now, the change would be refused (and logged as not indexable): it waits for the restage.
        this.restage(runtime).catch(() => undefined);
        return;
      }
      const next = runtime.appliedSeq + 1;
      const waiting = runtime.waiting.get(next);
      if (waiting === undefined) return;
      waiting();
      runtime.waiting.delete(next);
      runtime.appliedSeq = next;
    }
  }

  /**
   * Stages again, from the journal, every change applied since the index's last commit: how
   * a collection recovers when its index lost its staged changes (an indexing thread that did
   * not answer in time was replaced, see SearchIndex.stagedChangesLost). The index drops what
   * is left of them first; meanwhile new changes wait their turn and commits wait for the
   * restage (a commit's journal position must only claim changes the index holds). Once
   * done, the next commit publishes everything. One restage at a time; a stop waits for it
   * (it is among the runtime's commits in flight).
   */
  restage(runtime: CollectionRuntime): Promise<void> {
    if (runtime.restaging !== undefined) return runtime.restaging;
    // A stopping runtime's changes stay in the journal: the next start replays them.
    if (!this.isCurrent(runtime)) return Promise.resolve();
    const run = this.restageNow(runtime);
    runtime.restaging = run;
    runtime.commitsInFlight.add(run);
    run.then(
      () => {
        runtime.restaging = undefined;
        runtime.commitsInFlight.delete(run);
        this.drain(runtime);
      },
      (error: Error) => {
        // `restaging` stays rejected: commits are refused until the next start replays the journal.
        runtime.commitsInFlight.delete(run);
        this.log.error(
          { collection: this.collection, err: { message: error.message } },
          'staging changes again from the journal failed; commits are refused until the collection is started again',
        );
      },
    );
    return run;
  }

  private async restageNow(runtime: CollectionRuntime): Promise<void> {
    runtime.restages++;
    // Nothing is applied from here on until the restage ends: this is where the journal replay stops.
    const through = runtime.appliedSeq;
    await runtime.index.discardStaged();
    const from = runtime.index.lastCommit.journalSeq;
    let staged = 0;
    await runtime.journal.replay(from, (seq, payload) => {
      if (seq > through || !this.isCurrent(runtime)) return;
      this.apply(runtime, decodeChange(payload), 'replay');
      staged++;
    });
    this.log.warn(
      { collection: this.collection, changes: staged, fromSeq: from + 1, throughSeq: through },
      'an indexing thread did not answer and was replaced; the staged changes were staged again from the journal',
    );
    // Documents the evidence store had staged again (anchor text) were dropped with the rest.
    runtime.evidence.invalidate('staged changes were dropped when an indexing thread was replaced');
  }

  /**
   * Stages a change that is already in the journal or the index (replay, RE_INDEX,
   * evidence). A change that cannot be indexed (a filter fails on it) is logged and
   * skipped: the others go on.
   */
  apply(runtime: CollectionRuntime, change: ChangeRecord, origin: ChangeOrigin): void {
    if (runtime.index.stagedChangesLost) {
      // The index refuses changes until they are all staged again (a RE_INDEX that sees the
      // restage fails and is run again; the evidence store recomputes after it).
      this.restage(runtime).catch(() => undefined);
      return;
    }
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
        {
          collection: this.collection,
          key: change.key,
          origin,
          err: { message: (error as Error).message },
        },
        `${origin}: change could not be indexed`,
      );
    }
  }

  /**
   * The index document of a put: the filter chain (collection.cfg's, or the change's own),
   * then the mapping to fields under the runtime's settings, with the evidence the
   * collection holds for the key (a document pushed again keeps its anchor text and
   * clicks). Throws when a filter refuses the content.
   */
  documentFor(runtime: CollectionRuntime, change: Extract<ChangeRecord, { op: 'put' }>): DocumentInput {
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
    return mapDocument(pushed, filtered, settings, runtime.evidence.documentEvidence(change.key));
  }

  /** One push.log note per filter name the collection passes over (see `SKIPPED_REASON`). */
  private noteSkippedFilter(filter: string, reason: string): void {
    if (this.skippedFilters.has(filter)) return;
    this.skippedFilters.add(filter);
    this.log.info({ collection: this.collection, filter }, `filter ${filter} skipped: ${reason}`);
  }
}
