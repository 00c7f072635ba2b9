import { Worker } from 'node:worker_threads';
import type { CollectionSettings } from '../../collection/collection-settings.js';
import { serializeGscopes } from '../../collection/config/gscopes.js';
import { SearchError } from '../../errors.js';
import { onSharedReaderClosed, type SharedGeneration } from '../../index/generation/generation-reader.js';
import type { LiveGeneration } from '../../index/generation/live-generation.js';
import type { Schema } from '../../index/schema.js';
import { THREAD_NAMES } from '../../index/thread-name.js';
import type { Explanation } from '../../query/explain-query.js';
import { nowEpochMs } from '../../query/work-budget.js';
import type { SearchResponse } from '../result-packet.js';
import { geospatialClasses } from '../result-order.js';
import type { SearchParams, SearchView } from '../run-search.js';
import type {
  AnswerForm,
  FromThreadMessage,
  JsonResultMessage,
  SearchTaskMessage,
  SearchThreadData,
  ThreadGeneration,
  ThreadPoint,
  ThreadSchema,
  ThreadSettings,
} from './search-messages.js';
import { takeIdleThread } from './thread-choice.js';

/** Options of a {@link SearchThreadPool}. */
export interface SearchThreadPoolOptions {
  /** Threads (`search.thread-count`); all started at the first query. */
  threads: number;
  /** Queries that may wait while every thread is busy (`search.queue-size`). */
  queueSize: number;
  /** Signs click-tracking URLs (the service's `redirect-secret`). */
  secret: Uint8Array;
  /** Observes the pool (tests, logs). */
  onEvent?: (event: SearchPoolEvent) => void;
}

/** What the pool reports. */
export type SearchPoolEvent =
  | { type: 'dispatched'; taskId: number; thread: number }
  | { type: 'thread-failed'; thread: number; reason: string }
  | { type: 'rejected'; queued: number };

/** A query's view, opened when a thread is ready for it, and how to let go of it. */
export interface OpenedView {
  view: SearchView;
  /** Releases the searchers: called once the thread is done with them (not when the answer leaves). */
  release(): void;
}

/** One query for the pool. */
export interface SearchTask {
  params: SearchParams;
  /**
   * Opens the view at dispatch, so that a query that waited sees the newest manifest: at
   * once when it can (every member runs), else later.
   */
  open(): OpenedView | Promise<OpenedView>;
  /** Epoch milliseconds (see `nowEpochMs`). */
  deadline: number;
  maxPrefixTerms: number;
  /** Explain each result of the page too (the admin UI's query tester); only with `form: 'object'`. */
  explain?: boolean;
  /** How the packet is answered (default `object`). */
  form?: AnswerForm;
  /**
   * Runs the query on the event loop instead: for a view whose files were not opened to be
   * shared (an index in memory, as some tests use).
   */
  runHere(view: SearchView): SearchAnswer;
}

/**
 * Where a query's time went on the server, in milliseconds (the `Server-Timing` of
 * `/s/search.json`): `wait` until a thread took it (queued for one, its view opened),
 * `search` the search itself, `serialize` its packet's JSON, and `hop` the rest of the
 * thread's round trip (the task and the answer passed between the event loop and the
 * thread, each woken to take them). Run on the event loop, `hop` is 0.
 */
export interface SearchTiming {
  wait: number;
  hop: number;
  search: number;
  serialize: number;
}

/**
 * What a query answers: its result packet and, when asked, the explanation of each result
 * (`form: 'object'`), or the packet's JSON bytes (`form: 'json'`); with where its time went.
 */
export type SearchAnswer =
  | {
      response: SearchResponse;
      /** Present when the task asked to `explain`. */
      explanations?: Explanation[];
      timing: SearchTiming;
    }
  | { json: Uint8Array; timing: SearchTiming };

/** Counters and gauges of the pool (`/metrics`). */
export interface SearchPoolStats {
  threads: number;
  busyThreads: number;
  queued: number;
  TotQueries: number;
  /** Refused with 503 because the queue was full. */
  TotRejected: number;
  /** Answered with `timedOut`, or 503 because no thread answered in time. */
  TotTimedOut: number;
  /** Threads that died (their query answered 503). */
  TotThreadFailures: number;
}

/** How long after its deadline a query's answer may come before the event loop gives up on the thread. */
const ANSWER_GRACE_MS = 250;
/** A thread this late past a deadline is stuck (a loop without budget checks): it is replaced. */
const STUCK_AFTER_MS = 30_000;
/** `Retry-After` of a refused query, in seconds. */
const RETRY_AFTER_SECONDS = 1;

