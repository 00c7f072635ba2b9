/**
 * Worker thread entry of a merge: rebuilds the index directory from its description, merges, syncs the new
 * files (a worker may block on fsync: nobody waits on its event loop), and reports back.
 * The index asks it to stop through the shared `stop` flag (see `runMerge`), which the merge
 * reads between terms and stored blocks: the thread then ends on its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { DirectoryDescription } from '../store/directory.js';
import { openDescribedDirectory } from '../store/directory-description.js';
import { mergeGenerations, type MergeInput } from '../generation/merge-generations.js';
import { nameThisThread, THREAD_NAMES } from '../thread-name.js';

interface MergeJob {
  directory: DirectoryDescription;
  inputs: MergeInput[];
  generation: number;
  /** One Int32 over a SharedArrayBuffer: non-zero once the index wants the merge stopped. */
  stop: SharedArrayBuffer;
}

nameThisThread(THREAD_NAMES.merge);
const job = workerData as MergeJob;
const stop = new Int32Array(job.stop);
try {
  const dir = await openDescribedDirectory(job.directory);
  const meta = mergeGenerations(dir, job.inputs, job.generation, () => Atomics.load(stop, 0) !== 0);
  dir.syncNow(meta.files);
  parentPort!.postMessage({ ok: true, meta });
} catch (error) {
  const e = error as Error & { code?: string };
  parentPort!.postMessage({ ok: false, message: e.message, code: e.code ?? 'MERGE_FAILED', stack: e.stack });
}
