import { Worker } from 'node:worker_threads';
import { diskFullError, isDiskFull, SearchError } from '../../errors.js';
import type { DocumentInput } from '../document.js';
import { endWorker } from '../end-worker.js';
import type { DirectoryDescription } from '../store/directory.js';
import type { SchemaOptions } from '../schema.js';
import { transferablesOf } from '../generation/buffer-source.js';
import type { FlushedGeneration, FlushPart } from './flushed-generation.js';
import type { ToIndexingWorker } from './indexing-worker.js';
import { stagedPut, type StagedOp } from './staged-op.js';
import type { AllocateGeneration, PendingFlush, Stager } from './stager.js';

/**
 * Operations are sent to a worker in batches of this many, or {@link SEND_DELAY_MS} after the
 * first of a smaller batch was queued. Each message wakes the worker (a system call and,
 * on a busy machine, a context switch) and has a fixed cost of its own: few large messages
 * cost the staging thread much less than one per event-loop turn. Nothing waits for a
 * staged change to reach its worker (a commit sends what is queued first).
 */
const BATCH = 256;
const SEND_DELAY_MS = 20;

/** Staging waits (see {@link WorkerStager.ready}) while more operations than this are unprocessed. */
const MAX_IN_FLIGHT = 8192;

/**
 * Default of `IndexOptions.indexingTimeoutMs`: how long a commit (or an early flush) waits
 * for an indexing thread's answer. Long enough for the largest flush (every thread's buffer
 * in one generation) on a slow, busy disk; short enough that a thread which stays alive
 * without answering fails the commit with a retryable error instead of holding it, and the
 * collection's stop queued behind it, for ever.
 */
export const INDEXING_TIMEOUT_MS = 120_000;

/** An indexing worker with nothing to do for this long is stopped, so its memory goes back to the system. */
const IDLE_MS = 3000;

/** Ends a worker after the task it is on (see endWorker: never terminated while it compresses). */
function endIndexingWorker(worker: Worker): Promise<void> {
  return endWorker(worker, () => worker.postMessage({ type: 'exit' } satisfies ToIndexingWorker));
}

interface IndexingThread {
  /** Started on demand, stopped when idle. */
  worker: Worker | undefined;
  /** Cuts not yet flushed (their buffers live in the worker). */
  openCuts: number;
  idleTimer: NodeJS.Timeout | undefined;
  queue: StagedOp[];
  /** Operations sent and not yet processed by the worker. */
  inFlight: number;
  changes: number;
  nextCut: number;
  /** Requests about a cut (flush, export) waiting for the worker's answer, by cut id. */
  waiting: Map<number, Waiter>;
}

/** A request waiting for its worker's answer, and the deadline that gives up on it. */
interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  deadline: NodeJS.Timeout;
}

/** A cut of one thread's buffer. */
interface Cut {
  thread: IndexingThread;
  id: number;
  changes: number;
}

/**
 * Inverts staged documents in worker threads, so that analysis and inversion (most of the
 * cost of indexing) leave the thread that serves HTTP and queries. Keys are routed by hash:
 * all changes of one key go to one worker, in order. A buffer that fills up is written by its
 * worker as a generation of its own; at a commit the workers' buffers become one generation
 * (the others send theirs, inverted, to the one with the most changes). The serial updater
 * publishes them.
 */
export class WorkerStager implements Stager {
  private readonly threads: IndexingThread[];
  private sendTimer: NodeJS.Timeout | undefined;
  private readonly readyWaiters: (() => void)[] = [];
  private failure: Error | undefined;
  private closed = false;
  private lost = false;

  constructor(
    directory: DirectoryDescription,
    schema: SchemaOptions,
    count: number,
    ramBufferBytes: number,
    private readonly allocate: AllocateGeneration,
    private readonly onFull: (flush: PendingFlush) => void,
    /** How long a request (flush, export) waits for its worker's answer: see {@link abandon}. */
    private readonly answerTimeoutMs: number,
  ) {
    this.threads = Array.from({ length: count }, () => ({
      worker: undefined,
      openCuts: 0,
      idleTimer: undefined,
      queue: [],
      inFlight: 0,
      changes: 0,
      nextCut: 0,
      waiting: new Map(),
    }));
    this.setup = { directory, schema, ramBufferBytes: Math.max(1 << 20, Math.floor(ramBufferBytes / count)) };
  }