/** A task with the pool's bookkeeping (the caller's task is referred to, not copied). */
interface PendingTask {
  readonly task: SearchTask;
  readonly taskId: number;
  /** The task's deadline, moved when the query waited for its thread to start. */
  deadline: number;
  /** When the pool was given it, and when it was posted to its thread (`performance.now()`). */
  readonly runAt: number;
  postedAt: number;
  resolve(answer: SearchAnswer): void;
  reject(error: unknown): void;
  settled: boolean;
  timer: NodeJS.Timeout | undefined;
  /** True while the thread that took it loads its modules. */
  waitingForStart: boolean;
}

interface Running {
  task: PendingTask;
  release: () => void;
  stuckTimer: NodeJS.Timeout | undefined;
}

class SearchThread {
  readonly worker: Worker;
  running: Running | null = null;
  /** Opening the view of the task this thread will run (the thread counts as busy). */
  opening = false;
  readonly knownGenerations = new Set<number>();
  readonly knownSettings = new Set<number>();
  /** Points in time the thread holds, oldest sent first, with their generations' ids. */
  readonly knownPoints = new Map<number, readonly number[]>();
  readonly knownSchemas = new Set<number>();
  ended = false;
  /** Set once the thread loaded its modules and listens (its first query waits for that). */
  isReady = false;
  readonly ready: Promise<void>;
  markReady!: () => void;
  /** Resolves when the thread ended (a task waiting for it to start stops waiting). */
  readonly gone: Promise<void>;
  markGone!: () => void;
  /** Queries given to this thread. */
  dispatched = 0;
  /** When it was last given one (`performance.now()`). */
  lastDispatchedAt = 0;
  /** When it last took one as the most recently used thread (see takeIdleThread). */
  lastRecentAt = 0;

  constructor(
    readonly slot: number,
    data: SearchThreadData,
  ) {
    this.worker = new Worker(new URL('./search-thread.js', import.meta.url), { workerData: data });
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.gone = new Promise((resolve) => (this.markGone = resolve));
  }

  get busy(): boolean {
    return this.running !== null || this.opening;
  }
}

let nextSettingsId = 1;
const settingsIds = new WeakMap<CollectionSettings, number>();
/** Ids of points in time, by the generations of one manifest (one array per point in time). */
let nextPointId = 1;
const pointIds = new WeakMap<readonly LiveGeneration[], number>();
let nextSchemaId = 1;
const schemaIds = new WeakMap<Schema, number>();

/**
 * Points in time a thread keeps ready (its member searchers): the few the queries use now,
 * the newest of each collection. Past this, the one sent longest ago is dropped (unless the
 * task at hand reads it: a meta collection of more members holds more while it runs).
 */
const POINTS_PER_THREAD = 16;
/** Schemas a thread keeps by id (one per analysis in use); past this, all are sent again. */
const SCHEMAS_PER_THREAD = 64;

/**
 * The search threads (issue #19): queries run in worker threads over the index memory the
 * event loop's readers share, so the event loop does HTTP, auth and the journal only and one
 * expensive query never stalls another request.
 *
 * - Each query gets one point in time: its view (searchers of one manifest per member) is
 *   opened when a thread takes it and released when that thread is done with it, so its
 *   files stay on disk however long it runs; a generation a thread read is dropped by the
 *   thread when the event loop's reader closes ({@link onSharedReaderClosed}).
 * - At most `threads` queries run; `queueSize` more wait; one more is refused with 503
 *   `SEARCH_OVERLOADED` and `Retry-After`.
 * - The engine stops a query at its deadline and answers what it found (`timedOut`); should a
 *   thread not answer `ANSWER_GRACE_MS` after the deadline, the query answers 503
 *   `SEARCH_TIMEOUT` (and a thread still busy long after is replaced).
 * - A thread that dies answers its query 503 `SEARCH_THREAD_FAILED` with the reason; a new
 *   thread takes its place at the next query.
 */
export class SearchThreadPool {
  private readonly threads: (SearchThread | null)[];
  private readonly queue: PendingTask[] = [];
  private nextTaskId = 1;
  private closed = false;
  private readonly counters = { TotQueries: 0, TotRejected: 0, TotTimedOut: 0, TotThreadFailures: 0 };
  private readonly stopListening: () => void;

