import { availableParallelism } from 'node:os';
import { ConfigFileError } from './config-file-error.js';
import { parseFilterChain } from '../filters/filter-chain.js';
import { parseQueryProcessorOptions } from './query-processor-options.js';

export { parseQueryProcessorOptions, serializeQueryProcessorOptions } from './query-processor-options.js';

/**
 * The resolved configuration of one collection: `collection.cfg` read over `global.cfg`.
 *
 * - Every key of {@link CONFIG_KEYS} has a typed field with its default; a collection key set
 *   in global.cfg is the default for every collection, collection.cfg overrides it.
 * - Installation-wide keys (`file: 'global.cfg'`: worker threads, request size) are read from
 *   global.cfg only: one thread pool and one HTTP body limit serve every collection. Set in
 *   collection.cfg they are ignored with a warning, not an error, so a misplaced line does
 *   not stop the collection.
 * - Values are validated: integers (`/^[+-]?\d+$/`) within the key's range, booleans exactly
 *   `true` or `false` (any case), query processor options must parse. All problems are
 *   reported together in one `CONFIG_INVALID` error, each naming the key and the file.
 * - Keys we do not know are kept as raw strings in `extra` (the admin UI shows them, and
 *   other parts such as the results page may read them).
 */

type KeyKind = 'integer' | 'boolean' | 'string' | 'optional-string';

/** Description of a known configuration key (also rendered by the admin UI). */
export interface ConfigKeySpec {
  readonly key: string;
  /** Where the key belongs. Collection keys may also be set in global.cfg as defaults. */
  readonly file: 'collection.cfg' | 'global.cfg';
  readonly kind: KeyKind;
  /** The default as it would be written in the file; `undefined`: unset (see description). */
  readonly defaultText: string | undefined;
  readonly min?: number;
  readonly max?: number;
  readonly description: string;
}

/** Every key the service reads, in the order of the contract's table. */
export const CONFIG_KEYS: readonly ConfigKeySpec[] = Object.freeze([
  {
    key: 'push.auto-commit.timeout-seconds',
    file: 'collection.cfg',
    kind: 'integer',
    defaultText: '30',
    min: 0,
    max: 604800,
    description:
      'Commit staged changes this many seconds after the first uncommitted change; 0 turns the timer off.',
  },
  {
    key: 'push.auto-commit.max-changes',
    file: 'collection.cfg',
    kind: 'integer',
    defaultText: '10000',
    min: 0,
    max: 10000000,
    description: 'Commit as soon as this many changes are staged; 0 turns the threshold off.',
  },
  {
    key: 'push.max-generations',
    file: 'collection.cfg',
    kind: 'integer',
    defaultText: '64',
    min: 2,
    max: 10000,
    description:
      'Most generations a collection may have; commits are refused (503) when merges cannot keep below it.',
  },
  {
    key: 'push.scheduler.killed-percentage-for-reindex',
    file: 'collection.cfg',
    kind: 'integer',
    defaultText: '50',
    min: 1,
    max: 100,
    description:
      'A generation with at least this percentage of killed documents is rewritten; lower saves memory, costs CPU.',
  },
  {
    key: 'push.create-snapshot-on-merge-failure',
    file: 'collection.cfg',
    kind: 'boolean',
    defaultText: 'false',
    description: 'When a merge fails, create snapshot ServiceInternal-merge-failed-<generation>.',
  },
  {
    key: 'push.worker-thread-count',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: undefined,
    min: 1,
    max: 1024,
    description: 'Threads for merges and commits; default: the number of CPU cores.',
  },
  {
    key: 'push.max-request-bytes',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: '52428800',
    min: 1024,
    max: 2147483647,
    description: 'Largest request body accepted, in bytes; larger ones are answered 413.',
  },
  {
    key: 'server.body-idle-timeout-seconds',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: '30',
    min: 1,
    max: 86400,
    description:
      'A document body during which no byte arrives for this long is answered 408 and its connection closed.',
  },
  {
    key: 'server.body-min-bytes-per-second',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: '1024',
    min: 0,
    max: 1073741824,
    description:
      'A document body slower than this on average over server.body-idle-timeout-seconds is answered 408 and its connection closed; 0 turns the minimum off.',
  },
  {
    key: 'server.request-timeout-seconds',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: '600',
    min: 1,
    max: 86400,
    description: 'Longest time a client may take to send a whole request (headers and body); then 408.',
  },
  {
    key: 'search.thread-count',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: undefined,
    min: 0,
    max: 256,
    description:
      'Threads that run queries (parsing, scoring, summaries, facets, spelling); default: the number of CPU cores; 0 runs queries on the event loop.',
  },
  {
    key: 'search.timeout-ms',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: '2000',
    min: 1,
    max: 600000,
    description:
      'Work budget of one query in milliseconds, waiting included; past it the query answers what it found, flagged timedOut in resultsSummary.',
  },
  {
    key: 'search.max-prefix-terms',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: '256',
    min: 1,
    max: 65536,
    description:
      'Most terms one truncated word (word*) expands to (the most frequent ones); a query that met the cap is flagged prefixTermsCapped.',
  },
  {
    key: 'search.queue-size',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: '64',
    min: 0,
    max: 100000,
    description:
      'Queries that may wait while every search thread is busy; one more is answered 503 SEARCH_OVERLOADED with Retry-After.',
  },
  {
    key: 'search.clicks.max-per-minute',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: '120',
    min: 0,
    max: 1000000,
    description:
      'Clicks (/s/redirect) one client address (an IPv6 /64) may make per minute; more are answered 429 CLICK_RATE_LIMITED with Retry-After; 0: no limit.',
  },
  {
    key: 'search.clicks.dedupe-seconds',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: '3600',
    min: 0,
    max: 604800,
    description:
      'A click by one address on one result for one query is logged once within this many seconds (repeats are redirected, not counted); 0: every click counts.',
  },
  {
    key: 'search.clicks.max-log-bytes',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: '67108864',
    min: 4096,
    max: 1099511627776,
    description:
      'Largest unprocessed click log of a collection (data/{c}/clicks/clicks.log); past it clicks are redirected but not logged until the log is processed (push.log says so).',
  },
  {
    key: 'filter.classes',
    file: 'collection.cfg',
    kind: 'optional-string',
    defaultText: undefined,
    description:
      'Filter chain run on every document (same syntax as the filters parameter); unset: chosen by content type.',
  },
  {
    key: 'query_processor_options',
    file: 'collection.cfg',
    kind: 'string',
    defaultText: '-anniemode=3',
    description:
      'Query processor flags, -name=value separated by spaces. A value replaces the default entirely.',
  },
  {
    key: 'indexer_options',
    file: 'collection.cfg',
    kind: 'string',
    defaultText: '',
    description: 'Indexer options; changes take effect after a RE_INDEX vacuum.',
  },
] satisfies ConfigKeySpec[]);

