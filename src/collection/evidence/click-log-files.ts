import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { CLICK_LOG_FILE, type ClickRecord } from './click-log.js';

/** One click read from a log, validated. */
export interface LoggedClick {
  /** ms since the epoch. */
  time: number;
  query: string;
  url: string;
  rank: number;
}

/** What one read of a rotated log found. */
export interface ClickLogRead {
  clicks: LoggedClick[];
  /** Lines that were not a valid click (skipped). */
  bad: number;
  /** Offset just past the last complete line read: where the next read starts. */
  endOffset: number;
  /** The file's size when read; more than `endOffset` when its last line is incomplete. */
  size: number;
}

const ROTATED = /^clicks-(\d{15})-[0-9a-f]{8}\.log$/;

/**
 * The files of a collection's click log folder (`data/{collection}/clicks/`):
 *
 * - `clicks.log`: where `/s/redirect` appends (format: `src/collection/evidence/click-log.ts`);
 * - `pending/clicks-<ms>-<random>.log`: logs rotated out for processing (the rename is atomic,
 *   and the next click creates a new `clicks.log`);
 * - `processed/`: logs whose clicks are counted, kept for a retention period so that the
 *   click evidence can be rebuilt from them if its file is lost.
 *
 * Which clicks of a pending log are counted is recorded by the caller (an offset per file,
 * in the same atomic write as the weights), so a crash never counts a line twice or loses one.
 */
export class ClickLogFiles {
  readonly logFile: string;
  readonly pendingFolder: string;
  readonly processedFolder: string;

  constructor(readonly folder: string) {
    this.logFile = join(folder, CLICK_LOG_FILE);
    this.pendingFolder = join(folder, 'pending');
    this.processedFolder = join(folder, 'processed');
  }

  /** Moves a non-empty `clicks.log` to `pending/`; returns the new name, or undefined when there was nothing to rotate. */
  rotate(now: number): string | undefined {
    let size: number;
    try {
      size = statSync(this.logFile).size;
    } catch {
      return undefined;
    }
    if (size === 0) return undefined;
    mkdirSync(this.pendingFolder, { recursive: true });
    const name = `clicks-${String(Math.max(0, Math.floor(now))).padStart(15, '0')}-${randomBytes(4).toString('hex')}.log`;
    renameSync(this.logFile, join(this.pendingFolder, name));
    return name;
  }

  /** Rotated logs not yet finished, oldest first. */
  pending(): string[] {
    return listLogs(this.pendingFolder);
  }

  /** Finished logs kept for rebuilding, oldest first. */
  processed(): string[] {
    return listLogs(this.processedFolder);
  }

  /** When a rotated log was rotated (from its name). */
  static rotatedAt(name: string): number {
    const match = ROTATED.exec(name);
    return match === null ? 0 : Number(match[1]);
  }

  /** Reads the complete lines of a pending log from `offset` on. */
  readPending(name: string, offset: number): ClickLogRead {
    return readClicks(join(this.pendingFolder, name), offset);
  }

  /** Reads a whole processed log (rebuilding the evidence). */
  readProcessed(name: string): ClickLogRead {
    return readClicks(join(this.processedFolder, name), 0);
  }

  /** Moves a pending log to `processed/` once every line of it is counted. */
  finish(name: string): void {
    mkdirSync(this.processedFolder, { recursive: true });
    renameSync(join(this.pendingFolder, name), join(this.processedFolder, name));
  }

  /** Deletes processed logs rotated before `before` (ms); returns how many. */
  pruneProcessed(before: number): number {
    let removed = 0;
    for (const name of this.processed()) {
      if (ClickLogFiles.rotatedAt(name) >= before) break;
      rmSync(join(this.processedFolder, name), { force: true });
      removed++;
    }
    return removed;
  }
}

function listLogs(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => ROTATED.test(name))
    .sort();
}

function readClicks(path: string, offset: number): ClickLogRead {
  const fd = openSync(path, 'r');
  let bytes: Buffer;
  try {
    const size = statSync(path).size;
    bytes = Buffer.alloc(Math.max(0, size - offset));
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    bytes = bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
  const clicks: LoggedClick[] = [];
  let bad = 0;
  let start = 0;
  for (let end = bytes.indexOf(10); end >= 0; end = bytes.indexOf(10, start)) {
    const line = bytes.toString('utf8', start, end).trim();
    start = end + 1;
    if (line === '') continue;
    const click = parseClickLine(line);
    if (click === undefined) bad++;
    else clicks.push(click);
  }
  return { clicks, bad, endOffset: offset + start, size: offset + bytes.length };
}

/** A click-log line as a click; undefined when it is not one (bad JSON, no url, no valid time). */
export function parseClickLine(line: string): LoggedClick | undefined {
  let value: Partial<Record<keyof ClickRecord, unknown>>;
  try {
    value = JSON.parse(line) as typeof value;
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const time =
    typeof value.time === 'number'
      ? value.time
      : typeof value.time === 'string'
        ? Date.parse(value.time)
        : NaN;
  if (!Number.isFinite(time) || typeof value.url !== 'string' || value.url === '') return undefined;
  const rank = typeof value.rank === 'number' && value.rank >= 1 ? value.rank : 0;
  return { time, url: value.url, query: typeof value.query === 'string' ? value.query : '', rank };
}