  constructor(private readonly options: SearchThreadPoolOptions) {
    if (!(options.threads >= 1)) throw new RangeError(`a search thread pool needs at least 1 thread`);
    this.threads = Array.from({ length: options.threads }, () => null);
    this.stopListening = onSharedReaderClosed((id) => this.forget(id));
  }

  /** Runs a query on a thread; rejects with `SEARCH_OVERLOADED` when the queue is full. */
  run(task: SearchTask): Promise<SearchAnswer> {
    if (this.closed) return Promise.reject(new SearchError('INDEX_CLOSED', 'the server is stopping'));
    this.counters.TotQueries++;
    return new Promise<SearchAnswer>((resolve, reject) => {
      const pending: PendingTask = {
        task,
        taskId: this.nextTaskId++,
        deadline: task.deadline,
        runAt: performance.now(),
        postedAt: 0,
        resolve,
        reject,
        settled: false,
        timer: undefined,
        waitingForStart: false,
      };
      this.startEmptySlots();
      const thread = this.idleThread();
      if (thread === null && this.queue.length >= this.options.queueSize) {
        this.counters.TotRejected++;
        this.emit({ type: 'rejected', queued: this.queue.length });
        reject(
          new SearchError(
            'SEARCH_OVERLOADED',
            `every search thread is busy and ${this.queue.length} queries are waiting (search.queue-size): retry shortly`,
            { details: { retryAfter: RETRY_AFTER_SECONDS } },
          ),
        );
        return;
      }
      pending.timer = setTimeout(() => this.timeOut(pending), answerWait(task.deadline));
      if (thread !== null) this.dispatch(thread, pending);
      else this.queue.push(pending);
    });
  }

  /** Statistics for `/metrics`. */
  stats(): SearchPoolStats {
    const live = this.threads.filter((t): t is SearchThread => t !== null);
    return {
      threads: live.length,
      busyThreads: live.filter((t) => t.busy).length,
      queued: this.queue.length,
      ...this.counters,
    };
  }

  /**
   * Terminates the thread running a query (operations and tests: what a crash does). The
   * query answers 503 `SEARCH_THREAD_FAILED`; the next query gets a new thread.
   */
  async terminateThreadOf(taskId: number): Promise<boolean> {
    const thread = this.threads.find((t) => t?.running?.task.taskId === taskId);
    if (thread == null) return false;
    await thread.worker.terminate();
    return true;
  }

  /** Refuses new queries, answers the waiting ones 503, stops every thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopListening();
    for (const task of this.queue.splice(0))
      this.settle(task, new SearchError('INDEX_CLOSED', 'the server is stopping'));
    await Promise.all(
      this.threads.map(async (thread) => {
        if (thread === null) return;
        thread.ended = true;
        await thread.worker.terminate();
      }),
    );
  }

  /**
   * A thread free for a query (see {@link takeIdleThread}), started when a slot is empty;
   * null when all are busy.
   */
  private idleThread(): SearchThread | null {
    const thread = takeIdleThread(this.threads, performance.now());
    if (thread !== null) return thread;
    const slot = this.threads.indexOf(null);
    return slot < 0 ? null : this.startThread(slot);
  }

  /**
   * Starts a thread in every empty slot: at the first query (and the first after a thread
   * died), so that the queries after it find threads that already listen instead of waiting
   * for a start-up (loading modules takes a second on a loaded machine).
   */
  private startEmptySlots(): void {
    for (let slot = 0; slot < this.threads.length; slot++)
      if (this.threads[slot] === null) this.startThread(slot);
  }

  private startThread(slot: number): SearchThread {
    const thread = new SearchThread(slot, {
      secret: this.options.secret,
      name: THREAD_NAMES.search,
    });
    this.threads[slot] = thread;
    thread.worker.on('message', (message: FromThreadMessage) => this.onMessage(thread, message));
    thread.worker.on('error', (error) => this.onThreadEnd(thread, `it failed: ${error.message}`));
    thread.worker.on('exit', (code) => this.onThreadEnd(thread, `it exited with code ${code}`));
    // An idle search thread must not keep the process alive.
    thread.worker.unref();
    return thread;
  }

