/**
 * CPU time of this process's threads by role, read from Linux's /proc/self/task: the main
 * thread (whose id is the process id), the engine's indexing and merge threads (they name
 * themselves, see src/index/thread-name.ts), and everything else as the difference to the
 * process total: V8's helper threads (garbage collection, compilers), libuv's pool (file
 * system calls, fsync) and threads that ended meanwhile (a /proc entry goes with its thread).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { THREAD_NAMES } from '../../src/index/thread-name.js';

/** CPU time used so far, µs (user + system), by role. */
export interface ThreadCpu {
  total: number;
  main: number;
  indexing: number;
  merge: number;
}

/** USER_HZ: /proc times are in 1/100 s on every Linux Node runs on. */
const MICROS_PER_TICK = 10_000;

/** The reading of this process; only `total` is known off Linux (the others are 0). */
export function readThreadCpu(): ThreadCpu {
  const usage = process.cpuUsage();
  const cpu: ThreadCpu = { total: usage.user + usage.system, main: 0, indexing: 0, merge: 0 };
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return cpu;
  }
  for (const tid of tasks) {
    let stat: string;
    let name: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
    } catch {
      continue; // the thread ended between the listing and the read
    }
    // utime and stime are the 14th and 15th fields; the name before them, in parentheses, may hold spaces.
    const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const micros = (Number(after[11]) + Number(after[12])) * MICROS_PER_TICK;
    if (Number(tid) === process.pid) cpu.main += micros;
    else if (name === THREAD_NAMES.indexing) cpu.indexing += micros;
    else if (name === THREAD_NAMES.merge) cpu.merge += micros;
  }
  return cpu;
}

/** `after - before`, role by role. */
export function threadCpuBetween(before: ThreadCpu, after: ThreadCpu): ThreadCpu {
  return {
    total: after.total - before.total,
    main: after.main - before.main,
    indexing: after.indexing - before.indexing,
    merge: after.merge - before.merge,
  };
}
