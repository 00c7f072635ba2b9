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
  /** CPU time used so far, user + system, all threads, in seconds. */
  cpuSeconds: number;
}

/**
 * Clock ticks per second of /proc/PID/stat times (`getconf CLK_TCK`): 100 on every Linux
 * architecture Node runs on (USER_HZ is fixed by the kernel ABI).
 */
const CLOCK_TICKS = 100;

/** Reads {@link ProcStats} of `pid`; throws when the process is gone or /proc is missing (not Linux). */
export function readProcStats(pid: number): ProcStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status);
    if (match === null) throw new Error(`/proc/${pid}/status has no ${name} line`);
    return Number(match[1]);
  };
  // Fields after the command name, which is in parentheses and may itself hold spaces: utime and stime are the 14th and 15th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuSeconds = (Number(after[11]) + Number(after[12])) / CLOCK_TICKS;
  return {
    rss: field('VmRSS') * 1024,
    fds: readdirSync(`/proc/${pid}/fd`).length,
    threads: field('Threads'),
    cpuSeconds,
  };
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

/** CPU time of one thread of another process (see {@link readTaskCpu}). */
export interface TaskCpu {
  /** Its name (`/proc/PID/task/TID/comm`: a search thread names itself `ps-search`). */
  name: string;
  /** User + system, seconds. */
  cpuSeconds: number;
}

/**
 * CPU time so far of each thread of `pid`, by thread id (the main thread's id is `pid`). A
 * thread that ended is missing: its time stays only in the process total of {@link readProcStats}.
 */
export function readTaskCpu(pid: number): Map<number, TaskCpu> {
  const tasks = new Map<number, TaskCpu>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      tasks.set(Number(tid), { name, cpuSeconds: (Number(after[11]) + Number(after[12])) / CLOCK_TICKS });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return tasks;
}
