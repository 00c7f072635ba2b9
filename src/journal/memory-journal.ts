import { SearchError } from '../errors.js';
import type { Journal, JournalStats } from './journal.js';

interface PendingAppend {
  payload: Uint8Array;
  resolve: (seq: number) => void;
  reject: (error: unknown) => void;
}

/**
 * What outlives a {@link MemoryJournal}, as a journal folder outlives a process: the durable
 * records and the next sequence number. Tests reopen journals on the same store, and hold or
 * fail its flushes to put a collection in a chosen state (an append accepted but not yet
 * durable, a flush that fails) without timing: every step happens when the test says so.
 */
export class MemoryJournalStore {
  /** Durable, unreleased records in sequence order. */
  readonly records: { seq: number; payload: Uint8Array }[] = [];
  /** Highest sequence number ever made durable (released ones included); undefined before the first open. */
  lastSeq: number | undefined;
  private held: { release: Promise<void>; open: () => void } | undefined;
  private failNext: Error | undefined;
  private waiters: { count: number; resolve: () => void }[] = [];
  private waitingAppends = 0;

  /** Opens a journal on this store (the collection's `openJournal`; the folder is ignored). */
  readonly open = (_folder: string, options: { firstSeq: number }): Promise<Journal> => {
    this.lastSeq ??= options.firstSeq - 1;
    return Promise.resolve(new MemoryJournal(this));
  };

  /** From now on no flush makes anything durable until {@link releaseFlushes}. */
  holdFlushes(): void {
    if (this.held !== undefined) return;
    let open!: () => void;
    const release = new Promise<void>((resolve) => (open = resolve));
    this.held = { release, open };
  }

  /** Lets the held flushes (and every later one) run. */
  releaseFlushes(): void {
    const held = this.held;
    this.held = undefined;
    held?.open();
  }

  /** The next flush fails with `error`: its appends are rejected and take no sequence number. */
  failNextFlush(error: Error): void {
    this.failNext = error;
  }

  /** Resolves once at least `count` appends wait for a held flush. */
  appendsWaiting(count: number): Promise<void> {
    if (this.waitingAppends >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** @internal The flush gate of {@link MemoryJournal}. */
  async gate(appends: number): Promise<void> {
    const held = this.held;
    if (held === undefined) return;
    this.waitingAppends += appends;
    this.waiters = this.waiters.filter((waiter) => {
      if (this.waitingAppends < waiter.count) return true;
      waiter.resolve();
      return false;
    });
    await held.release;
    this.waitingAppends -= appends;
  }

  /** @internal */
  takeFailure(): Error | undefined {
    const failure = this.failNext;
    this.failNext = undefined;
    return failure;
  }
}

/**
 * A {@link Journal} in memory, for tests of the collection: the same contract as the file
 * journal (contiguous sequence numbers, a rejected append leaves no hole, group commit,
 * replay after a sequence number, release, close that finishes queued appends), with
 * durability meaning "in the {@link MemoryJournalStore}".
 */
export class MemoryJournal implements Journal {
  private queue: PendingAppend[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;
  private readonly counters: JournalStats = { appends: 0, fsyncs: 0, bytes: 0, lastFsyncMs: 0 };

  constructor(private readonly store: MemoryJournalStore) {}

  get lastSeq(): number {
    return this.store.lastSeq ?? 0;
  }

  get stats(): JournalStats {
    return { ...this.counters };
  }

  append(payload: Uint8Array): Promise<number> {
    if (this.closed) {
      return Promise.reject(
        new SearchError('JOURNAL_CLOSED', 'the journal is closed; reopen it before appending'),
      );
    }
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ payload: payload.slice(), resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  async replay(afterSeq: number, onRecord: (seq: number, payload: Uint8Array) => void): Promise<void> {
    const first = this.store.records[0];
    const firstKept = first?.seq ?? this.lastSeq + 1;
    if (afterSeq + 1 < firstKept) {
      throw new SearchError(
        'JOURNAL_RECORDS_RELEASED',
        `records after ${afterSeq} were released; the journal starts at ${firstKept}`,
      );
    }
    for (const record of this.store.records) {
      if (record.seq > afterSeq) onRecord(record.seq, record.payload.slice());
    }
  }

  async releaseThrough(seq: number): Promise<void> {
    const records = this.store.records;
    while (records.length > 0 && records[0]!.seq <= seq) records.shift();
  }

  async close(): Promise<void> {
    this.closed = true;
    // Appends accepted before close are still made durable (or rejected), never dropped.
    await this.flushing;
  }

  private async flushLoop(): Promise<void> {
    // A turn of the event loop first, so that appends arriving together share a flush.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      await this.store.gate(batch.length);
      const failure = this.store.takeFailure();
      if (failure !== undefined) {
        const error = new SearchError(
          'JOURNAL_WRITE_FAILED',
          `the journal could not be written: ${failure.message}`,
          {
            cause: failure,
          },
        );
        for (const pending of batch) pending.reject(error);
        continue;
      }
      const firstSeq = this.lastSeq + 1;
      batch.forEach((pending, i) => this.store.records.push({ seq: firstSeq + i, payload: pending.payload }));
      this.store.lastSeq = firstSeq + batch.length - 1;
      this.counters.fsyncs++;
      this.counters.appends += batch.length;
      this.counters.bytes += batch.reduce((n, pending) => n + pending.payload.byteLength, 0);
      batch.forEach((pending, i) => pending.resolve(firstSeq + i));
    }
    this.flushing = undefined;
  }
}
