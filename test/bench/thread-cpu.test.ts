import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { readThreadCpu, threadCpuBetween } from '../../bench/lib/thread-cpu.js';

const threadNameModule = pathToFileURL(
  new URL('../../src/index/thread-name.js', import.meta.url).pathname,
).href;

/** A thread that names itself as the engine's indexing threads do, burns `ms` of CPU, then waits to be ended. */
function busyNamedThread(ms: number): Promise<Worker> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     import(${JSON.stringify(threadNameModule)}).then(({ nameThisThread, THREAD_NAMES }) => {
       nameThisThread(THREAD_NAMES.indexing);
       const end = Date.now() + ${ms};
       while (Date.now() < end) {}
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
    // /proc counts in 10 ms ticks; the thread spun for 400 ms of wall time on a possibly busy machine.
    assert.ok(cpu.indexing >= 100_000, `indexing ${cpu.indexing} µs`);
    assert.ok(cpu.main < cpu.indexing, `main ${cpu.main} µs, indexing ${cpu.indexing} µs`);
    assert.ok(cpu.total >= cpu.main + cpu.indexing - 20_000, 'the process total holds both');
    assert.equal(cpu.merge, 0);
  });
});
