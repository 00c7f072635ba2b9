import type { DocumentInput, StoredRecord } from '../index/document.js';
import { encodeChange, type ChangeRecord } from './change-record.js';
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
    for (;;) {
      const next = runtime.appliedSeq + 1;
      const waiting = runtime.waiting.get(next);
      if (waiting === undefined) break;
      waiting();
      runtime.waiting.delete(next);
      runtime.appliedSeq = next;
    }
  }

  /**
   * Stages a change that is already in the journal or the index (replay, RE_INDEX,
   * evidence). A change that cannot be indexed (a filter fails on it) is logged and
   * skipped: the others go on.
   */
  apply(runtime: CollectionRuntime, change: ChangeRecord, origin: ChangeOrigin): void {
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
