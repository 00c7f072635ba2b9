/**
 * The RFC corpus of the benchmarks: `../shared/data/corpus/rfc-pages.jsonl.br` beside the
 * repository (209,738 pages, 579 MB of brotli-compressed JSON lines, see
 * `../shared/data/README.md`), read as a stream so that a benchmark never holds the file.
 *
 * Speed matters because the reader runs inside indexing benchmarks: decompression runs in a
 * worker thread (`rfc-corpus-worker.ts`) while this thread splits lines on the raw bytes and
 * parses each line on its own. Splitting bytes rather than one decoded string per chunk keeps
 * ASCII pages in V8's one-byte strings: a single non-ASCII character in a big decoded chunk
 * would make the whole chunk (and every page sliced from it) a two-byte string, which measured
 * 3x slower to decode. Measured on an idle machine: about 2.1 s for the whole file (≈100,000
 * pages/s, 275 MB/s) on 2 cores; `fts5-baseline` prints the rate of the machine it runs on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CorpusWorkerData } from './rfc-corpus-worker.js';

/** One page of one RFC: a document of the benchmarks. */
export interface RfcPage {
  /** Unique URI, e.g. `https://rfc.example.org/rfc2616/page-12`. */
  key: string;
  rfc: number;
  page: number;
  /** `RFC 2616: Hypertext Transfer Protocol -- HTTP/1.1` (the same for every page of an RFC). */
  title: string;
  /** The page text, form feeds removed, layout kept. */
  text: string;
}

export interface ReadRfcCorpusOptions {
  /** Stop after this many pages (default: the whole file). */
  limit?: number;
  /** The `.jsonl.br` file (default: {@link corpusPath}). */
  path?: string;
}

/** Environment variable that overrides the corpus location. */
export const RFC_CORPUS_ENV = 'PUSHSEARCH_RFC_CORPUS';

/** Decompressed bytes per worker message, and how many may wait unparsed. */
const CHUNK_SIZE = 1 << 20;
const MAX_IN_FLIGHT = 8;

/**
 * The repository root (the folder of the project's `package.json`), found by walking up from
 * this module, so that the answer is the same from `bench/lib/` and from `dist/bench/lib/`.
 */
export function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
      if (name === 'pushsearch') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('cannot find the pushsearch repository root above ' + import.meta.url);
    dir = parent;
  }
}

/**
 * Where the corpus is: `$PUSHSEARCH_RFC_CORPUS` when set, else
 * `<repository>/../shared/data/corpus/rfc-pages.jsonl.br` (the shared folder beside the checkout).
 */
export function corpusPath(): string {
  const fromEnv = process.env[RFC_CORPUS_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return resolve(fromEnv);
  return resolve(repositoryRoot(), '..', 'shared', 'data', 'corpus', 'rfc-pages.jsonl.br');
}

/** Whether the corpus file exists (benchmarks skip with {@link corpusMissingMessage} when not). */
export function corpusAvailable(path: string = corpusPath()): boolean {
  return existsSync(path);
}

/** The line a benchmark prints when it skips because the corpus is missing. */
export function corpusMissingMessage(path: string = corpusPath()): string {
  return (
    `skipped: the RFC corpus is not at ${path}. Put rfc-pages.jsonl.br in ../shared/data/corpus/ ` +
    `beside the repository, or set ${RFC_CORPUS_ENV} to its path.`
  );
}

/**
 * The corpus in batches: one array per decompressed piece (about 1 MiB, ≈360 pages), in file
 * order. The cheapest way to read it; {@link readRfcCorpus} yields page by page on top of this.
 * Stopping early (`break`, `limit`) ends the worker.
 */
export async function* readRfcCorpusBatches(options: ReadRfcCorpusOptions = {}): AsyncGenerator<RfcPage[]> {
  const path = options.path ?? corpusPath();
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  if (!(remaining > 0)) return;
  if (!existsSync(path)) throw new Error(corpusMissingMessage(path));

  let line = 0;
  for await (const piece of readPieces(path)) {
    const batch: RfcPage[] = [];
    let offset = 0;
    while (offset < piece.length && batch.length < remaining) {
      let end = piece.indexOf(10, offset);
      if (end < 0) end = piece.length;
      line++;
      if (end > offset) {
        try {
          batch.push(JSON.parse(piece.toString('utf8', offset, end)) as RfcPage);
        } catch (err) {
          throw new Error(`${path}: line ${line} is not valid JSON: ${(err as Error).message}`);
        }
      }
      offset = end + 1;
    }
    remaining -= batch.length;
    if (batch.length > 0) yield batch;
    if (remaining <= 0) return;
  }
}

/**
 * The corpus page by page, streamed: memory stays small whatever the limit.
 *
 * @example
 * for await (const page of readRfcCorpus({ limit: 10_000 })) engine.add(page);
 */
export async function* readRfcCorpus(options: ReadRfcCorpusOptions = {}): AsyncGenerator<RfcPage> {
  for await (const batch of readRfcCorpusBatches(options)) yield* batch;
}

/**
 * The first `limit` pages (default all) as one array, for benchmarks that time indexing
 * without parsing. The whole corpus raises the RSS by about 700 MB, which fits Node's default
 * heap limit on a machine with 16 GB or more (else run node with `--max-old-space-size=2048`).
 */
export async function loadRfcCorpusIntoMemory(limit?: number, path?: string): Promise<RfcPage[]> {
  const pages: RfcPage[] = [];
  for await (const batch of readRfcCorpusBatches({ limit, path })) {
    for (const page of batch) pages.push(page);
  }
  return pages;
}

/** The decompressed file in pieces that end on a line boundary, from the worker. */
async function* readPieces(path: string): AsyncGenerator<Buffer> {
  const data: CorpusWorkerData = { path, chunkSize: CHUNK_SIZE, maxInFlight: MAX_IN_FLIGHT };
  const worker = new Worker(new URL('./rfc-corpus-worker.js', import.meta.url), { workerData: data });
  const queue: Array<Uint8Array | null> = [];
  let failure: Error | undefined;
  let exited = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  worker.on('message', (message: Uint8Array | null) => {
    queue.push(message);
    notify();
  });
  worker.on('error', (err) => {
    failure ??= new Error(`reading ${path} failed: ${err.message}`, { cause: err });
    notify();
  });
  worker.on('exit', () => {
    exited = true;
    notify();
  });
  try {
    for (;;) {
      while (queue.length === 0 && failure === undefined && !exited) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      const message = queue.shift();
      if (message === null) return;
      if (message !== undefined) {
        yield Buffer.from(message.buffer, message.byteOffset, message.byteLength);
        // The consumer is done with the piece: let the worker decompress another one.
        worker.postMessage(1);
        continue;
      }
      throw failure ?? new Error(`reading ${path} failed: the decompression worker ended early`);
    }
  } finally {
    await worker.terminate();
  }
}
