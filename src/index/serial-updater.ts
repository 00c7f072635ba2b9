import { SearchError } from '../errors.js';

/**
 * Runs work one piece at a time, in the order it was queued (tantivy's segment updater loop):
 * whatever changes the manifest (commits, merge results, snapshots) goes through one updater,
 * so two publishes never interleave. A failed piece does not stop the queue.
 *
 * Once {@link close}d it refuses new work: {@link idle} then resolves after what was queued
 * before, and nothing queued later may touch the folder of a closed index.
 */
export class SerialUpdater {
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  /** Queues `work`; rejects with `INDEX_CLOSED` once closed. */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new SearchError('INDEX_CLOSED', 'the index is closed'));
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves once everything queued so far has run (failures included). */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  /** Refuses new work from now on. */
  close(): void {
    this.closed = true;
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
