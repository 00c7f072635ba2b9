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

/** The last `limit` push.log lines of `collection`, newest first (unparsable lines skipped). */
export function lastErrors(file: string, collection: string, limit = 20): PushLogEntry[] {
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
    if (entry.collection !== collection) continue;
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
