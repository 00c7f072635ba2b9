import type { Directory } from '../store/directory.js';
import { bufferSource } from '../generation/buffer-source.js';
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
 * Writes a buffer as generation `generation` (files not synced) and summarises it. On
 * failure the partial files are deleted and the buffer is left as it was, so the flush can
 * be retried with the same number.
 */
export function flushBuffer(dir: Directory, generation: number, buffer: GenerationBuffer): FlushedGeneration {
  let meta: GenerationMeta | null = null;
  if (buffer.docCount > 0) {
    try {
      meta = writeGeneration(dir, generation, bufferSource(buffer));
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
  const changedKeys = [...buffer.changedKeys];
  const liveDocs = new Int32Array(changedKeys.length);
  changedKeys.forEach((key, i) => (liveDocs[i] = buffer.liveDoc(key) ?? -1));
  return { meta, changes: buffer.changes, changedKeys, liveDocs, killed: Int32Array.from(buffer.killed) };
}
