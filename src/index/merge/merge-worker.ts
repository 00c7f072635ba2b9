/**
 * Worker thread entry of a merge: reopens the index folder by path, merges, syncs the new
 * files (a worker may block on fsync: nobody waits on its event loop), and reports back.
 * The index asks it to stop through the shared `stop` flag (see `runMerge`), which the merge
 * reads between terms and stored blocks: the thread then ends on its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FsDirectory } from '../store/fs-directory.js';
import { mergeGenerations, type MergeInput } from '../generation/merge-generations.js';
import { nameThisThread, THREAD_NAMES } from '../thread-name.js';

interface MergeJob {
  path: string;
  inputs: MergeInput[];
  generation: number;
  /** One Int32 over a SharedArrayBuffer: non-zero once the index wants the merge stopped. */
  stop: SharedArrayBuffer;
}

nameThisThread(THREAD_NAMES.merge);
const job = workerData as MergeJob;
const stop = new Int32Array(job.stop);
try {
  const dir = new FsDirectory(job.path);
  const meta = mergeGenerations(dir, job.inputs, job.generation, () => Atomics.load(stop, 0) !== 0);
  dir.syncNow(meta.files);
  parentPort!.postMessage({ ok: true, meta });
} catch (error) {
  const e = error as Error & { code?: string };
  parentPort!.postMessage({ ok: false, message: e.message, code: e.code ?? 'MERGE_FAILED', stack: e.stack });
}
