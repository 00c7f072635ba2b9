import { GenerationBuffer } from '../../src/index/generation/generation-buffer.js';
import type { ManifestGeneration } from '../../src/index/manifest.js';
import { Schema } from '../../src/index/schema.js';
import { flushBuffer, type FlushedGeneration } from '../../src/index/staging/flushed-generation.js';
import type { PendingFlush } from '../../src/index/staging/stager.js';
import type { Directory } from '../../src/index/store/directory.js';

/** One staged change: a put of the key, or (`-key`) its delete. */
type Change = string;

/**
 * Writes a generation into `dir` as a flush does (files not synced): a put of each key in
 * order, a delete for each `-key`. The parts of the index that publish generations are tested
 * on these, without a `SearchIndex` around them.
 */
export function writtenGeneration(dir: Directory, generation: number, changes: Change[]): FlushedGeneration {
  const buffer = new GenerationBuffer(new Schema());
  for (const change of changes) {
    if (change.startsWith('-')) buffer.delete(change.slice(1));
    else buffer.put({ key: change, fields: { body: `text of ${change}` }, stored: { body: change } });
  }
  return flushBuffer(dir, generation, buffer);
}

/** The manifest entry of a written generation (nothing killed). */
export function manifestEntry(flushed: FlushedGeneration): ManifestGeneration {
  const meta = flushed.meta;
  if (meta === null) throw new Error('the generation holds no document');
  return {
    generation: meta.generation,
    docCount: meta.docCount,
    killedCount: 0,
    killedFile: null,
    files: meta.files,
    sizeBytes: meta.sizeBytes,
  };
}

/** A cut whose generation is already written: what a stager hands to the commit. */
export function pendingOf(flushed: FlushedGeneration): PendingFlush {
  return { changes: flushed.changes, result: () => Promise.resolve(flushed) };
}

/** A cut whose write fails with each of `errors` in turn (a full disk, a dead thread), then succeeds. */
export function flakyPending(flushed: FlushedGeneration, errors: Error[]): PendingFlush {
  const left = [...errors];
  return {
    changes: flushed.changes,
    result: () => {
      const error = left.shift();
      return error === undefined ? Promise.resolve(flushed) : Promise.reject(error);
    },
  };
}