  private readonly setup: { directory: DirectoryDescription; schema: SchemaOptions; ramBufferBytes: number };

  private workerOf(thread: IndexingThread): Worker {
    if (thread.idleTimer !== undefined) {
      clearTimeout(thread.idleTimer);
      thread.idleTimer = undefined;
    }
    if (thread.worker !== undefined) return thread.worker;
    const worker = new Worker(new URL('./indexing-worker.js', import.meta.url), { workerData: this.setup });
    thread.worker = worker;
    worker.on(
      'message',
      (message: {
        type: string;
        id?: number;
        count?: number;
        result?: FlushedGeneration;
        part?: FlushPart;
        message?: string;
        code?: unknown;
      }) => {
        // A worker given up on (see abandon) may still answer: nothing waits for it any more.
        if (this.abandoned.has(worker)) return;
        if (message.type === 'done') {
          thread.inFlight -= message.count!;
          if (this.inFlight() < MAX_IN_FLIGHT) for (const resolve of this.readyWaiters.splice(0)) resolve();
          this.stopWhenIdle(thread);
          return;
        }
        if (message.type === 'full') {
          this.onFull(this.cutThread(thread));
          return;
        }
        const waiter = thread.waiting.get(message.id!);
        if (waiter === undefined) return;
        thread.waiting.delete(message.id!);
        clearTimeout(waiter.deadline);
        if (message.type === 'flushed') {
          thread.openCuts--;
          waiter.resolve(message.result!);
          this.stopWhenIdle(thread);
        } else if (message.type === 'exported') waiter.resolve(message.part!);
        else {
          // The worker's error crosses the thread boundary as text; its code says whether the disk is full.
          const cause = Object.assign(new Error(message.message), { code: message.code });
          waiter.reject(
            isDiskFull(cause)
              ? diskFullError('writing a generation', cause)
              : new SearchError('COMMIT_FAILED', `writing a generation failed: ${message.message}`, {
                  cause,
                }),
          );
        }
      },
    );
    worker.on('error', (error) => {
      if (!this.abandoned.has(worker)) this.fail(error);
    });
    worker.on('exit', (code) => {
      if (thread.worker === worker) thread.worker = undefined;
      if (code !== 0 && !this.stopping.has(worker))
        this.fail(new Error(`indexing worker exited with code ${code}`));
    });
    return worker;
  }

  private readonly stopping = new WeakSet<Worker>();
  /** Workers that did not answer in time: ended, their answers and errors ignored. */
  private readonly abandoned = new WeakSet<Worker>();
  /** The ends of abandoned workers, which close() waits for (see abandon). */
  private readonly abandonedEnds: Promise<void>[] = [];

  /** Stops a worker that holds nothing (no staged changes, no unflushed cut) after a quiet while. */
  private stopWhenIdle(thread: IndexingThread): void {
    const idle = () =>
      thread.queue.length === 0 &&
      thread.inFlight === 0 &&
      thread.changes === 0 &&
      thread.openCuts === 0 &&
      thread.waiting.size === 0;
    if (thread.worker === undefined || !idle() || thread.idleTimer !== undefined) return;
    thread.idleTimer = setTimeout(() => {
      thread.idleTimer = undefined;
      const worker = thread.worker;
      if (worker === undefined || !idle()) return;
      thread.worker = undefined;
      this.stopping.add(worker);
      void endIndexingWorker(worker);
    }, IDLE_MS);
    thread.idleTimer.unref();
  }

  /**
   * True once a worker that did not answer in time was given up on ({@link abandon}): the
   * changes staged here are gone (the stager refuses everything from then on), and the
   * owner must stage them again on a new stager.
   */
  get changesLost(): boolean {
    return this.lost;
  }

  get changes(): number {
    let changes = 0;
    for (const thread of this.threads) changes += thread.changes;
    return changes;
  }

