import { PushApiError } from '../client/push-api-error.js';
import type { CommitResponse } from '../client/types.js';
import { SearchError, isSearchError } from '../errors.js';
import {
  CONNECTION_OPTIONS,
  DEFAULT_URL,
  intOption,
  makeClient,
  noMore,
  printJson,
  required,
  serverUrl,
  type CliArgs,
} from './cli-options.js';
import { describeError, exitCodeFor, EXIT, UsageError } from './exit-codes.js';
import { LoadProgress, SAMPLE_MS, type LoadCounters } from './load-progress.js';
import {
  failureOf,
  finishedReport,
  MAX_FAILURES_KEPT,
  stoppedReport,
  type LoadFailure,
  type LoadSummary,
} from './load-report.js';
import { openSource, type LoadItem } from './load-source.js';
import {
  AcknowledgedRecords,
  defaultStatePath,
  identityMismatch,
  readLoadState,
  removeLoadState,
  writeLoadState,
  type LoadIdentity,
} from './load-state.js';
import { CONTENT_TYPES, type Command } from './remote-commands.js';

export type { LoadSummary } from './load-report.js';

/** Failures printed as they happen (all are counted, the first ones kept for the summary). */
const MAX_FAILURES_SHOWN = 10;
/** How often the resume state is written while the load runs (a lagging state only re-sends). */
const STATE_WRITE_MS = 1000;

/** A Ctrl-C: the load stops taking documents, waits for those in flight and reports. */
class LoadInterrupted extends Error {
  constructor() {
    super('interrupted (Ctrl-C or SIGTERM)');
    this.name = 'LoadInterrupted';
  }
}

/**
 * `pushsearch load COLLECTION SOURCE`: pushes the documents of a folder or a JSON-lines file
 * with N requests in flight, shows progress (of what this run sends), retries what the client
 * may retry (see `PushClient`), commits at the end (also after failures: what was stored
 * should become searchable) and reports read / stored / failed / skipped / committed.
 *
 * Resume: every acknowledged record (line or file number) is noted in a state file (see
 * `load-state.ts`) once a second and when the load stops. `--resume` skips the records it
 * lists, if it was made from the same source (fingerprint), collection, server and key
 * prefix. An acknowledged document is durable on the server, so skipping it is safe; one in
 * flight when the load stopped is not listed and is sent again, which a PUT allows.
 */
