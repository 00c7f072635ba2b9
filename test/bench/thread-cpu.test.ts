import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { readThreadCpu, threadCpuBetween } from '../../bench/lib/thread-cpu.js';

const threadNameModule = pathToFileURL(
  new URL('../../src/index/thread-name.js', import.meta.url).pathname,
).href;

/**
 * A thread that names itself as the engine's indexing threads do, burns `ms` of its own CPU
 * time, then waits to be ended. CPU time, not wall time: on a loaded machine (load 20 on 2
 * cores) a thread that spins for 400 ms of wall time may get a tenth of that on a core.
 */
function busyNamedThread(ms: number): Promise<Worker> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const { readFileSync } = require('node:fs');
     // This thread's utime + stime in ms (fields 14 and 15 of its /proc stat, in 10 ms ticks).
     const ownCpuMs = () => {
       const stat = readFileSync('/proc/thread-self/stat', 'utf8');
       const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
       return (Number(fields[11]) + Number(fields[12])) * 10;
     };
     import(${JSON.stringify(threadNameModule)}).then(({ nameThisThread, THREAD_NAMES }) => {
       nameThisThread(THREAD_NAMES.indexing);
       const end = ownCpuMs() + ${ms};
       while (ownCpuMs() < end) for (let i = 0; i < 1e5; i++);
       parentPort.postMessage('done');
       // Alive until terminated: a thread that ended is gone from /proc, its time no longer attributable.
       setInterval(() => {}, 60_000);
     });`,
    { eval: true },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker));
    worker.once('error', reject);
  });
}

describe('thread CPU by role', { skip: process.platform !== 'linux' && 'read from Linux /proc' }, () => {
  it('counts a named indexing thread under indexing, not under the main thread', async () => {
    const before = readThreadCpu();
    const worker = await busyNamedThread(400);
    const cpu = threadCpuBetween(before, readThreadCpu());
    await worker.terminate();
    // The thread spun until /proc counted 400 ms of its CPU time.
    assert.ok(cpu.indexing >= 400_000, `indexing ${cpu.indexing} µs`);
    assert.ok(cpu.main < cpu.indexing, `main ${cpu.main} µs, indexing ${cpu.indexing} µs`);
    assert.ok(cpu.total >= cpu.main + cpu.indexing - 20_000, 'the process total holds both');
    assert.equal(cpu.merge, 0);
  });
});