  /**
   * Gives `task` to `thread`: opens its view and posts it. Without a promise when the thread
   * listens and the view opens at once (a search's usual path: the event loop's share of a
   * query is small, and each promise is a part of it).
   */
  private dispatch(thread: SearchThread, task: PendingTask): void {
    thread.opening = true;
    let opened: OpenedView | Promise<OpenedView>;
    try {
      opened = task.task.open();
    } catch (error) {
      this.openFailed(thread, task, error);
      return;
    }
    if (!thread.isReady) {
      // The view opens while a new thread starts: after a restart, both take a second or so
      // (the collection's files read and checked; the thread's modules loaded).
      const opening = Promise.resolve(opened);
      // Awaited once the thread listens; until then its failure must not count as unhandled.
      opening.catch(() => undefined);
      void this.dispatchOnceReady(thread, task, opening);
      return;
    }
    if (opened instanceof Promise) {
      opened.then(
        (later) => this.post(thread, task, later),
        (error: unknown) => this.openFailed(thread, task, error),
      );
      return;
    }
    this.post(thread, task, opened);
  }

  /**
   * A thread's start-up (loading its modules: long on a loaded machine) is not the query's
   * work: the budget starts again once the thread listens.
   */
  private async dispatchOnceReady(
    thread: SearchThread,
    task: PendingTask,
    opening: Promise<OpenedView>,
  ): Promise<void> {
    task.waitingForStart = true;
    const waited = performance.now();
    // Meanwhile the thread keeps the process alive (an idle one does not, see startThread):
    // the query's timer may fire and wait on (see timeOut), and then nothing else might.
    thread.worker.ref();
    try {
      await Promise.race([thread.ready, thread.gone]);
    } finally {
      thread.worker.unref();
    }
    task.waitingForStart = false;
    task.deadline += performance.now() - waited;
    if (!task.settled) {
      if (task.timer !== undefined) clearTimeout(task.timer);
      task.timer = setTimeout(() => this.timeOut(task), answerWait(task.deadline));
    }
    let opened: OpenedView;
    try {
      opened = await opening;
    } catch (error) {
      this.openFailed(thread, task, error);
      return;
    }
    this.post(thread, task, opened);
  }

  private openFailed(thread: SearchThread, task: PendingTask, error: unknown): void {
    thread.opening = false;
    this.settle(task, error);
    this.pump();
  }

  /** A task that did not run on the thread it was given (timed out meanwhile, or the thread died). */
  private notRun(task: PendingTask): void {
    if (this.closed) this.settle(task, new SearchError('INDEX_CLOSED', 'the server is stopping'));
    else if (!task.settled) this.queue.unshift(task);
    this.pump();
  }

  /** Posts a task whose view is open to its thread (or runs it here, see SearchTask.runHere). */
  private post(thread: SearchThread, task: PendingTask, opened: OpenedView): void {
    thread.opening = false;
    if (task.settled || thread.ended) {
      // Timed out while the view opened, or the thread died meanwhile: nothing to run.
      opened.release();
      this.notRun(task);
      return;
    }
    task.postedAt = performance.now();
    if (!shareable(opened.view)) {
      try {
        const answer = task.task.runHere(opened.view);
        answer.timing.wait = task.postedAt - task.runAt;
        this.settle(task, answer);
      } catch (error) {
        this.settle(task, error);
      } finally {
        opened.release();
        this.pump();
      }
      return;
    }
    let message: SearchTaskMessage;
    try {
      message = this.taskMessage(thread, task, opened.view);
    } catch (error) {
      opened.release();
      this.settle(task, error);
      this.pump();
      return;
    }
    thread.running = { task, release: () => opened.release(), stuckTimer: undefined };
    // A thread with a query keeps the process alive (idle, it does not: see startThread).
    thread.worker.ref();
    thread.worker.postMessage(message);
    if (this.options.onEvent !== undefined)
      this.emit({ type: 'dispatched', taskId: task.taskId, thread: thread.slot });
  }