export const loadCommand: Command = {
  options: [
    ...CONNECTION_OPTIONS,
    'concurrency',
    'limit',
    'key-prefix',
    'no-commit',
    'retries',
    'resume',
    'state',
    'progress-interval',
  ],
  usage: `Usage: pushsearch load COLLECTION SOURCE [options]
Pushes a folder of files, or a JSON-lines file (.jsonl or .jsonl.br, one object a line:
"key", "text" or "content", optional "title", "contentType", "metadata"), then commits.
  -c, --concurrency N       requests in flight (default 8)
  --limit N                 only the first N documents of the source
  --key-prefix URL          folder keys: URL + relative path (default the folder's file:// URL)
  --retries N               retries of a failed request (default 5)
  --no-commit               do not commit at the end
  --resume                  skip the documents an earlier load of the same source acknowledged
  --state FILE              the resume state (default under $XDG_STATE_HOME/pushsearch/loads/)
  --progress-interval S     seconds between progress lines when stderr is not a terminal (default 10)
  --json                    print the summary as JSON
Progress goes to stderr; the summary (read, stored, failed, skipped, committed) to stdout.
Exit 7 when some documents could not be stored (the first ${MAX_FAILURES_KEPT} are listed); 6 when the
server stopped answering (the counts so far and how to resume are printed); 130 after Ctrl-C.`,
  async run(args: CliArgs) {
    const collection = required(args, 1, 'COLLECTION');
    const path = required(args, 2, 'SOURCE');
    noMore(args, 3);
    const concurrency = intOption(args, 'concurrency', 8, 1, 1024);
    const limit = intOption(args, 'limit', Number.MAX_SAFE_INTEGER, 1, Number.MAX_SAFE_INTEGER);
    const retries = intOption(args, 'retries', 5, 0, 100);
    const logIntervalMs = secondsOption(args, 'progress-interval', 10, 0.05, 86_400) * 1000;
    const keyPrefix = args.values['key-prefix'];
    const source = openSource(path, { keyPrefix, contentTypes: CONTENT_TYPES });
    const url = normalizeUrl(serverUrl(args) ?? DEFAULT_URL);

    const scan = await source.scan(limit);
    const identity: LoadIdentity = {
      source: source.path,
      fingerprint: scan.fingerprint,
      collection,
      url,
      keyPrefix: keyPrefix ?? null,
    };
    const statePath = args.values.state ?? defaultStatePath(identity, args.env);
    const acknowledged = previousAcknowledged(args.values.resume === true, statePath, identity, source.unit);

    const counters: LoadCounters = { read: 0, stored: 0, failed: 0, skipped: 0, bytes: 0, retries: 0 };
    const failures: LoadFailure[] = [];
    const failuresByCode: Record<string, number> = {};
    const client = await makeClient(args, {
      retries,
      maxSockets: concurrency,
      onRetry: () => counters.retries++,
    });
    const total = scan.documents - acknowledged.countUpTo(scan.lastRecord);
    const progress = new LoadProgress(counters, total, { logIntervalMs });

    let stateWritten = -1;
    const saveState = (): void => {
      if (acknowledged.size === stateWritten) return;
      writeLoadState(statePath, { ...identity, acknowledged, updated: new Date().toISOString() });
      stateWritten = acknowledged.size;
    };
    try {
      saveState();
    } catch (error) {
      await client.close();
      throw new UsageError(
        `cannot write the resume state ${statePath} (${(error as Error).message}): give --state FILE in a writable folder`,
      );
    }

    let stopped: unknown;
    const items = source.items(scan.lastRecord, (record) => acknowledged.has(record))[Symbol.asyncIterator]();
    const push = async (item: LoadItem): Promise<void> => {
      try {
        await client.add(collection, item.key, item.content, {
          contentType: item.contentType,
          metadata: item.metadata,
        });
        acknowledged.add(item.record);
        counters.stored++;
        counters.bytes +=
          typeof item.content === 'string' ? Buffer.byteLength(item.content) : item.content.length;
      } catch (error) {
        if (stopsTheLoad(error)) throw error;
        counters.failed++;
        const failure = failureOf(item.origin, item.key, error);
        failuresByCode[failure.code] = (failuresByCode[failure.code] ?? 0) + 1;
        if (failures.length < MAX_FAILURES_KEPT) failures.push(failure);
        if (counters.failed <= MAX_FAILURES_SHOWN)
          progress.note(`failed ${item.origin} (${item.key}): ${describeError(error)}`);
      }
    };
    const worker = async (): Promise<void> => {
      while (stopped === undefined) {
        const next = await items.next();
        if (next.done === true) return;
        counters.read++;
        if (next.value === null) counters.skipped++;
        else await push(next.value);
      }
    };
    const interrupt = (): void => {
      stopped ??= new LoadInterrupted();
    };

    progress.start();
    let lastStateWrite = Date.now();
    const timer = setInterval(() => {
      progress.sample();
      if (Date.now() - lastStateWrite >= STATE_WRITE_MS) {
        lastStateWrite = Date.now();
        saveState();
      }
    }, SAMPLE_MS);
    process.once('SIGINT', interrupt);
    process.once('SIGTERM', interrupt);
    let commit: CommitResponse | null = null;
    let collectionDocuments: number | null = null;
    try {
      // Every worker ends before the load reports: no request still in flight after it.
      await Promise.allSettled(
        Array.from({ length: concurrency }, () =>
          worker().catch((error: unknown) => {
            stopped ??= error;
          }),
        ),
      );
      clearInterval(timer);
      progress.stop();
      saveState();
      if (stopped === undefined && args.values['no-commit'] !== true) {
        try {
          commit = await client.commit(collection, true);
          collectionDocuments = (await client.state(collection)).documents ?? null;
        } catch (error) {
          stopped = error;
        }
      }
    } finally {
      clearInterval(timer);
      process.removeListener('SIGINT', interrupt);
      process.removeListener('SIGTERM', interrupt);
      await client.close();
    }

    // Nothing left to resume: the whole source acknowledged, and committed unless told not to.
    const finished =
      stopped === undefined &&
      scan.complete &&
      counters.failed === 0 &&
      acknowledged.countUpTo(scan.lastRecord) >= scan.documents;
    if (finished) removeLoadState(statePath);
    const seconds = progress.elapsedSeconds();
    const summary: LoadSummary = {
      source: source.description,
      collection,
      documents: scan.documents,
      ...counters,
      seconds: Number(seconds.toFixed(3)),
      docsPerSecond: Number((counters.stored / Math.max(seconds, 0.001)).toFixed(1)),
      megabytesPerSecond: Number((counters.bytes / 1e6 / Math.max(seconds, 0.001)).toFixed(2)),
      failures,
      failuresByCode,
      commit,
      committed: commit === null ? null : counters.stored + counters.skipped,
      collectionDocuments,
      notStored: counters.read - counters.skipped - counters.stored - counters.failed,
      stoppedBy:
        stopped === undefined
          ? null
          : {
              code: isSearchError(stopped) ? stopped.code : 'INTERRUPTED',
              status: stopped instanceof PushApiError ? stopped.status : null,
              message: stopped instanceof Error ? stopped.message : String(stopped as string),
            },
      state: finished ? null : statePath,
    };
    if (args.values.json === true) printJson(summary);
    if (stopped !== undefined) {
      process.stderr.write(stoppedReport(summary, stopped, url));
      return stopped instanceof LoadInterrupted ? EXIT.INTERRUPTED : exitCodeFor(stopped);
    }
    if (args.values.json !== true) process.stdout.write(finishedReport(summary));
    return counters.failed > 0 ? EXIT.PARTIAL : EXIT.OK;
  },
};

