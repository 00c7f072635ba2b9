import { writeFileSync } from 'node:fs';

/**
 * Names the calling thread for the operating system, so that `top -H`, `ps -L` and
 * /proc/PID/task/TID/comm tell the engine's threads apart (Node 20 names none of them: every
 * thread of the process is `node`). Linux only, through /proc/thread-self/comm, which holds
 * at most 15 bytes; elsewhere, or when /proc is not mounted, nothing happens: a name is a
 * convenience, never a reason to fail.
 */
export function nameThisThread(name: string): void {
  if (process.platform !== 'linux') return;
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // /proc missing or read-only (some containers): the thread keeps its name.
  }
}

/** The names the engine gives its threads (see {@link nameThisThread}). */
export const THREAD_NAMES = { indexing: 'ps-index', merge: 'ps-merge', search: 'ps-search' } as const;
