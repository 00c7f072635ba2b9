import { appendFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SearchHome } from '../search-home.js';

/**
 * The click log: one line per click on a search result, written by `GET /s/redirect` and
 * read by click-log processing (ranking evidence). The file is the only contract between
 * the two, so its format is spelt out here.
 *
 * File: `data/{collection}/clicks/clicks.log` ({@link clickLogFile}), UTF-8, append-only.
 * Each line is one JSON object ({@link ClickRecord}) followed by `\n`; lines are written
 * with one `write` on a file opened with `O_APPEND`, so concurrent clicks never interleave
 * inside a line. A reader should skip a last line without its `\n` (a write in progress, or
 * cut by a crash) and any line that is not valid JSON, and must ignore fields it does not
 * know (new ones may be added; none is ever renamed). Processing may rename the file away
 * and process the renamed copy: the next click creates a new `clicks.log`.
 */

/** File name of the click log inside `data/{collection}/clicks/`. */
export const CLICK_LOG_FILE = 'clicks.log';

/** Longest query kept in a click line (longer ones are cut; the parser cuts at 2000 too). */
export const MAX_LOGGED_QUERY_LENGTH = 2000;

/** One click, as one line of the click log. */
export interface ClickRecord {
  /** When the click happened: ISO 8601 in UTC with milliseconds (`2024-05-01T12:00:00.000Z`). */
  time: string;
  /** The collection searched (a meta collection's name when the search was over one). */
  collection: string;
  /** The query as the user typed it (may be empty). */
  query: string;
  /** 1-based rank of the clicked result on the results page. */
  rank: number;
  /** The clicked result's URL (the document key, exactly as the result showed it). */
  url: string;
  /** The client's IP address, when known. */
  ip?: string;
}

/** Where a collection's click log lives. */
export function clickLogFile(home: SearchHome | string, collection: string): string {
  const searchHome = typeof home === 'string' ? new SearchHome(home) : home;
  return join(searchHome.clickLogFolder(collection), CLICK_LOG_FILE);
}

/** What {@link appendClick} did with a click. */
export type ClickAppend = 'logged' | 'log-full';

/**
 * Appends one click to the collection's click log (creating `clicks/` when missing) and
 * resolves once the line is written (not fsynced: a click lost in a power cut costs a
 * little ranking evidence, and a fsync per click would cost every user a disk flush).
 * The collection name is validated (it becomes a path); `time` may be given as a Date.
 *
 * `maxBytes` caps `clicks.log` (the clicks not yet processed): a line that would take it over
 * is not written (`'log-full'`), so that clicks never fill the disk the journal shares. The
 * next processing rotates the file away and logging resumes. Concurrent appends may pass the
 * cap by the few lines in flight.
 */
export async function appendClick(
  home: SearchHome | string,
  collection: string,
  click: Omit<ClickRecord, 'time'> & { time: string | Date },
  options: { maxBytes?: number } = {},
): Promise<ClickAppend> {
  const file = clickLogFile(home, collection);
  const record: ClickRecord = {
    time: typeof click.time === 'string' ? click.time : click.time.toISOString(),
    collection: click.collection,
    query:
      click.query.length > MAX_LOGGED_QUERY_LENGTH
        ? click.query.slice(0, MAX_LOGGED_QUERY_LENGTH)
        : click.query,
    rank: click.rank,
    url: click.url,
    ...(click.ip !== undefined && click.ip !== '' ? { ip: click.ip } : {}),
  };
  // JSON.stringify escapes line breaks inside strings, so a record is always one line.
  const line = JSON.stringify(record) + '\n';
  if (options.maxBytes !== undefined) {
    const size = await stat(file).then(
      (stats) => stats.size,
      () => 0,
    );
    if (size + Buffer.byteLength(line) > options.maxBytes) return 'log-full';
  }
  await mkdir(join(file, '..'), { recursive: true });
  await appendFile(file, line, { encoding: 'utf8', flag: 'a' });
  return 'logged';
}
