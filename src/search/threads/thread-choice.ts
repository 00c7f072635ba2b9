/** What {@link takeIdleThread} reads and records of a search thread. */
export interface ThreadChoiceState {
  /** Loaded its modules and listens. */
  readonly isReady: boolean;
  /** Running a query, or opening the view of the one it will run. */
  readonly busy: boolean;
  /** Queries given to it so far. */
  dispatched: number;
  /** When it was last given one (`performance.now()`; 0: never). */
  lastDispatchedAt: number;
  /** When it last took one as the most recently used thread (not a turn of a due thread). */
  lastRecentAt: number;
}

/** When an idle thread other than the most recently used one takes a query. */
export interface ThreadChoicePolicy {
  /** A thread that has run fewer queries takes its turn (threads warming up take turns). */
  warmUpQueries: number;
  /** A thread idle this long takes the next query (its turn: it does not become the most recently used). */
  refreshAfterMs: number;
}

/**
 * The policy of the search threads:
 * - 64 queries each, in turns, before one thread takes the queries that come one at a time:
 *   every thread has run the query path, V8 has begun to optimise it, and readers of the
 *   open generations exist in every thread;
 * - one query every ten seconds to a thread otherwise idle keeps its readers of new
 *   generations and its decoded-block cache in step with the index, so that a burst does
 *   not find it behind. Rare, because such a query runs on a thread that is not warm in a
 *   core's caches: at 1 s, that was 2% of the queries at 50 a second, more than the 1% a p99 leaves.
 */
export const SEARCH_THREAD_CHOICE: ThreadChoicePolicy = { warmUpQueries: 64, refreshAfterMs: 10_000 };

/**
 * Takes the idle thread for the next query (recording the dispatch on it), or null when none
 * is idle.
 *
 * Of the idle threads that listen, the most recently used one: a thread that keeps running
 * stays hot in its core's caches, which is what the latency of one query at a time depends
 * on (handing queries to idle threads in turn made it 25% slower on the RFC corpus). The
 * other threads must still be warm when a burst comes, so a thread is due first while it has
 * run fewer than `warmUpQueries` queries, or once idle for `refreshAfterMs`: of the due
 * threads, the one idle longest takes the query as a turn, after which the most recently
 * used thread is the same as before. A thread still starting is taken only when no other is
 * idle (its query waits for it to listen).
 */
export function takeIdleThread<T extends ThreadChoiceState>(
  threads: readonly (T | null)[],
  now: number,
  policy: ThreadChoicePolicy = SEARCH_THREAD_CHOICE,
): T | null {
  const due = (thread: T) =>
    thread.dispatched < policy.warmUpQueries || now - thread.lastDispatchedAt >= policy.refreshAfterMs;
  let chosen: T | null = null;
  let chosenDue = false;
  let starting: T | null = null;
  for (const thread of threads) {
    if (thread === null || thread.busy) continue;
    if (!thread.isReady) {
      starting ??= thread;
      continue;
    }
    const isDue = due(thread);
    const better =
      chosen === null ||
      (isDue !== chosenDue
        ? isDue
        : isDue
          ? thread.lastDispatchedAt < chosen.lastDispatchedAt
          : thread.lastRecentAt > chosen.lastRecentAt);
    if (better) {
      chosen = thread;
      chosenDue = isDue;
    }
  }
  const taken = chosen ?? starting;
  if (taken !== null) {
    taken.dispatched++;
    taken.lastDispatchedAt = now;
    if (taken === chosen && !chosenDue) taken.lastRecentAt = now;
  }
  return taken;
}
