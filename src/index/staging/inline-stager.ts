import type { DocumentInput } from '../document.js';
import { GenerationBuffer } from '../generation/generation-buffer.js';
import type { Schema } from '../schema.js';
import type { Directory } from '../store/directory.js';
import { flushBuffer, type FlushedGeneration } from './flushed-generation.js';
import type { AllocateGeneration, PendingFlush, Stager } from './stager.js';

/** Inverts staged documents on the calling thread (tests, in-memory directories, small setups). */
export class InlineStager implements Stager {
  private buffer: GenerationBuffer;
  /** Nothing leaves this thread, so nothing is lost on the way. */
  readonly changesLost = false;

  constructor(
    private readonly dir: Directory,
    private readonly schema: Schema,
    private readonly allocate: AllocateGeneration,
    private readonly ramBufferBytes: number,
    private readonly onFull: (flush: PendingFlush) => void,
  ) {
    this.buffer = new GenerationBuffer(schema);
  }

  get changes(): number {
    return this.buffer.changes;
  }

  put(doc: DocumentInput): void {
    this.buffer.put(doc);
    if (this.buffer.bytesUsed >= this.ramBufferBytes) this.onFull(this.cutOne());
  }

  delete(key: string): void {
    this.buffer.delete(key);
  }

  async ready(): Promise<void> {}

  cut(): PendingFlush[] {
    return this.buffer.isEmpty ? [] : [this.cutOne()];
  }

  async close(): Promise<void> {}

  private cutOne(): PendingFlush {
    const buffer = this.buffer;
    this.buffer = new GenerationBuffer(this.schema);
    let generation: number | undefined;
    let done: FlushedGeneration | undefined;
    return {
      changes: buffer.changes,
      result: async () => {
        if (done === undefined) {
          generation ??= buffer.docCount > 0 ? this.allocate() : 0;
          done = flushBuffer(this.dir, generation, buffer);
        }
        return done;
      },
    };
  }
}
