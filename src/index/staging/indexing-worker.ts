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
import type { DirectoryDescription } from '../store/directory.js';
import { openDescribedDirectory } from '../store/directory-description.js';
import { transferablesOf } from '../generation/buffer-source.js';
import { flushPart, writeParts, type FlushPart } from './flushed-generation.js';
import { nameThisThread, THREAD_NAMES } from '../thread-name.js';

export type ToIndexingWorker =
  | { type: 'ops'; ops: StagedOp[] }
  | { type: 'cut'; id: number }
  /** Write cut `id`, followed by `parts` (other workers' cuts), as one generation. */
  | { type: 'flush'; id: number; generation: number; parts: FlushPart[] }
  /** Send cut `id` inverted (for another worker to write); keep it until `release`. */
  | { type: 'export'; id: number }
  /** Invert cut `id` now (its flush will follow: this overlaps with the other workers' exports). */
  | { type: 'prepare'; id: number }
  | { type: 'release'; id: number }
  /** End the thread (after the task it is on). */
  | { type: 'exit' };

interface Setup {
  directory: DirectoryDescription;
  schema: SchemaOptions;
  ramBufferBytes: number;
}

nameThisThread(THREAD_NAMES.indexing);
const setup = workerData as Setup;
const schema = new Schema(setup.schema);
// Messages that arrive meanwhile wait in the port: it starts delivering once the listener below is attached.
const dir = await openDescribedDirectory(setup.directory);
let buffer = new GenerationBuffer(schema);
let announcedFull = false;
/** Cut buffers by id, with their part once inverted (kept: a failed write is retried from it). */
const cuts = new Map<number, { buffer: GenerationBuffer; part?: FlushPart }>();

function partOf(id: number): FlushPart | undefined {
  const cut = cuts.get(id);
  if (cut === undefined) return undefined;
  cut.part ??= flushPart(cut.buffer);
  return cut.part;
}

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
      cuts.set(message.id, { buffer });
      buffer = new GenerationBuffer(schema);
      announcedFull = false;
      break;
    case 'prepare':
      try {
        partOf(message.id);
      } catch {
        // The flush that follows inverts again and reports the error.
      }
      break;
    case 'flush':
    case 'export': {
      try {
        const part = partOf(message.id);
        if (part === undefined) {
          parentPort!.postMessage({ type: 'failed', id: message.id, message: `no buffer cut ${message.id}` });
          return;
        }
        if (message.type === 'flush') {
          const result = writeParts(dir, message.generation, [part, ...message.parts]);
          cuts.delete(message.id);
          parentPort!.postMessage({ type: 'flushed', id: message.id, result }, [
            result.liveDocs.buffer as ArrayBuffer,
            result.killed.buffer as ArrayBuffer,
          ]);
        } else if (message.type === 'export') {
          // Sent as a copy whose arrays are transferred: the cut stays whole (an export may
          // have to be redone if the write fails). The stored blocks are views into the
          // buffer's own chunks: copied into one array.
          const sent: FlushPart = {
            ...part,
            inverted: { ...part.inverted, storedBlocks: copyBlocks(part.inverted.storedBlocks) },
          };
          cuts.get(message.id)!.part = undefined;
          const transfer = [
            ...transferablesOf(sent.inverted),
            sent.liveDocs.buffer as ArrayBuffer,
            sent.killed.buffer as ArrayBuffer,
          ];
          parentPort!.postMessage({ type: 'exported', id: message.id, part: sent }, transfer);
        }
      } catch (error) {
        parentPort!.postMessage({
          type: 'failed',
          id: message.id,
          message: (error as Error).message,
          code: (error as { code?: unknown }).code,
        });
      }
      break;
    }
    case 'release':
      cuts.delete(message.id);
      break;
    case 'exit':
      // Between two tasks, so never inside a compression call (see end-worker.ts).
      process.exit(0);
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