const SPEC_BY_KEY = new Map(CONFIG_KEYS.map((spec) => [spec.key, spec]));

/** The installation-wide part of the configuration (global.cfg only). */
export interface GlobalConfig {
  /** `push.worker-thread-count`. */
  readonly workerThreadCount: number;
  /** `push.max-request-bytes`. */
  readonly maxRequestBytes: number;
  /** `server.body-idle-timeout-seconds`. */
  readonly bodyIdleTimeoutSeconds: number;
  /** `server.body-min-bytes-per-second`; 0: no minimum. */
  readonly bodyMinBytesPerSecond: number;
  /** `server.request-timeout-seconds`. */
  readonly requestTimeoutSeconds: number;
  /** `search.thread-count` (0: queries run on the event loop). */
  readonly searchThreadCount: number;
  /** `search.timeout-ms`. */
  readonly searchTimeoutMs: number;
  /** `search.max-prefix-terms`. */
  readonly searchMaxPrefixTerms: number;
  /** `search.queue-size`. */
  readonly searchQueueSize: number;
  /** `search.clicks.max-per-minute` (0: no limit). */
  readonly clicksMaxPerMinute: number;
  /** `search.clicks.dedupe-seconds` (0: no dedupe). */
  readonly clicksDedupeSeconds: number;
  /** `search.clicks.max-log-bytes`. */
  readonly clicksMaxLogBytes: number;
}

/** The resolved configuration of one collection. */
export interface CollectionConfig extends GlobalConfig {
  /** `push.auto-commit.timeout-seconds`; 0: no timer. */
  readonly autoCommitTimeoutSeconds: number;
  /** `push.auto-commit.max-changes`; 0: no threshold. */
  readonly autoCommitMaxChanges: number;
  /** `push.max-generations`. */
  readonly maxGenerations: number;
  /** `push.scheduler.killed-percentage-for-reindex`, 1..100. */
  readonly killedPercentageForReindex: number;
  /** `push.create-snapshot-on-merge-failure`. */
  readonly createSnapshotOnMergeFailure: boolean;
  /**
   * `filter.classes` as written (trimmed). `undefined` when the key is not set anywhere: the
   * filters are chosen by content type. An empty string is passed on as set.
   */
  readonly filterClasses: string | undefined;
  /** `query_processor_options` as written. */
  readonly queryProcessorOptions: string;
  /** {@link queryProcessorOptions} parsed: flag name → value. */
  readonly queryProcessorFlags: ReadonlyMap<string, string>;
  /** `indexer_options` as written. */
  readonly indexerOptions: string;
  /** Keys not in {@link CONFIG_KEYS}, raw (collection.cfg over global.cfg). */
  readonly extra: ReadonlyMap<string, string>;
  /** Where each set key's value came from. */
  readonly sources: ReadonlyMap<string, 'collection.cfg' | 'global.cfg'>;
  /** Problems that did not stop the collection (e.g. a global-only key in collection.cfg). */
  readonly warnings: readonly string[];
}