  /** The task as the thread reads it; what the thread has not seen is added once. */
  private taskMessage(thread: SearchThread, task: PendingTask, view: SearchView): SearchTaskMessage {
    const settings: ThreadSettings[] = [];
    const generations: SharedGeneration[] = [];
    const settingsRef = (value: CollectionSettings): number => {
      let id = settingsIds.get(value);
      if (id === undefined) settingsIds.set(value, (id = nextSettingsId++));
      if (!thread.knownSettings.has(id)) {
        thread.knownSettings.add(id);
        settings.push({
          id,
          config: value.config,
          gscopesText: value.gscopes === undefined ? null : serializeGscopes(value.gscopes),
          geospatialClasses: geospatialClasses(value),
        });
      }
      return id;
    };
    const points: ThreadPoint[] = [];
    const dropPoints: number[] = [];
    /** Points this task reads: never the one dropped to make room (a meta collection has several). */
    const used: number[] = [];
    const pointRef = (pointGenerations: readonly LiveGeneration[]): number => {
      let id = pointIds.get(pointGenerations);
      if (id === undefined) pointIds.set(pointGenerations, (id = nextPointId++));
      used.push(id);
      if (thread.knownPoints.has(id)) return id;
      const refs = pointGenerations.map((generation): ThreadGeneration => {
        const shared = generation.reader.shared;
        if (shared === null) throw new Error(`generation ${generation.generation} was not opened to share`);
        if (!thread.knownGenerations.has(shared.id)) {
          thread.knownGenerations.add(shared.id);
          generations.push(shared);
        }
        return {
          id: shared.id,
          killedFile: generation.killedFileName,
          killed: generation.killed?.bits ?? null,
        };
      });
      if (thread.knownPoints.size >= POINTS_PER_THREAD)
        for (const oldest of thread.knownPoints.keys()) {
          if (used.includes(oldest)) continue;
          thread.knownPoints.delete(oldest);
          dropPoints.push(oldest);
          break;
        }
      thread.knownPoints.set(
        id,
        refs.map((ref) => ref.id),
      );
      points.push({ id, generations: refs });
      return id;
    };
    let schemaId = schemaIds.get(view.schema);
    if (schemaId === undefined) schemaIds.set(view.schema, (schemaId = nextSchemaId++));
    const schemas: ThreadSchema[] = [];
    let resetSchemas = false;
    if (!thread.knownSchemas.has(schemaId)) {
      if (thread.knownSchemas.size >= SCHEMAS_PER_THREAD) {
        thread.knownSchemas.clear();
        resetSchemas = true;
      }
      thread.knownSchemas.add(schemaId);
      schemas.push({ id: schemaId, options: view.schema.options });
    }
    const { params, maxPrefixTerms, explain, form } = task.task;
    // First: what the thread has not seen is gathered as they are named.
    const settingsId = settingsRef(view.settings);
    const members = view.members.map((member) => ({
      name: member.name,
      settingsId: settingsRef(member.settings),
      pointId: pointRef(member.searcher.generations as readonly LiveGeneration[]),
    }));
    return {
      type: 'search',
      taskId: task.taskId,
      params,
      collection: view.collection,
      isMeta: view.isMeta,
      settingsId,
      members,
      schemaId,
      deadline: task.deadline,
      maxPrefixTerms,
      explain: explain === true,
      form: form ?? 'object',
      othersWaiting: this.queue.length > 0,
      learn:
        settings.length + generations.length + points.length + dropPoints.length + schemas.length > 0 ||
        resetSchemas
          ? { settings, generations, points, dropPoints, schemas, resetSchemas }
          : null,
    };
  }

  private onMessage(thread: SearchThread, message: FromThreadMessage): void {
    if (isJsonResult(message)) {
      const [taskId, timedOut, json, searchMs, serializeMs] = message;
      const running = thread.running;
      if (running === null || running.task.taskId !== taskId) return;
      this.finish(thread);
      if (timedOut) this.counters.TotTimedOut++;
      this.settle(running.task, { json, timing: timingOf(running.task, searchMs, serializeMs) });
      this.pump();
      return;
    }
    if (message.type === 'ready') {
      thread.isReady = true;
      thread.markReady();
      return;
    }
    const running = thread.running;
    if (running === null || running.task.taskId !== message.taskId) return;
    this.finish(thread);
    if (message.type === 'result') {
      if (message.timedOut) this.counters.TotTimedOut++;
      this.settle(running.task, answerOf(message, timingOf(running.task, message.searchMs, 0)));
    } else if (message.code !== null) {
      this.settle(running.task, new SearchError(message.code, message.message));
    } else {
      // A bug in the thread: answered 500 and logged by the caller, with the thread's stack.
      const error = new Error(`search thread: ${message.message}`);
      if (message.stack !== undefined) error.stack = message.stack;
      this.settle(running.task, error);
    }
    this.pump();
  }

  private onThreadEnd(thread: SearchThread, reason: string): void {
    if (this.threads[thread.slot] !== thread) return;
    this.threads[thread.slot] = null;
    const wasEnded = thread.ended;
    thread.ended = true;
    thread.markGone();
    const running = thread.running;
    if (running !== null) {
      this.finish(thread);
      this.settle(
        running.task,
        new SearchError(
          'SEARCH_THREAD_FAILED',
          `the search thread running this query stopped (${reason}); the query was not answered: retry it`,
          { details: { retryAfter: RETRY_AFTER_SECONDS } },
        ),
      );
    }
    if (!wasEnded) {
      this.counters.TotThreadFailures++;
      this.emit({ type: 'thread-failed', thread: thread.slot, reason });
    }
    if (!this.closed) this.pump();
  }