  put(doc: DocumentInput): void {
    this.enqueue(this.route(doc.key), stagedPut(doc));
  }

  delete(key: string): void {
    this.enqueue(this.route(key), { d: key });
  }

  /** Resolves once the workers have caught up enough (backpressure for fast producers). */
  ready(): Promise<void> {
    if (this.inFlight() < MAX_IN_FLIGHT || this.failure !== undefined) return Promise.resolve();
    // Waiting: whatever is queued must reach the workers, whose answers end the wait.
    this.sendAll();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  private inFlight(): number {
    let count = 0;
    for (const thread of this.threads) count += thread.inFlight + thread.queue.length;
    return count;
  }

  /**
   * One pending flush for all threads: their buffers become one generation (fewer, larger
   * generations: fewer files, fewer merges), written by the thread with the most changes
   * from its own buffer and the others' exported parts.
   */
  cut(): PendingFlush[] {
    const cuts = this.threads.filter((thread) => thread.changes > 0).map((thread) => this.cutOf(thread));
    return cuts.length === 0 ? [] : [this.pendingFlush(cuts)];
  }

  async close(): Promise<void> {
    this.failure ??= new SearchError('INDEX_CLOSED', 'the index is closed');
    // Operations still queued (waiting for the send timer) are dropped with the staged
    // changes: no worker may start after close.
    this.closed = true;
    if (this.sendTimer !== undefined) clearTimeout(this.sendTimer);
    // Producers waiting for room would otherwise wait for answers that will not come.
    for (const resolve of this.readyWaiters.splice(0)) resolve();
    await Promise.all(
      this.threads.map(async (thread) => {
        if (thread.idleTimer !== undefined) clearTimeout(thread.idleTimer);
        const worker = thread.worker;
        thread.worker = undefined;
        if (worker !== undefined) {
          this.stopping.add(worker);
          await endIndexingWorker(worker);
        }
        // A flush nobody awaited before close will never be answered: its waiter must not hang.
        this.rejectWaiters(thread, this.failure!);
      }),
    );
    // Asked to end when abandoned: by now past most of their grace period, or gone.
    await Promise.all(this.abandonedEnds);
  }

  private cutThread(thread: IndexingThread): PendingFlush {
    return this.pendingFlush([this.cutOf(thread)]);
  }

  /** Ends the thread's current buffer (a new one starts for the changes that follow). */
  private cutOf(thread: IndexingThread): Cut {
    this.check();
    this.send(thread);
    const id = ++thread.nextCut;
    this.post(thread, { type: 'cut', id });
    thread.openCuts++;
    const changes = thread.changes;
    thread.changes = 0;
    return { thread, id, changes };
  }

  private pendingFlush(cuts: Cut[]): PendingFlush {
    // The cut with the most changes is written where it is; the others are sent to it.
    const [primary, ...others] = [...cuts].sort((a, b) => b.changes - a.changes);
    let generation: number | undefined;
    let done: Promise<FlushedGeneration> | undefined;
    const write = async (into: number): Promise<FlushedGeneration> => {
      if (others.length > 0) this.post(primary!.thread, { type: 'prepare', id: primary!.id });
      const parts = await Promise.all(
        others.map((cut) => this.request<FlushPart>(cut, { type: 'export', id: cut.id })),
      );
      const transfer = parts.flatMap((part) => [
        ...transferablesOf(part.inverted),
        part.liveDocs.buffer as ArrayBuffer,
        part.killed.buffer as ArrayBuffer,
      ]);
      const result = await this.request<FlushedGeneration>(
        primary!,
        { type: 'flush', id: primary!.id, generation: into, parts },
        transfer,
      );
      for (const cut of others) {
        cut.thread.openCuts--;
        if (cut.thread.worker !== undefined)
          cut.thread.worker.postMessage({ type: 'release', id: cut.id } satisfies ToIndexingWorker);
        this.stopWhenIdle(cut.thread);
      }
      return result;
    };
    return {
      changes: cuts.reduce((sum, cut) => sum + cut.changes, 0),
      result: () => {
        if (done !== undefined) return done;
        generation ??= this.allocate();
        const attempt = write(generation);
        done = attempt;
        attempt.catch(() => {
          if (done === attempt) done = undefined;
        });
        return attempt;
      },
    };
  }

  /**
   * Sends a request about a cut to its worker; resolves with the answer. A worker that has
   * not answered within `answerTimeoutMs` is given up on ({@link abandon}).
   */
  private request<T>(cut: Cut, message: ToIndexingWorker, transfer: ArrayBuffer[] = []): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.check();
      let worker: Worker;
      try {
        worker = this.workerOf(cut.thread);
        worker.postMessage(message, transfer);
      } catch (error) {
        // Never sent, never answered: no waiter is left behind to keep the thread from stopping.
        reject(error as Error);
        return;
      }
      const deadline = setTimeout(() => this.abandon(cut.thread, worker, message.type), this.answerTimeoutMs);
      cut.thread.waiting.set(cut.id, { resolve: resolve as (value: unknown) => void, reject, deadline });
    });
  }

  /**
   * Gives up on a worker that did not answer a request in time: alive but silent (a write
   * to a disk that stopped answering, a loop). Without this, the commit waiting for it, and
   * every commit, merge result and stop queued behind it on the serial updater, would wait
   * for ever. The worker is asked to end and terminated after a grace period (see
   * endIndexingWorker: a slow worker that does answer later ends between two tasks, never
   * inside a compression call). Only {@link close} waits for that end: a worker still writing
   * after its index closed could collide with a reopened index that hands out the same
   * generation number (and its cleanup would delete that index's files). What it held (its buffer and its
   * cuts) is gone with it, so the staged changes of this stager are incomplete: every
   * waiting request fails, the stager refuses everything from now on, and
   * {@link changesLost} tells the owner to stage the changes again on a new stager (the
   * collection does, from its journal).
   */
  private abandon(thread: IndexingThread, worker: Worker, request: string): void {
    this.lost = true;
    this.failure ??= new SearchError(
      'COMMIT_FAILED',
      `the indexing thread did not answer a ${request} request within ${this.answerTimeoutMs} ms ` +
        '(push.commit.indexing-timeout-ms); it was replaced. The staged changes are kept in the ' +
        'journal and are staged again: the next commit retries them',
    );
    this.abandoned.add(worker);
    this.stopping.add(worker);
    if (thread.worker === worker) thread.worker = undefined;
    this.abandonedEnds.push(endIndexingWorker(worker));
    for (const each of this.threads) this.rejectWaiters(each, this.failure);
    for (const resolve of this.readyWaiters.splice(0)) resolve();
  }

  private rejectWaiters(thread: IndexingThread, error: Error): void {
    for (const waiter of thread.waiting.values()) {
      clearTimeout(waiter.deadline);
      waiter.reject(error);
    }
    thread.waiting.clear();
  }

  private enqueue(thread: IndexingThread, op: StagedOp): void {
    this.check();
    thread.queue.push(op);
    thread.changes++;
    if (thread.queue.length >= BATCH) this.send(thread);
    else this.sendTimer ??= setTimeout(this.sendAll, SEND_DELAY_MS);
  }

  private readonly sendAll = (): void => {
    if (this.sendTimer !== undefined) {
      clearTimeout(this.sendTimer);
      this.sendTimer = undefined;
    }
    for (const thread of this.threads) this.send(thread);
  };

  private send(thread: IndexingThread): void {
    if (thread.queue.length === 0 || this.closed) return;
    const ops = thread.queue;
    thread.queue = [];
    thread.inFlight += ops.length;
    this.post(thread, { type: 'ops', ops });
  }

  private post(thread: IndexingThread, message: ToIndexingWorker): void {
    this.workerOf(thread).postMessage(message);
  }

  private route(key: string): IndexingThread {
    let hash = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
    return this.threads[(hash >>> 0) % this.threads.length]!;
  }

  private fail(error: Error): void {
    this.failure ??= new SearchError('INDEX_WORKER_FAILED', `an indexing worker failed: ${error.message}`, {
      cause: error,
    });
    for (const thread of this.threads) this.rejectWaiters(thread, this.failure);
    for (const resolve of this.readyWaiters.splice(0)) resolve();
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