type Entries = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

/** Inputs of {@link resolveCollectionConfig}. */
export interface ConfigSources {
  /** Entries of collection.cfg (see `parseCfg`). */
  collection?: Entries;
  /** Entries of global.cfg. */
  global?: Entries;
  /** Name used for collection.cfg in messages, e.g. `conf/news/collection.cfg`. */
  collectionFile?: string;
  /** Name used for global.cfg in messages. */
  globalFile?: string;
  /** CPU count used for the default worker thread count (tests); default `os.availableParallelism()`. */
  cpuCount?: number;
}

/**
 * Resolves a collection's configuration. Throws one {@link ConfigFileError}
 * (`CONFIG_INVALID`) listing every invalid value; `details.problems` holds them one by one.
 */
export function resolveCollectionConfig(sources: ConfigSources): CollectionConfig {
  const collectionFile = sources.collectionFile ?? 'collection.cfg';
  const globalFile = sources.globalFile ?? 'global.cfg';
  const collection = toMap(sources.collection);
  const global = toMap(sources.global);
  const problems: { file: string; message: string }[] = [];
  const warnings: string[] = [];
  const sourceOf = new Map<string, 'collection.cfg' | 'global.cfg'>();

  for (const key of collection.keys()) {
    const spec = SPEC_BY_KEY.get(key);
    if (spec?.file === 'global.cfg') {
      warnings.push(
        `${collectionFile}: ${key} is installation-wide and is read from ${globalFile} only; this line is ignored`,
      );
    }
  }

  // The raw text of a key and the file it came from.
  const lookup = (spec: ConfigKeySpec): { text: string; file: string } | undefined => {
    if (spec.file === 'collection.cfg' && collection.has(spec.key)) {
      sourceOf.set(spec.key, 'collection.cfg');
      return { text: collection.get(spec.key) as string, file: collectionFile };
    }
    if (global.has(spec.key)) {
      sourceOf.set(spec.key, 'global.cfg');
      return { text: global.get(spec.key) as string, file: globalFile };
    }
    return undefined;
  };

  const integer = (key: string, fallback?: number): number => {
    const spec = SPEC_BY_KEY.get(key) as ConfigKeySpec;
    const found = lookup(spec);
    const text = found?.text ?? spec.defaultText;
    if (text === undefined) return fallback as number;
    const min = spec.min ?? Number.MIN_SAFE_INTEGER;
    const max = spec.max ?? Number.MAX_SAFE_INTEGER;
    const value = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
    if (!(value >= min && value <= max)) {
      problems.push({
        file: found?.file ?? 'default',
        message: `${key} must be a whole number from ${min} to ${max}, found ${JSON.stringify(text)}`,
      });
      return Number(spec.defaultText ?? fallback);
    }
    return value;
  };

  const boolean = (key: string): boolean => {
    const spec = SPEC_BY_KEY.get(key) as ConfigKeySpec;
    const found = lookup(spec);
    const text = (found?.text ?? spec.defaultText ?? 'false').toLowerCase();
    if (text !== 'true' && text !== 'false') {
      problems.push({
        file: found?.file ?? 'default',
        message: `${key} must be true or false, found ${JSON.stringify(found?.text)}`,
      });
      return spec.defaultText === 'true';
    }
    return text === 'true';
  };

  const string = (key: string): string | undefined => {
    const spec = SPEC_BY_KEY.get(key) as ConfigKeySpec;
    return lookup(spec)?.text ?? spec.defaultText;
  };

  const cpuCount = sources.cpuCount ?? availableParallelism();
  const queryProcessorOptions = string('query_processor_options') as string;
  let queryProcessorFlags = new Map<string, string>();
  try {
    queryProcessorFlags = parseQueryProcessorOptions(queryProcessorOptions);
  } catch (e) {
    const file = sourceOf.get('query_processor_options') === 'collection.cfg' ? collectionFile : globalFile;
    problems.push({ file, message: `query_processor_options: ${(e as Error).message}` });
  }

  const filterClasses = string('filter.classes');
  try {
    // Checked here, not at the first PUT: a misspelt filter would refuse every document with an error naming no file.
    parseFilterChain(filterClasses);
  } catch (e) {
    const file = sourceOf.get('filter.classes') === 'collection.cfg' ? collectionFile : globalFile;
    problems.push({ file, message: `filter.classes: ${(e as Error).message}` });
  }

  const extra = new Map<string, string>();
  for (const [key, value] of global) {
    if (!SPEC_BY_KEY.has(key)) extra.set(key, value);
  }
  for (const [key, value] of collection) {
    if (!SPEC_BY_KEY.has(key)) extra.set(key, value);
  }
  for (const key of extra.keys()) sourceOf.set(key, collection.has(key) ? 'collection.cfg' : 'global.cfg');

  const config: CollectionConfig = {
    autoCommitTimeoutSeconds: integer('push.auto-commit.timeout-seconds'),
    autoCommitMaxChanges: integer('push.auto-commit.max-changes'),
    maxGenerations: integer('push.max-generations'),
    killedPercentageForReindex: integer('push.scheduler.killed-percentage-for-reindex'),
    createSnapshotOnMergeFailure: boolean('push.create-snapshot-on-merge-failure'),
    workerThreadCount: integer('push.worker-thread-count', Math.max(1, cpuCount)),
    maxRequestBytes: integer('push.max-request-bytes'),
    bodyIdleTimeoutSeconds: integer('server.body-idle-timeout-seconds'),
    bodyMinBytesPerSecond: integer('server.body-min-bytes-per-second'),
    requestTimeoutSeconds: integer('server.request-timeout-seconds'),
    searchThreadCount: integer('search.thread-count', Math.max(1, cpuCount)),
    searchTimeoutMs: integer('search.timeout-ms'),
    searchMaxPrefixTerms: integer('search.max-prefix-terms'),
    searchQueueSize: integer('search.queue-size'),
    clicksMaxPerMinute: integer('search.clicks.max-per-minute'),
    clicksDedupeSeconds: integer('search.clicks.dedupe-seconds'),
    clicksMaxLogBytes: integer('search.clicks.max-log-bytes'),
    filterClasses,
    queryProcessorOptions,
    queryProcessorFlags,
    indexerOptions: string('indexer_options') as string,
    extra,
    sources: sourceOf,
    warnings,
  };
  if (problems.length === 1) {
    throw new ConfigFileError(problems[0].file, undefined, problems[0].message);
  }
  if (problems.length > 1) {
    const files = [...new Set(problems.map((p) => p.file))].join(' and ');
    const listed = problems.map((p) => `${p.file}: ${p.message}`);
    throw new ConfigFileError(files, undefined, `${problems.length} problems: ${listed.join('; ')}`, {
      problems: listed,
    });
  }
  return config;
}

