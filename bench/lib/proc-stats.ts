/**
 * Resident memory, open file descriptors and threads of another process, read from Linux's
 * /proc as an operator's `ps`/`ls /proc/PID/fd` would: from the outside, so that measuring
 * opens nothing in the process measured.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** One reading of a process. */
export interface ProcStats {
  /** Resident set size, bytes (VmRSS). */
  rss: number;
  /** Entries of /proc/PID/fd: files, sockets, pipes, eventfds. */
  fds: number;
  /** Threads (main, libuv pool, worker threads, V8 helpers). */
  threads: number;
}

/** Reads {@link ProcStats} of `pid`; throws when the process is gone or /proc is missing (not Linux). */
export function readProcStats(pid: number): ProcStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status);
    if (match === null) throw new Error(`/proc/${pid}/status has no ${name} line`);
    return Number(match[1]);
  };
  return { rss: field('VmRSS') * 1024, fds: readdirSync(`/proc/${pid}/fd`).length, threads: field('Threads') };
}

/** Whether {@link readProcStats} can work on this machine. */
export function procAvailable(): boolean {
  try {
    readProcStats(process.pid);
    return true;
  } catch {
    return false;
  }
}
