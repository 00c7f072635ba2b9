import type { Directory } from '../store/directory.js';
import { invertBuffer, invertedSource, type InvertedBuffer } from '../generation/buffer-source.js';
import type { GenerationBuffer } from '../generation/generation-buffer.js';
import { generationOfFile, type GenerationMeta } from '../generation/generation-files.js';
import { writeGeneration } from '../generation/generation-writer.js';

/**
 * What a flushed buffer tells the serial updater: the generation it wrote (if it held any
 * document) and, for every key it changed, the docId of its live version there (-1 when the
 * key's last change was a delete), so that the commit can kill older versions.
 */
export interface FlushedGeneration {
  meta: GenerationMeta | null;
  changes: number;
  changedKeys: string[];
  liveDocs: Int32Array;
  /** docIds superseded inside the buffer itself. */
  killed: Int32Array;
}

/**
 * A cut buffer ready to be written: inverted, with what it changed (docIds relative to the
 * buffer). Several parts can make one generation (see {@link writeParts}); plain data, so a
 * worker can send its part to the worker that writes.
 */
export interface FlushPart {
  inverted: InvertedBuffer;
  changes: number;
  changedKeys: string[];
  liveDocs: Int32Array;
  killed: Int32Array;
}

/** Inverts a cut buffer into a part (the buffer is left as it was: a failed write can be retried). */
export function flushPart(buffer: GenerationBuffer): FlushPart {
  const changedKeys = [...buffer.changedKeys];
  const liveDocs = new Int32Array(changedKeys.length);
  changedKeys.forEach((key, i) => (liveDocs[i] = buffer.liveDoc(key) ?? -1));
  return {
    inverted: invertBuffer(buffer),
    changes: buffer.changes,
    changedKeys,
    liveDocs,
    killed: Int32Array.from(buffer.killed),
  };
}

/**
 * Writes parts as generation `generation`, their documents one after the other (files not
 * synced), and summarises it. On failure the partial files are deleted and nothing else
 * changes, so the write can be retried with the same number.
 */
export function writeParts(dir: Directory, generation: number, parts: FlushPart[]): FlushedGeneration {
  let docCount = 0;
  const bases = parts.map((part) => {
    const base = docCount;
    docCount += part.inverted.docCount;
    return base;
  });
  let meta: GenerationMeta | null = null;
  if (docCount > 0) {
    try {
      meta = writeGeneration(dir, generation, invertedSource(parts.map((part) => part.inverted)));
    } catch (error) {
      for (const name of dir.listAll()) {
        if (generationOfFile(name) === generation) {
          try {
            dir.deleteFile(name);
          } catch {
            // Removed at the next open.
          }
        }
      }
      throw error;
    }
  }
  if (parts.length === 1) {
    const [part] = parts;
    return {
      meta,
      changes: part!.changes,
      changedKeys: part!.changedKeys,
      liveDocs: part!.liveDocs,
      killed: part!.killed,
    };
  }
  // Keys are routed to one buffer each: the parts' keys never overlap.
  const changedKeys = parts.flatMap((part) => part.changedKeys);
  const liveDocs = new Int32Array(changedKeys.length);
  const killed = new Int32Array(parts.reduce((sum, part) => sum + part.killed.length, 0));
  let keyAt = 0;
  let killedAt = 0;
  parts.forEach((part, i) => {
    for (const doc of part.liveDocs) liveDocs[keyAt++] = doc < 0 ? doc : doc + bases[i]!;
    for (const doc of part.killed) killed[killedAt++] = doc + bases[i]!;
  });
  return { meta, changes: parts.reduce((sum, part) => sum + part.changes, 0), changedKeys, liveDocs, killed };
}

/**
 * Writes a buffer as generation `generation` (files not synced) and summarises it. On
 * failure the partial files are deleted and the buffer is left as it was, so the flush can
 * be retried with the same number.
 */
export function flushBuffer(dir: Directory, generation: number, buffer: GenerationBuffer): FlushedGeneration {
  return writeParts(dir, generation, [flushPart(buffer)]);
}
