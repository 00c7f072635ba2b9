import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * How much lower than the event loop a search thread is scheduled (Linux nice levels: each
 * level is about 1.25 times less CPU when threads compete). At 5, the event loop gets about
 * three times a busy search thread's share of a contended core: `/health` and document
 * acknowledgements are answered while expensive queries run on every core, and a query loses
 * only the few moments the event loop needs (an idle event loop takes nothing from it).
 */
export const SEARCH_THREAD_NICENESS = 5;

/**
 * Lowers the scheduling priority of the calling thread only (Linux: `setpriority` on the
 * thread's id from /proc/thread-self; nice is per thread there). Answers the thread's new
 * nice value, or null where that is not possible (another system, /proc missing): a
 * priority is a refinement, never a reason to fail.
 */
export function lowerThisThreadPriority(by: number): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return null;
    const nice = Math.min(19, getPriority(tid) + by);
    setPriority(tid, nice);
    return nice;
  } catch {
    return null;
  }
}
