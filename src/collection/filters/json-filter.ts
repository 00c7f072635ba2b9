import { filterFailed } from './filter-failed.js';
import type { FilteredDocument } from './filtered-document.js';
import { MetadataCollector } from './metadata-collector.js';
import { normalizeNewlines } from './normalize-whitespace.js';

/**
 * Objects nested deeper than this still give their strings to `text`, but no metadata: a
 * dotted path grows with depth, so deep documents would make keys quadratic in size.
 */
const MAX_METADATA_DEPTH = 64;

/**
 * The JSON filter: `text` is every string value in document order, one a line; every
 * scalar (string, number, boolean) is metadata under its dotted path (`a.b`; array
 * elements take their array's path, so arrays flatten); a top-level string `title` is the
 * title. Invalid JSON is FILTER_FAILED (with line and column when the parser says where).
 */
export function jsonFilter(source: string): FilteredDocument {
  let root: unknown;
  try {
    root = JSON.parse(source);
  } catch (e) {
    const message = (e as Error).message;
    const at = /at position (\d+)/.exec(message);
    const where = at === null ? undefined : lineAndColumn(source, Number(at[1]));
    const position = where === undefined ? '' : ` at line ${where.line}, column ${where.column}`;
    throw filterFailed('Json', `invalid JSON${position}: ${message}`, { cause: e, details: { ...where } });
  }

  const metadata = new MetadataCollector();
  const strings: string[] = [];
  // An explicit stack, not recursion: JSON.parse accepts nesting far deeper than the call stack.
  const todo: { value: unknown; path: string; depth: number }[] = [{ value: root, path: '', depth: 0 }];
  while (todo.length > 0) {
    const { value, path, depth } = todo.pop()!;
    if (typeof value === 'string') {
      strings.push(value);
      if (path !== '') metadata.add(path, value);
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      if (path !== '') metadata.add(path, String(value));
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) todo.push({ value: value[i], path, depth });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      const deeper = depth + 1;
      for (const k of keys.toReversed()) {
        const childPath = path === '' && depth === 0 ? k : deeper > MAX_METADATA_DEPTH ? '' : `${path}.${k}`;
        todo.push({ value: (value as Record<string, unknown>)[k], path: childPath, depth: deeper });
      }
    }
  }

  const doc: FilteredDocument = {
    text: normalizeNewlines(strings.join('\n')),
    metadata: metadata.toRecord(),
    links: [],
  };
  if (root !== null && typeof root === 'object' && !Array.isArray(root)) {
    const title = (root as Record<string, unknown>).title;
    if (typeof title === 'string' && title.trim() !== '') doc.title = title.trim();
  }
  return doc;
}

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < position && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: position - lineStart + 1 };
}
