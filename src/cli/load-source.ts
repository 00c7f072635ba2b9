import { createReadStream, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';
import { SearchError } from '../errors.js';
import { UsageError } from './exit-codes.js';

/** One document to push. */
export interface LoadItem {
  key: string;
  content: Buffer | string;
  contentType?: string;
  metadata?: Record<string, string[]>;
  /** Where it came from, for error messages (file and line). */
  origin: string;
}

/** Documents and how far through the source the reading is. */
export interface LoadSource {
  items: AsyncIterable<LoadItem>;
  /** Fraction of the source read so far, 0..1 (for the ETA); undefined when unknown. */
  progress: () => number | undefined;
  /** What the source is, for the summary. */
  description: string;
}

/**
 * Opens a source for `load`: a folder (every file under it, keys `KEY_PREFIX + relative
 * path`, content types by extension) or a JSON-lines file (`.jsonl`, or brotli `.jsonl.br`)
 * in the RFC corpus format: one object a line with `key`, `text` (or `content`), and
 * optionally `title` (sent as metadata `title`), `contentType` and `metadata`.
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
  if (/\.jsonl(\.br)?$/i.test(path)) return jsonlSource(path, stats.size);
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
  let done = 0;
  async function* items(): AsyncGenerator<LoadItem> {
    for (const file of files) {
      const rel = relative(root, file).split(sep).map(encodeURIComponent).join('/');
      const content = await readFile(file);
      done++;
      yield {
        key: prefix.endsWith('/') ? prefix + rel : `${prefix}/${rel}`,
        content,
        contentType: contentTypes[extname(file).toLowerCase()],
        origin: file,
      };
    }
  }
  return {
    items: items(),
    progress: () => (files.length === 0 ? 1 : done / files.length),
    description: `${files.length} files under ${root}`,
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

function jsonlSource(path: string, size: number): LoadSource {
  const file = createReadStream(path);
  const text = path.toLowerCase().endsWith('.br') ? file.pipe(createBrotliDecompress()) : file;
  // A broken brotli stream must end the load with an error, not hang it.
  file.on('error', (error) => text.destroy(error));
  async function* items(): AsyncGenerator<LoadItem> {
    let line = 0;
    for await (const raw of createInterface({ input: text, crlfDelay: Infinity })) {
      line++;
      if (raw.trim() === '') continue;
      yield parseLine(raw, `${path}:${line}`);
    }
  }
  return { items: items(), progress: () => (size === 0 ? 1 : file.bytesRead / size), description: path };
}

function parseLine(raw: string, origin: string): LoadItem {
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
    key: record.key,
    content,
    contentType: typeof record.contentType === 'string' ? record.contentType : undefined,
    metadata,
    origin,
  };
}
