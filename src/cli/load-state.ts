import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { SearchError } from '../errors.js';
import { writeFileAtomically } from '../security/user-store.js';

/** The first line of the format; a reader refuses any other. */
const FORMAT = 'pushsearch-load-state/1';

/**
 * Record numbers (line numbers of a JSON-lines file, positions of a folder's files) the
 * server acknowledged, as sorted inclusive ranges. Acknowledgements arrive out of order (N
 * requests in flight) and failed records leave gaps, so a single "resume from" number would
 * either skip a gap or re-send everything after it; the ranges stay few (about one per gap).
 */
export class AcknowledgedRecords {
  private readonly ranges: [number, number][] = [];

  /** From {@link toJSON}'s ranges; throws a `TypeError` when they are not sorted, apart, whole numbers. */
  constructor(ranges: readonly (readonly [number, number])[] = []) {
    let previous = 0;
    for (const [start, end] of ranges) {
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= previous || end < start)
        throw new TypeError('acknowledged ranges must be sorted, apart and whole numbers from 1');
      const last = this.ranges.at(-1);
      if (start === previous + 1 && last !== undefined) last[1] = end;
      else this.ranges.push([start, end]);
      previous = end;
    }
  }

  /** Marks record `n` acknowledged. */
  add(n: number): void {
    const ranges = this.ranges;
    // Acknowledgements come mostly near the end: search from there. `left` is the last range
    // starting at or before n (none: -1), `right` the one after it.
    const i = ranges.findLastIndex(([start]) => start <= n);
    const left = ranges[i];
    const right = ranges[i + 1];
    if (left !== undefined && n <= left[1]) return;
    const joinsLeft = left !== undefined && left[1] === n - 1;
    const joinsRight = right !== undefined && right[0] === n + 1;
    if (joinsLeft && joinsRight) {
      left[1] = right[1];
      ranges.splice(i + 1, 1);
    } else if (joinsLeft) left[1] = n;
    else if (joinsRight) right[0] = n;
    else ranges.splice(i + 1, 0, [n, n]);
  }

  has(n: number): boolean {
    // The ranges are sorted and apart: only the last one starting at or before n can hold it.
    const range = this.ranges.findLast(([start]) => start <= n);
    return range !== undefined && n <= range[1];
  }

  /** How many records up to and including `last` are acknowledged. */
  countUpTo(last: number): number {
    let count = 0;
    for (const [start, end] of this.ranges) {
      if (start > last) break;
      count += Math.min(end, last) - start + 1;
    }
    return count;
  }

  get size(): number {
    return this.countUpTo(Number.MAX_SAFE_INTEGER);
  }

  toJSON(): [number, number][] {
    return this.ranges.map(([start, end]) => [start, end]);
  }

  /** `1-4500, 4502-4600` (the first few ranges; the rest counted). */
  describe(unit: string): string {
    if (this.ranges.length === 0) return `no ${unit}s`;
    const shown = this.ranges.slice(0, 3).map(([s, e]) => (s === e ? `${s}` : `${s}-${e}`));
    const more = this.ranges.length > 3 ? ` and ${this.ranges.length - 3} more ranges` : '';
    return `${unit}s ${shown.join(', ')}${more}`;
  }
}

/** What a state file belongs to: resuming into anything else would skip the wrong documents. */
export interface LoadIdentity {
  /** Absolute path of the source. */
  source: string;
  /** The source's content (see `LoadSource.fingerprint`). */
  fingerprint: string;
  collection: string;
  /** The server URL (a different server has none of the acknowledged documents). */
  url: string;
  /** `--key-prefix` (it makes a folder's keys); null when not given. */
  keyPrefix: string | null;
}

/** A state file's content. */
export interface LoadState extends LoadIdentity {
  acknowledged: AcknowledgedRecords;
  /** When it was last written (ISO 8601), for messages. */
  updated: string;
}

/**
 * Where the state of a load lives unless `--state` says: under `$XDG_STATE_HOME/pushsearch/loads`
 * (default `~/.local/state`), named by collection, source file name and a hash of the full
 * identity, so that two loads of different sources or into different collections never share
 * one, and a read-only source (the corpus under `shared/`) can be resumed too.
 */
export function defaultStatePath(
  identity: Pick<LoadIdentity, 'source' | 'collection' | 'url'>,
  env: NodeJS.ProcessEnv,
): string {
  const base =
    env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME !== ''
      ? env.XDG_STATE_HOME
      : join(homedir(), '.local', 'state');
  const hash = createHash('sha256')
    .update(JSON.stringify([identity.source, identity.collection, identity.url]))
    .digest('hex')
    .slice(0, 12);
  const name = `${identity.collection}-${basename(identity.source).replace(/[^\w.-]+/g, '_')}-${hash}.json`;
  return join(base, 'pushsearch', 'loads', name);
}

/** The state in `path`; undefined when there is no such file. */
export function readLoadState(path: string): LoadState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SearchError(
      'LOAD_STATE_INVALID',
      `cannot read the load state ${path}: ${(error as Error).message}`,
    );
  }
  const invalid = (problem: string): SearchError =>
    new SearchError(
      'LOAD_STATE_INVALID',
      `the load state ${path} ${problem}: delete it and load without --resume (re-sending is safe)`,
    );
  const newline = text.indexOf('\n');
  if (newline < 0 || text.slice(0, newline) !== FORMAT) throw invalid(`is not a ${FORMAT} file`);
  const body = text.slice(newline + 1);
  const end = body.lastIndexOf('\nsha256 ');
  if (end < 0 || body.slice(end + 8).trim() !== sha256(body.slice(0, end)))
    throw invalid('fails its checksum');
  try {
    const parsed = JSON.parse(body.slice(0, end)) as Omit<LoadState, 'acknowledged'> & {
      acknowledged: [number, number][];
    };
    return { ...parsed, acknowledged: new AcknowledgedRecords(parsed.acknowledged) };
  } catch (error) {
    throw invalid(`is not readable: ${(error as Error).message}`);
  }
}

/**
 * Writes the state so that a crash leaves the previous or the new one (temporary file, fsync,
 * rename): `FORMAT` on the first line, JSON, then the SHA-256 of that JSON on the last.
 */
export function writeLoadState(path: string, state: LoadState): void {
  const json = JSON.stringify({
    source: state.source,
    fingerprint: state.fingerprint,
    collection: state.collection,
    url: state.url,
    keyPrefix: state.keyPrefix,
    updated: state.updated,
    acknowledged: state.acknowledged.toJSON(),
  });
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileAtomically(path, `${FORMAT}\n${json}\nsha256 ${sha256(json)}\n`, 0o644);
}

/** Removes the state (the load is complete: nothing to resume). */
export function removeLoadState(path: string): void {
  rmSync(path, { force: true });
}

/** The first identity field that differs, for the message; undefined when they match. */
export function identityMismatch(state: LoadIdentity, current: LoadIdentity): string | undefined {
  if (state.source !== current.source) return `it is of a load of ${state.source}`;
  if (state.fingerprint !== current.fingerprint)
    return `${current.source} changed since (its content or file list is not the one the state counts)`;
  if (state.collection !== current.collection) return `it is of a load into collection ${state.collection}`;
  if (state.url !== current.url) return `it is of a load to ${state.url}`;
  if (state.keyPrefix !== current.keyPrefix)
    return `it is of a load with --key-prefix ${state.keyPrefix ?? '(none)'}`;
  return undefined;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
