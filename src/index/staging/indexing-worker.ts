/**
 * Worker thread entry of the WorkerStager: inverts the documents routed to it into its own
 * buffer and, when asked, writes a buffer as a generation. Messages arrive in order, so a
 * key's changes are applied in the order they were staged.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { receivedPut, type StagedOp } from './staged-op.js';
import { GenerationBuffer } from '../generation/generation-buffer.js';
import { Schema, type SchemaOptions } from '../schema.js';
import { FsDirectory } from '../store/fs-directory.js';
import { flushBuffer } from './flushed-generation.js';

export type ToIndexingWorker =
  | { type: 'ops'; ops: StagedOp[] }
  | { type: 'cut'; id: number }
  | { type: 'flush'; id: number; generation: number };

interface Setup {
  path: string;
  schema: SchemaOptions;
  ramBufferBytes: number;
}

const setup = workerData as Setup;
const schema = new Schema(setup.schema);
const dir = new FsDirectory(setup.path);
let buffer = new GenerationBuffer(schema);
let announcedFull = false;
const cuts = new Map<number, GenerationBuffer>();

parentPort!.on('message', (message: ToIndexingWorker) => {
  switch (message.type) {
    case 'ops':
      for (const op of message.ops) {
        if ('p' in op) buffer.put(receivedPut(op));
        else buffer.delete(op.d);
      }
      parentPort!.postMessage({ type: 'done', count: message.ops.length });
      if (!announcedFull && buffer.bytesUsed >= setup.ramBufferBytes) {
        announcedFull = true;
        parentPort!.postMessage({ type: 'full' });
      }
      break;
    case 'cut':
      cuts.set(message.id, buffer);
      buffer = new GenerationBuffer(schema);
      announcedFull = false;
      break;
    case 'flush': {
      const cut = cuts.get(message.id);
      if (cut === undefined) {
        parentPort!.postMessage({ type: 'failed', id: message.id, message: `no buffer cut ${message.id}` });
        return;
      }
      try {
        const result = flushBuffer(dir, message.generation, cut);
        cuts.delete(message.id);
        parentPort!.postMessage({ type: 'flushed', id: message.id, result }, [result.liveDocs.buffer as ArrayBuffer, result.killed.buffer as ArrayBuffer]);
      } catch (error) {
        parentPort!.postMessage({ type: 'failed', id: message.id, message: (error as Error).message });
      }
      break;
    }
  }
});
