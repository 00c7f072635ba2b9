import type { Directory, DirectoryDescription, WorkerDirectory } from './directory.js';
import { FsDirectory } from './fs-directory.js';

/**
 * Rebuilding a directory in a worker thread from its {@link DirectoryDescription}.
 */

/** The description another thread can rebuild `dir` from, or null when it cannot be shared (in memory). */
export function describeDirectory(dir: Directory): DirectoryDescription | null {
  return dir.describe?.() ?? null;
}

/** Builds, in the calling thread, the directory a description names. */
export async function openDescribedDirectory(description: DirectoryDescription): Promise<WorkerDirectory> {
  if (description.kind === 'fs') return new FsDirectory(description.path);
  const module = (await import(description.url)) as { openDirectory?: (options: unknown) => WorkerDirectory };
  if (typeof module.openDirectory !== 'function')
    throw new Error(`${description.url} exports no openDirectory(options): it cannot describe a directory`);
  return module.openDirectory(description.options);
}
