/**
 * Worker thread entry of the WorkerStager: inverts the documents routed to it into its own
 * buffer and, when asked, writes a buffer as a generation, alone or together with the parts
 * other workers exported for the same commit (one generation per commit, not one per
 * worker). Messages arrive in order, so a key's changes are applied in the order they were
 * staged.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { receivedPut, type StagedOp } from './staged-op.js';
import { GenerationBuffer } from '../generation/generation-buffer.js';
import type { StoredBlock } from '../generation/stored-record-codec.js';
import { Schema, type SchemaOptions } from '../schema.js';
import { FsDirectory } from '../store/fs-directory.js';
import { transferablesOf } from '../generation/buffer-source.js';
import { flushPart, writeParts, type FlushPart } from './flushed-generation.js';

export type ToIndexingWorker =
  | { type: 'ops'; ops: StagedOp[] }
  | { type: 'cut'; id: number }
  /** Write cut `id`, followed by `parts` (other workers' cuts), as one generation. */
  | { type: 'flush'; id: number; generation: number; parts: FlushPart[] }
  /** Send cut `id` inverted (for another worker to write); keep it until `release`. */
  | { type: 'export'; id: number }
  | { type: 'release'; id: number };

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
        const result = writeParts(dir, message.generation, [flushPart(cut), ...message.parts]);
        cuts.delete(message.id);
        parentPort!.postMessage({ type: 'flushed', id: message.id, result }, [result.liveDocs.buffer as ArrayBuffer, result.killed.buffer as ArrayBuffer]);
      } catch (error) {
        parentPort!.postMessage({ type: 'failed', id: message.id, message: (error as Error).message });
      }
      break;
    }
    case 'export': {
      const cut = cuts.get(message.id);
      if (cut === undefined) {
        parentPort!.postMessage({ type: 'failed', id: message.id, message: `no buffer cut ${message.id}` });
        return;
      }
      try {
        const part = flushPart(cut);
        // The stored blocks are views into the buffer's own chunks: copy them, so that
        // transferring the part leaves the buffer whole (an export may have to be redone).
        part.inverted.storedBlocks = copyBlocks(part.inverted.storedBlocks);
        const transfer = [...transferablesOf(part.inverted), part.liveDocs.buffer as ArrayBuffer, part.killed.buffer as ArrayBuffer];
        parentPort!.postMessage({ type: 'exported', id: message.id, part }, transfer);
      } catch (error) {
        parentPort!.postMessage({ type: 'failed', id: message.id, message: (error as Error).message });
      }
      break;
    }
    case 'release':
      cuts.delete(message.id);
      break;
  }
});

/** The blocks copied into one new array. */
function copyBlocks(blocks: StoredBlock[]): StoredBlock[] {
  let total = 0;
  for (const block of blocks) total += block.bytes.length;
  const bytes = new Uint8Array(total);
  let at = 0;
  return blocks.map((block) => {
    bytes.set(block.bytes, at);
    at += block.bytes.length;
    return { firstDoc: block.firstDoc, bytes: bytes.subarray(at - block.bytes.length, at) };
  });
}
