import type { StoredRecord } from '../index/document.js';
import type { ChangeRecord } from './change-record.js';
import type { ChangeStager } from './change-stager.js';
import type { CollectionCommits } from './collection-commits.js';
import type { CollectionRuntime } from './collection-runtime.js';
import { mapRedirect } from './document-mapper.js';
import { extractBinary } from './filters/binary/extract-binary.js';
import { formatReceivedTime, RECEIVED_TIME_METADATA } from './received-time.js';

/** A document as a client pushes it (the push API's PUT of a document). */
export interface PushedInput {
  content: Uint8Array;
  contentType: string;
  /** Metadata as the client sent them; the received time is added to a copy. */
  metadata: Record<string, string[]>;
  /** The request's filter chain; empty or absent: collection.cfg's. */
  filters?: string | undefined;
}

/** The journal record of a put. */
type PutChange = Extract<ChangeRecord, { op: 'put' }>;

/**
 * The journal record of a client's put received at `received`: the pushed metadata with
 * `X-Service-Push-Received-Time` added (the client's own value of it is replaced), and an
 * empty filter chain recorded as none, so that collection.cfg's chain applies to it.
 */
export function putChangeOf(key: string, input: PushedInput, received: Date): PutChange {
  const receivedTime = formatReceivedTime(received);
  return {
    op: 'put',
    key,
    content: input.content,
    contentType: input.contentType,
    metadata: { ...input.metadata, [RECEIVED_TIME_METADATA]: [receivedTime] },
    receivedTime,
    filters: input.filters === '' ? undefined : input.filters,
  };
}

/**
 * A client's change (put, delete, redirect) on a running admin, its key already canonical:
 * what the change becomes (its journal record, its index document), made durable and staged
 * by the {@link ChangeStager}, then told to auto-commit ({@link CollectionCommits}). Each
 * resolves once the change is durable; a put its filters refuse is thrown before anything
 * is written.
 */
export class ClientChanges {
  constructor(
    private readonly stager: ChangeStager,
    private readonly commits: CollectionCommits,
  ) {}

  /** Adds or replaces the document `key`. */
  async put(runtime: CollectionRuntime, key: string, input: PushedInput): Promise<void> {
    const change = putChangeOf(key, input, new Date());
    // A PDF or Office document is extracted first, off this thread; the journal keeps the result.
    const extracted = await extractBinary(
      key,
      input,
      change.filters ?? runtime.settings.config.filterClasses,
    );
    if (extracted !== undefined) change.extracted = extracted;
    // Filters run before the journal: a document that cannot be filtered is refused and nothing is stored.
    const doc = this.stager.documentFor(runtime, change);
    await runtime.index.ready();
    await this.stage(runtime, change, doc.stored, () => runtime.index.put(doc));
  }

  /** Removes the document `key` (a key that is not there is no error). */
  async delete(runtime: CollectionRuntime, key: string): Promise<void> {
    await this.stage(runtime, { op: 'delete', key }, null, () => runtime.index.delete(key));
  }

  /** Makes `key` a redirect to `target` (another key). */
  async redirect(runtime: CollectionRuntime, key: string, target: string): Promise<void> {
    const doc = mapRedirect(key, target, formatReceivedTime(new Date()));
    await this.stage(runtime, { op: 'redirect', key, target }, doc.stored, () => runtime.index.put(doc));
  }

  /** Durable in the journal, staged in journal order, then auto-commit. */
  private async stage(
    runtime: CollectionRuntime,
    change: ChangeRecord,
    staged: StoredRecord | null | undefined,
    apply: () => void,
  ): Promise<void> {
    await this.stager.appendAndApply(runtime, change, staged, apply);
    this.commits.afterStaged(runtime);
  }
}
