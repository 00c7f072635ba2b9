import type { Worker } from 'node:worker_threads';

/** How long a worker asked to end may take (the task it is on) before it is terminated. */
const END_GRACE_MS = 30_000;

/**
 * Ends a worker thread by asking it (`ask`: a message, a shared flag) and resolves once it has
 * exited. Asked, not terminated: a thread terminated inside a compression call (merges and
 * flushes compress stored blocks) can abort the whole process, because Node asserts when it
 * cleans up a zlib handle whose setup was cut short. A worker that has not ended after
 * END_GRACE_MS (stuck in I/O) is terminated all the same.
 */
export async function endWorker(worker: Worker, ask: () => void): Promise<void> {
  if (worker.threadId === -1) return; // already gone
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  ask();
  const lastResort = setTimeout(() => void worker.terminate(), END_GRACE_MS);
  await exited;
  clearTimeout(lastResort);
}
