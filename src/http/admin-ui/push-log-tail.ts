import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';

/** One error line of push.log, as the admin UI shows it. */
export interface PushLogEntry {
  time: string;
  level: string;
  message: string;
  detail: string;
}

/** Bytes read from the end of push.log: recent errors are there, and the file may be large. */
const TAIL_BYTES = 512 * 1024;

/** Levels shown as errors; the other lines (info, warn) are events. */
const ERROR_LEVELS: ReadonlySet<string> = new Set(['error', 'fatal']);

/** The last `limit` errors (level error or fatal) of `collection` in push.log, newest first. */
export function lastErrors(file: string, collection: string, limit = 20): PushLogEntry[] {
  return lastLines(file, collection, limit, (level) => ERROR_LEVELS.has(level));
}

/** The last `limit` other push.log lines of `collection` (info, warn: what happened), newest first. */
export function lastEvents(file: string, collection: string, limit = 20): PushLogEntry[] {
  return lastLines(file, collection, limit, (level) => !ERROR_LEVELS.has(level));
}

/** The last `limit` push.log lines of `collection` whose level `accept`s, newest first (unparsable lines skipped). */
function lastLines(
  file: string,
  collection: string,
  limit: number,
  accept: (level: string) => boolean,
): PushLogEntry[] {
  if (!existsSync(file)) return [];
  const fd = openSync(file, 'r');
  let text: string;
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    readSync(fd, buffer, 0, buffer.length, start);
    text = buffer.toString('utf8');
    // The first line may be cut in half.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
  } finally {
    closeSync(fd);
  }
  const out: PushLogEntry[] = [];
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0 && out.length < limit; i--) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (entry.collection !== collection || !accept(asText(entry.level, ''))) continue;
    const err = entry.err as { message?: unknown; code?: unknown } | undefined;
    out.push({
      time: asText(entry.time, ''),
      level: asText(entry.level, ''),
      message: asText(entry.msg, ''),
      detail: [
        err?.code,
        err?.message,
        entry.generation === undefined ? undefined : `generation ${asText(entry.generation)}`,
      ]
        .filter((part) => part !== undefined && part !== null && part !== '')
        .map(String)
        .join(': '),
    });
  }
  return out;
}

/** A JSON value as text (strings as they are, anything else as JSON). */
function asText(value: unknown, fallback = ''): string {
  if (value === undefined || value === null) return fallback;
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? `${value}`
      : JSON.stringify(value);
}
