import type { DocumentInput } from '../document.js';
import type { FlushedGeneration } from './flushed-generation.js';

/** A cut of staged changes waiting to become a generation (a buffer, in this thread or a worker). */
export interface PendingFlush {
  readonly changes: number;
  /**
   * Writes the generation (once: later calls return the same result) and resolves with its
   * summary. After a rejection the next call tries again with the same generation number.
   */
  result(): Promise<FlushedGeneration>;
}

/**
 * Where staged changes are inverted before a commit: in this thread (`InlineStager`) or
 * in worker threads (`WorkerStager`, keys routed by hash so one key's changes stay in order).
 */
export interface Stager {
  put(doc: DocumentInput): void;
  delete(key: string): void;
  /** Resolves when staging can take more without piling up unprocessed work (backpressure). */
  ready(): Promise<void>;
  /** Changes staged since the last cut. */
  readonly changes: number;
  /** Ends the current buffers: each becomes a pending flush (in order); new changes start new buffers. */
  cut(): PendingFlush[];
  /**
   * True once staged changes were lost (an indexing thread given up on): the stager refuses
   * everything from then on, and its changes must be staged again on a new one.
   */
  readonly changesLost: boolean;
  close(): Promise<void>;
}

/** Numbers generations as flushes begin (the serial updater's counter). */
export type AllocateGeneration = () => number;
