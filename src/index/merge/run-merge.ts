import { Worker } from 'node:worker_threads';
import { SearchError, type ErrorCode } from '../../errors.js';
import type { GenerationMeta } from '../generation/generation-files.js';
import { mergeGenerations, type MergeInput } from '../generation/merge-generations.js';
import { endWorker } from '../end-worker.js';
import type { Directory } from '../store/directory.js';
import { describeDirectory } from '../store/directory-description.js';

/**
 * Runs one merge: in a worker thread when the directory can be described to another thread
 * and threads are allowed (queries and commits keep the main thread), inline otherwise
 * (in-memory test directories, which a worker cannot see).
 */
export async function runMerge(
  dir: Directory,
  inputs: MergeInput[],
  generation: number,
  useWorker: boolean,
  signal?: AbortSignal,
): Promise<GenerationMeta> {
  const directory = useWorker ? describeDirectory(dir) : null;
  if (directory === null) {
    // Let the caller's event loop turn before the (synchronous) merge starts.
    await new Promise((resolve) => setImmediate(resolve));
    const meta = mergeGenerations(dir, inputs, generation);
    await dir.sync(meta.files);
    return meta;
  }
  const stop = new SharedArrayBuffer(4);
  return new Promise<GenerationMeta>((resolve, reject) => {
    const worker = new Worker(new URL('./merge-worker.js', import.meta.url), {
      workerData: { directory, inputs, generation, stop },
    });
    let settled = false;
    const abort = () => {
      if (settled) return;
      settled = true;
      // Settle only once the worker is gone: it must not write a file after the index closed
      // (a reopened index could reuse the generation number, and cleanup would hit its files).
      const stopped = new SearchError(
        'MERGE_ABORTED',
        `merge into generation ${generation} was stopped because the index is closing`,
      );
      // The merge reads the flag between terms and stored blocks (see mergeGenerations).
      void endWorker(worker, () => Atomics.store(new Int32Array(stop), 0, 1)).then(() => reject(stopped));
    };
    signal?.addEventListener('abort', abort, { once: true });
    // The signal lives as long as the index: a listener left behind would hold this worker.
    worker.once('exit', () => signal?.removeEventListener('abort', abort));
    worker.once(
      'message',
      (message: { ok: boolean; meta?: GenerationMeta; message?: string; code?: ErrorCode }) => {
        // After an abort the answer (stopped, or finished just before) is not wanted: the abort settles at exit.
        if (settled) return;
        settled = true;
        if (message.ok) resolve(message.meta!);
        else
          reject(
            new SearchError(
              message.code ?? 'MERGE_FAILED',
              `merge into generation ${generation} failed: ${message.message}`,
            ),
          );
      },
    );
    worker.once('error', (error) => {
      if (!settled)
        reject(new SearchError('MERGE_FAILED', `merge worker crashed: ${error.message}`, { cause: error }));
      settled = true;
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new SearchError('MERGE_FAILED', `merge worker exited with code ${code}`));
      settled = true;
    });
  });
}
