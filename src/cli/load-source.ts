import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';
import { SearchError } from '../errors.js';
import { UsageError } from './exit-codes.js';
import { lineBatches } from './line-batches.js';

/** One document to push. */
export interface LoadItem {
  /**
   * Its place in the source: the line number in a JSON-lines file, the position (from 1) in
   * a folder's sorted file list. What a resume state counts.
   */
  record: number;
  key: string;
  content: Buffer | string;
  contentType?: string;
  metadata?: Record<string, string[]>;
  /** Where it came from, for error messages (file and line). */
  origin: string;
}

/** What {@link LoadSource.scan} found. */
export interface SourceScan {
  /** Documents among the first `limit` (fewer when the source ends first). */
  documents: number;
  /** The record number of the last of them (0 when none). */
  lastRecord: number;
  /** True when the source has no document after them. */
  complete: boolean;
  /** Identifies the content: a resume state is only used on the source it was made from. */
  fingerprint: string;
}

/** Documents of a folder or a JSON-lines file. */
export interface LoadSource {
  /** Absolute path of the folder or file. */
  path: string;
  /** What records are called in messages: `line` or `file`. */
  unit: 'line' | 'file';
  /** What the source is, for the summary. */
  description: string;
  /**
   * Counts the first `limit` documents and fingerprints the source, before the load (so that
   * progress and ETA are of what will be loaded, and a resume recognises the source). Reads a
   * JSON-lines file once more; a folder's files are only listed.
   */
  scan(limit: number): Promise<SourceScan>;
  /**
   * The documents from the start up to record `last` (see {@link SourceScan.lastRecord});
   * those `skip` says are not read or parsed: `null` is yielded in their place, so that the
   * caller can count what it skipped.
   */
  items(last: number, skip: (record: number) => boolean): AsyncIterable<LoadItem | null>;
}

/**
 * Opens a source for `load`: a folder (every file under it but hidden ones, keys
 * `KEY_PREFIX + relative path`, content types by extension) or a JSON-lines file (`.jsonl`,
 * or brotli `.jsonl.br`) in the RFC corpus format: one object a line with `key`, `text` (or
 * `content`), and optionally `title` (sent as metadata `title`), `contentType` and `metadata`.
 */
export function openSource(
  path: string,
  options: { keyPrefix?: string; contentTypes: Readonly<Record<string, string>> },
): LoadSource {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    throw new UsageError(`no file or folder ${path}`);
  }
  if (stats.isDirectory()) return folderSource(path, options.keyPrefix, options.contentTypes);
  if (/\.jsonl(\.br)?$/i.test(path)) return jsonlSource(resolve(path));
  throw new UsageError(`${path} is neither a folder nor a .jsonl or .jsonl.br file`);
}

function folderSource(
  folder: string,
  keyPrefix: string | undefined,
  contentTypes: Readonly<Record<string, string>>,
): LoadSource {
  const root = resolve(folder);
  const files = listFiles(root);
  const prefix = keyPrefix ?? pathToFileURL(root + sep).href;
  async function* items(last: number, skip: (record: number) => boolean): AsyncGenerator<LoadItem | null> {
    for (const [index, file] of files.slice(0, last).entries()) {
      const record = index + 1;
      if (skip(record)) {
        yield null;
        continue;
      }
      const rel = relative(root, file).split(sep).map(encodeURIComponent).join('/');
      yield {
        record,
        key: prefix.endsWith('/') ? prefix + rel : `${prefix}/${rel}`,
        content: await readFile(file),
        contentType: contentTypes[extname(file).toLowerCase()],
        origin: file,
      };
    }
  }
  return {
    path: root,
    unit: 'file',
    description: `${files.length} files under ${root}`,
    items,
    scan(limit) {
      // The file list is what record numbers mean here: a file added, removed or changed
      // (size, time) changes the fingerprint.
      const hash = createHash('sha256');
      for (const file of files) {
        const stats = statSync(file);
        hash.update(`${relative(root, file)}\0${stats.size}\0${stats.mtimeMs}\n`);
      }
      const documents = Math.min(limit, files.length);
      return Promise.resolve({
        documents,
        lastRecord: documents,
        complete: documents === files.length,
        fingerprint: `files:${hash.digest('hex')}`,
      });
    },
  };
}

function listFiles(folder: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    if (entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function jsonlSource(path: string): LoadSource {
  const compressed = path.toLowerCase().endsWith('.br');
  return {
    path,
    unit: 'line',
    description: path,
    async *items(last, skip) {
      for await (const batch of fileLines(path, compressed)) {
        for (const [line, raw] of batch) {
          if (line > last) return;
          yield skip(line) ? null : parseLine(raw.toString('utf8'), line, `${path}:${line}`);
        }
      }
    },
    async scan(limit) {
      const fingerprint = fileHash(path);
      let documents = 0;
      let lastRecord = 0;
      let complete = true;
      outer: for await (const batch of fileLines(path, compressed)) {
        for (const [line] of batch) {
          if (documents === limit) {
            complete = false;
            break outer;
          }
          documents++;
          lastRecord = line;
        }
      }
      return { documents, lastRecord, complete, fingerprint: `sha256:${await fingerprint}` };
    },
  };
}

/** The non-blank lines of the file (brotli-decompressed when `compressed`), a batch per chunk. */
async function* fileLines(path: string, compressed: boolean): AsyncGenerator<[number, Buffer][]> {
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  const input = compressed ? file.pipe(createBrotliDecompress()) : file;
  // A broken brotli stream must end the load with an error, not hang it.
  file.on('error', (error) => input.destroy(error));
  try {
    yield* lineBatches(input as AsyncIterable<Buffer>);
  } finally {
    input.destroy();
    file.destroy();
  }
}

/** SHA-256 of the file's bytes as stored (compressed or not). */
async function fileHash(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function parseLine(raw: string, line: number, origin: string): LoadItem {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new SearchError('LOAD_SOURCE_INVALID', `${origin}: not a JSON object`);
  }
  const content = record.text ?? record.content;
  if (typeof record.key !== 'string' || typeof content !== 'string') {
    throw new SearchError(
      'LOAD_SOURCE_INVALID',
      `${origin}: a line needs "key" and "text" (or "content") strings`,
    );
  }
  const metadata: Record<string, string[]> = {};
  if (typeof record.metadata === 'object' && record.metadata !== null) {
    for (const [name, value] of Object.entries(record.metadata as Record<string, unknown>)) {
      metadata[name] = (Array.isArray(value) ? value : [value]).map(String);
    }
  }
  if (typeof record.title === 'string' && metadata.title === undefined) metadata.title = [record.title];
  return {
    record: line,
    key: record.key,
    content,
    contentType: typeof record.contentType === 'string' ? record.contentType : undefined,
    metadata,
    origin,
  };
}