  /** The thread is done with its query: its searchers are released. */
  private finish(thread: SearchThread): void {
    const running = thread.running;
    if (running === null) return;
    thread.running = null;
    thread.worker.unref();
    if (running.stuckTimer !== undefined) clearTimeout(running.stuckTimer);
    running.release();
  }

  private timeOut(task: PendingTask): void {
    // Waiting for a thread to start: the budget is moved once it is ready (see dispatch).
    if (task.settled || task.waitingForStart) return;
    this.counters.TotTimedOut++;
    const queuedAt = this.queue.indexOf(task);
    if (queuedAt >= 0) this.queue.splice(queuedAt, 1);
    this.settle(
      task,
      new SearchError(
        'SEARCH_TIMEOUT',
        queuedAt >= 0
          ? 'the query waited for a search thread longer than its budget (search.timeout-ms): retry shortly'
          : 'the query did not finish within its budget (search.timeout-ms): retry shortly, or simplify it',
        { details: { retryAfter: RETRY_AFTER_SECONDS } },
      ),
    );
    // A thread that ignores its deadline for long is stuck: replace it.
    const thread = this.threads.find((t) => t?.running?.task === task);
    if (thread != null && thread.running !== null) {
      thread.running.stuckTimer = setTimeout(() => void thread.worker.terminate(), STUCK_AFTER_MS);
      thread.running.stuckTimer.unref();
    }
  }

  private settle(task: PendingTask, outcome: unknown): void {
    if (task.settled) return;
    task.settled = true;
    if (task.timer !== undefined) clearTimeout(task.timer);
    if (outcome instanceof Error || !isAnswer(outcome)) task.reject(outcome);
    else task.resolve(outcome);
  }

  /** Hands waiting queries to free threads. */
  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const thread = this.idleThread();
      if (thread === null) return;
      this.dispatch(thread, this.queue.shift()!);
    }
  }

  private forget(id: number): void {
    for (const thread of this.threads) {
      if (thread === null || !thread.knownGenerations.delete(id)) continue;
      // The points in time that read it are gone too (its reader closed with the last of them).
      const points: number[] = [];
      for (const [point, generations] of thread.knownPoints)
        if (generations.includes(id)) {
          thread.knownPoints.delete(point);
          points.push(point);
        }
      thread.worker.postMessage({ type: 'forget', ids: [id], points });
    }
  }

  private emit(event: SearchPoolEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // An observer's failure must not break the pool.
    }
  }
}

/**
 * How long a query's answer is waited for: until its deadline and the grace after it, in
 * whole milliseconds (Node keeps one timer list per distinct delay: queries with the same
 * budget share one, instead of a list made and dropped per query; at most 1 ms later).
 */
function answerWait(deadline: number): number {
  return Math.ceil(Math.max(0, deadline - nowEpochMs()) + ANSWER_GRACE_MS);
}

/** True when every generation of the view was opened to be shared with threads. */
function shareable(view: SearchView): boolean {
  return view.members.every((member) =>
    (member.searcher.generations as readonly LiveGeneration[]).every((g) => g.reader?.shared != null),
  );
}

function isAnswer(value: unknown): value is SearchAnswer {
  return typeof value === 'object' && value !== null && ('response' in value || 'json' in value);
}

function isJsonResult(message: FromThreadMessage): message is JsonResultMessage {
  return Array.isArray(message);
}

/** The answer a thread's result message carries (`form: 'object'`). */
function answerOf(
  message: Extract<FromThreadMessage, { type: 'result' }>,
  timing: SearchTiming,
): SearchAnswer {
  return message.explanations === null
    ? { response: message.response, timing }
    : { response: message.response, explanations: message.explanations, timing };
}

/** A task's timing, answered now by its thread, which took `searchMs` and `serializeMs` for it. */
function timingOf(task: PendingTask, searchMs: number, serializeMs: number): SearchTiming {
  const roundTrip = performance.now() - task.postedAt;
  return {
    wait: task.postedAt - task.runAt,
    hop: Math.max(0, roundTrip - searchMs - serializeMs),
    search: searchMs,
    serialize: serializeMs,
  };
}