/**
 * The records an earlier load acknowledged, when `--resume` asks for them and the state is of
 * this very load; otherwise none (a note says when a resumable state is there but unused).
 */
function previousAcknowledged(
  resume: boolean,
  statePath: string,
  identity: LoadIdentity,
  unit: string,
): AcknowledgedRecords {
  if (!resume) {
    try {
      const earlier = readLoadState(statePath);
      if (
        earlier !== undefined &&
        identityMismatch(earlier, identity) === undefined &&
        earlier.acknowledged.size > 0
      )
        process.stderr.write(
          `note: an earlier load of this source stored ${earlier.acknowledged.size} documents; this one sends every document again (--resume skips those)\n`,
        );
    } catch {
      // An unreadable state is replaced by this load's.
    }
    return new AcknowledgedRecords();
  }
  const state = readLoadState(statePath);
  if (state === undefined) {
    process.stderr.write(`note: no resume state at ${statePath}: loading from the start\n`);
    return new AcknowledgedRecords();
  }
  const mismatch = identityMismatch(state, identity);
  if (mismatch !== undefined)
    throw new SearchError(
      'LOAD_STATE_MISMATCH',
      `cannot resume from ${statePath}: ${mismatch}. Load without --resume (documents are sent again, which is safe), or give the state of this load with --state`,
    );
  process.stderr.write(
    `resuming: skipping ${state.acknowledged.size} documents acknowledged by the load of ${state.updated} (${state.acknowledged.describe(unit)})\n`,
  );
  return state.acknowledged;
}

/**
 * Errors after which sending more documents is pointless: the server is gone or unavailable
 * (no answer, 503 after the retries), or refuses every document alike (credentials, a
 * missing collection).
 */
function stopsTheLoad(error: unknown): boolean {
  return (
    error instanceof PushApiError &&
    (error.status === 0 ||
      error.status === 503 ||
      error.status === 401 ||
      error.status === 403 ||
      error.code === 'COLLECTION_NOT_FOUND')
  );
}

/** The URL as the state records it (`http://host:port/prefix`, no trailing slash). */
function normalizeUrl(url: string): string {
  try {
    return new URL(url).href.replace(/\/+$/, '');
  } catch {
    throw new UsageError(`--url must be a URL such as ${DEFAULT_URL}, got ${JSON.stringify(url)}`);
  }
}

/** A number of seconds (decimals allowed) within bounds, or its default. */
function secondsOption(
  args: CliArgs,
  name: 'progress-interval',
  fallback: number,
  min: number,
  max: number,
): number {
  const text = args.values[name];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || value < min || value > max)
    throw new UsageError(
      `--${name} must be a number of seconds from ${min} to ${max}, got ${JSON.stringify(text)}`,
    );
  return value;
}
