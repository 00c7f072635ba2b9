import { Worker } from 'node:worker_threads';
import { filterFailed } from '../filter-failed.js';
import type { BinaryKind } from './binary-kind.js';
import type { ExtractionReply, ExtractionRequest } from './extraction-worker.js';

/** How long one document's extraction may take before the request fails (and its thread is ended). */
export const EXTRACTION_TIMEOUT_MS = 60_000;
/** Threads extracting at once; more documents wait their turn. */
const MAX_THREADS = 2;
/** Heap of one extraction thread: a hostile file fails its request, never the server. */
const THREAD_HEAP_MB = 512;

interface Job {
  request: Omit<ExtractionRequest, 'id'>;
  resolve: (html: string) => void;
  reject: (error: Error) => void;
}

/**
 * Extracts the text of PDF and Office Open XML documents in worker threads (at most
 * {@link MAX_THREADS}, started when first needed, unreferenced so they never keep the process
 * alive). Resolves with the document as HTML (see `extracted-document.ts`); rejects with
 * `FILTER_FAILED` naming `TikaFilterProvider` when the file cannot be read, is too slow
 * ({@link EXTRACTION_TIMEOUT_MS}: the thread is ended and replaced) or runs out of memory.
 */
export class BinaryExtractor {
  private readonly idle: Worker[] = [];
  private running = 0;
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(private readonly timeoutMs = EXTRACTION_TIMEOUT_MS) {}

  extract(kind: BinaryKind, bytes: Uint8Array): Promise<string> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { kind, bytes }, resolve, reject });
      this.pump();
    });
  }

  /** Ends every idle thread (busy ones end when their document is done or times out). */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((worker) => worker.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0 && (this.idle.length > 0 || this.running < MAX_THREADS)) {
      const job = this.queue.shift()!;
      const worker = this.idle.pop() ?? this.startThread();
      this.running++;
      this.run(worker, job);
    }
  }

  private startThread(): Worker {
    const worker = new Worker(new URL('./extraction-worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    worker.unref();
    return worker;
  }

  private run(worker: Worker, job: Job): void {
    const id = this.nextId++;
    const kindName = job.request.kind.toUpperCase();
    let settled = false;
    const finish = (outcome: { html: string } | { error: Error }, reusable: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      this.running--;
      if (reusable) this.idle.push(worker);
      else void worker.terminate();
      if ('html' in outcome) job.resolve(outcome.html);
      else job.reject(outcome.error);
      this.pump();
    };
    const onMessage = (reply: ExtractionReply): void => {
      if (reply.id !== id) return;
      if ('html' in reply) finish({ html: reply.html }, true);
      else
        finish(
          { error: filterFailed('TikaFilterProvider', `not a readable ${kindName} file: ${reply.error}`) },
          true,
        );
    };
    const onError = (error: Error): void =>
      finish(
        { error: filterFailed('TikaFilterProvider', `${kindName} extraction failed: ${error.message}`) },
        false,
      );
    const onExit = (): void =>
      finish({ error: filterFailed('TikaFilterProvider', `${kindName} extraction thread ended`) }, false);
    const timer = setTimeout(
      () =>
        finish(
          {
            error: filterFailed(
              'TikaFilterProvider',
              `${kindName} extraction took longer than ${this.timeoutMs / 1000} s; the document is too large or too complex`,
            ),
          },
          false,
        ),
      this.timeoutMs,
    );
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    // A copy: the request's buffer stays the caller's (it is journaled after this).
    worker.postMessage({
      id,
      ...job.request,
      bytes: new Uint8Array(job.request.bytes),
    } satisfies ExtractionRequest);
  }
}

let shared: BinaryExtractor | undefined;

/** The process's extractor (its threads are shared by every collection). */
export function sharedBinaryExtractor(): BinaryExtractor {
  shared ??= new BinaryExtractor();
  return shared;
}
