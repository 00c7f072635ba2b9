import { PushApiError } from '../client/push-api-error.js';
import type { CommitResponse } from '../client/types.js';
import {
  CONNECTION_OPTIONS,
  intOption,
  makeClient,
  noMore,
  printJson,
  required,
  type CliArgs,
} from './cli-options.js';
import { describeError, EXIT } from './exit-codes.js';
import { openSource, type LoadItem } from './load-source.js';
import { ProgressLine, type LoadCounters } from './progress-line.js';
import { CONTENT_TYPES, type Command } from './remote-commands.js';

/** Failures printed one by one; the rest are only counted. */
const MAX_FAILURES_SHOWN = 10;

/** What `load --json` prints. */
export interface LoadSummary extends LoadCounters {
  source: string;
  seconds: number;
  docsPerSecond: number;
  megabytesPerSecond: number;
  commit: CommitResponse | null;
}

/**
 * `pushsearch load COLLECTION SOURCE`: pushes every document of a folder or a JSON-lines
 * file with N requests in flight, shows progress, retries what the client may retry (see
 * `PushClient`), prints a summary and commits at the end (also after failures: what was
 * stored should become searchable). Exit 0, or 7 when some documents failed.
 */
export const loadCommand: Command = {
  options: [...CONNECTION_OPTIONS, 'concurrency', 'limit', 'key-prefix', 'no-commit', 'retries'],
  usage: `Usage: pushsearch load COLLECTION SOURCE [options]
Pushes a folder of files, or a JSON-lines file (.jsonl or .jsonl.br, one object a line:
"key", "text" or "content", optional "title", "contentType", "metadata"), then commits.
  -c, --concurrency N   requests in flight (default 8)
  --limit N             stop after N documents
  --key-prefix URL      folder keys: URL + relative path (default the folder's file:// URL)
  --retries N           retries of a failed request (default 5)
  --no-commit           do not commit at the end
  --json                print the summary as JSON
Exit 7 when some documents could not be stored (the first ${MAX_FAILURES_SHOWN} are printed).`,
  async run(args: CliArgs) {
    const collection = required(args, 1, 'COLLECTION');
    const path = required(args, 2, 'SOURCE');
    noMore(args, 3);
    const concurrency = intOption(args, 'concurrency', 8, 1, 1024);
    const limit = intOption(args, 'limit', Number.MAX_SAFE_INTEGER, 1, Number.MAX_SAFE_INTEGER);
    const retries = intOption(args, 'retries', 5, 0, 100);
    const source = openSource(path, { keyPrefix: args.values['key-prefix'], contentTypes: CONTENT_TYPES });

    const counters: LoadCounters = { docs: 0, failed: 0, bytes: 0, retries: 0 };
    const client = await makeClient(args, {
      retries,
      maxSockets: concurrency,
      onRetry: () => counters.retries++,
    });
    const progress = new ProgressLine(counters, source.progress);
    const timer = setInterval(() => progress.tick(), 200);
    let taken = 0;
    let stopped: Error | undefined;
    const iterator = source.items[Symbol.asyncIterator]();

    const push = async (item: LoadItem): Promise<void> => {
      const size = typeof item.content === 'string' ? Buffer.byteLength(item.content) : item.content.length;
      try {
        await client.add(collection, item.key, item.content, {
          contentType: item.contentType,
          metadata: item.metadata,
        });
        counters.docs++;
        counters.bytes += size;
      } catch (error) {
        // A wrong password or a missing collection fails every document alike: stop at once.
        if (
          error instanceof PushApiError &&
          (error.status === 0 ||
            error.status === 401 ||
            error.status === 403 ||
            error.code === 'COLLECTION_NOT_FOUND')
        )
          throw error;
        counters.failed++;
        if (counters.failed <= MAX_FAILURES_SHOWN)
          process.stderr.write(`\nfailed ${item.origin} (${item.key}): ${describeError(error)}\n`);
      }
    };
    const worker = async (): Promise<void> => {
      while (stopped === undefined && taken < limit) {
        taken++;
        const next = await iterator.next();
        if (next.done === true) return;
        await push(next.value);
      }
    };

    let commit: CommitResponse | null = null;
    try {
      // Every worker ends before the error is thrown: no request still in flight after the exit.
      await Promise.allSettled(
        Array.from({ length: concurrency }, () =>
          worker().catch((error: unknown) => {
            stopped ??= error instanceof Error ? error : new Error(String(error));
          }),
        ),
      );
      if (stopped !== undefined) throw stopped;
      progress.finish();
      if (args.values['no-commit'] !== true && counters.docs > 0)
        commit = await client.commit(collection, true);
    } finally {
      clearInterval(timer);
      await client.close();
    }

    const seconds = progress.elapsedSeconds();
    const summary: LoadSummary = {
      source: source.description,
      ...counters,
      seconds: Number(seconds.toFixed(3)),
      docsPerSecond: Number((counters.docs / Math.max(seconds, 0.001)).toFixed(1)),
      megabytesPerSecond: Number((counters.bytes / 1e6 / Math.max(seconds, 0.001)).toFixed(2)),
      commit,
    };
    if (args.values.json === true) printJson(summary);
    else {
      process.stdout.write(
        `loaded ${summary.docs} documents (${(summary.bytes / 1e6).toFixed(2)} MB) from ${summary.source} in ${summary.seconds.toFixed(1)} s: ` +
          `${summary.docsPerSecond} docs/s, ${summary.megabytesPerSecond} MB/s, ${summary.retries} retries, ${summary.failed} failed\n` +
          (commit === null
            ? 'not committed\n'
            : `committed ${commit.changes} changes (generation ${commit.generation ?? 'none'})\n`),
      );
    }
    return counters.failed > 0 ? EXIT.PARTIAL : EXIT.OK;
  },
};