/** Resolves the installation-wide keys from global.cfg alone (for the HTTP server and the worker pool). */
export function resolveGlobalConfig(
  global: Entries | undefined,
  options: { globalFile?: string; cpuCount?: number } = {},
): GlobalConfig {
  // Only the installation-wide keys: a bad collection default in global.cfg is the
  // collection's problem, reported when the collection starts, not the server's.
  const globalOnly = new Map(
    [...toMap(global)].filter(([key]) => SPEC_BY_KEY.get(key)?.file === 'global.cfg'),
  );
  const config = resolveCollectionConfig({
    global: globalOnly,
    globalFile: options.globalFile,
    collectionFile: options.globalFile ?? 'global.cfg',
    cpuCount: options.cpuCount,
  });
  return {
    workerThreadCount: config.workerThreadCount,
    maxRequestBytes: config.maxRequestBytes,
    bodyIdleTimeoutSeconds: config.bodyIdleTimeoutSeconds,
    bodyMinBytesPerSecond: config.bodyMinBytesPerSecond,
    requestTimeoutSeconds: config.requestTimeoutSeconds,
    searchThreadCount: config.searchThreadCount,
    searchTimeoutMs: config.searchTimeoutMs,
    searchMaxPrefixTerms: config.searchMaxPrefixTerms,
    searchQueueSize: config.searchQueueSize,
    clicksMaxPerMinute: config.clicksMaxPerMinute,
    clicksDedupeSeconds: config.clicksDedupeSeconds,
    clicksMaxLogBytes: config.clicksMaxLogBytes,
  };
}

function toMap(entries: Entries | undefined): ReadonlyMap<string, string> {
  if (entries === undefined) return new Map();
  return entries instanceof Map ? entries : new Map(Object.entries(entries));
}
