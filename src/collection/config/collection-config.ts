import { availableParallelism } from 'node:os';
import { ConfigFileError } from './config-file-error.js';
import { parseFilterChain } from '../filters/filter-chain.js';
import { nearestKey } from './nearest-key.js';
import { parseQueryProcessorOptions } from './query-processor-options.js';
import { validateName } from '../search-home.js';

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
 * - Every known key's value is validated, whether a typed field or `extra` carries it:
 *   integers (`/^[+-]?\d+$/`) and numbers within the key's range, booleans exactly `true` or
 *   `false` (any case), one of the listed values, collection names, origins; query processor
 *   options and the filter chain must parse. All problems are reported together in one
 *   `CONFIG_INVALID` error, each naming the key and the file.
 * - Keys we do not know are kept as raw strings in `extra` and reported in `warnings`, with
 *   the nearest known key (a misspelt key would otherwise be silently without effect).
 */

type KeyKind =
  | 'integer'
  | 'number'
  | 'boolean'
  | 'string'
  | 'optional-string'
  | 'enum'
  | 'collection-names'
  | 'origins'
  | 'http-url';

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
  /** The values an `enum` key accepts (in any case when `anyCase`). */
  readonly values?: readonly string[];
  readonly anyCase?: boolean;
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
    key: 'push.commit.indexing-timeout-ms',
    file: 'collection.cfg',
    kind: 'integer',
    defaultText: '120000',
    min: 100,
    max: 86400000,
    description:
      'How long a commit waits for an indexing thread to write the staged changes; past it the commit fails (500 COMMIT_FAILED), the thread is replaced and the changes are staged again from the journal for the next commit.',
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
  {
    key: 'collection_type',
    file: 'collection.cfg',
    kind: 'enum',
    values: ['push', 'meta'],
    defaultText: 'push',
    description: 'push: documents are pushed to it; meta: searches the push collections of meta.members.',
  },
  {
    key: 'meta.members',
    file: 'collection.cfg',
    kind: 'collection-names',
    defaultText: '',
    description: 'Push collections a meta collection searches, separated by commas.',
  },
  {
    key: 'search.public',
    file: 'collection.cfg',
    kind: 'boolean',
    defaultText: 'true',
    description:
      'true: anyone may search; false: searches need a user with access to the collection (a meta collection is private when it or a member is).',
  },
  {
    key: 'push.evidence.delay-seconds',
    file: 'collection.cfg',
    kind: 'number',
    defaultText: '5',
    min: 0,
    max: 86400,
    description: 'Anchor text is brought up to date this many seconds after a commit.',
  },
  {
    key: 'push.click-logs.interval-seconds',
    file: 'collection.cfg',
    kind: 'number',
    defaultText: '3600',
    min: 0,
    max: 31536000,
    description: 'Click logs are processed this often; 0: only on demand (POST .../click-logs).',
  },
  {
    key: 'push.click-logs.half-life-days',
    file: 'collection.cfg',
    kind: 'number',
    defaultText: '30',
    min: 0.001,
    max: 36500,
    description: 'A click loses half its weight in this many days.',
  },
  {
    key: 'push.click-logs.retention-days',
    file: 'collection.cfg',
    kind: 'number',
    defaultText: '180',
    min: 0,
    max: 36500,
    description:
      'Processed click logs are kept this many days (to rebuild click evidence if its file is lost).',
  },
  {
    key: 'cors.allowed-origins',
    file: 'global.cfg',
    kind: 'origins',
    defaultText: undefined,
    description:
      'Origins whose pages may call /s/* from browsers (scheme://host[:port], separated by commas), or * for any; unset: none.',
  },
  {
    key: 'push.run',
    file: 'collection.cfg',
    kind: 'boolean',
    defaultText: 'true',
    description: 'false stops the collection and its sync; searches still run over what it has.',
  },
  {
    key: 'push.initial-mode',
    file: 'collection.cfg',
    kind: 'enum',
    values: ['DEFAULT', 'SLAVE'],
    anyCase: true,
    defaultText: 'DEFAULT',
    description:
      'The mode of the collection at its first start: DEFAULT accepts changes, SLAVE copies its master.',
  },
  {
    key: 'push.replication.master-url',
    file: 'collection.cfg',
    kind: 'http-url',
    defaultText: undefined,
    description: "Base URL of a query processor's master (the admin or another query processor).",
  },
  {
    key: 'server_secret',
    file: 'global.cfg',
    kind: 'optional-string',
    defaultText: undefined,
    description: 'Shared secret that signs server-to-server (replication) requests; unset: none are served.',
  },
  {
    key: 'replication.ready-max-lag-seconds',
    file: 'global.cfg',
    kind: 'integer',
    defaultText: undefined,
    min: 0,
    max: 999999999,
    description:
      'On a query processor, /ready lists a collection further behind its master than this as LAGGING; unset: not checked (unless /ready?max-lag-seconds= asks).',
  },
  {
    key: 'metrics.public',
    file: 'global.cfg',
    kind: 'boolean',
    defaultText: 'true',
    description: 'true: anyone may scrape /metrics; false: sec.administer is needed.',
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
  /** `cors.allowed-origins`: `*`, or the origins listed (none when unset). */
  readonly corsOrigins: '*' | readonly string[];
  /** `metrics.public`. */
  readonly metricsPublic: boolean;
  /** `replication.ready-max-lag-seconds`; undefined: unset. */
  readonly readyMaxLagSeconds: number | undefined;
}

/** The resolved configuration of one collection. */
export interface CollectionConfig extends GlobalConfig {
  /** `push.auto-commit.timeout-seconds`; 0: no timer. */
  readonly autoCommitTimeoutSeconds: number;
  /** `push.auto-commit.max-changes`; 0: no threshold. */
  readonly autoCommitMaxChanges: number;
  /** `push.max-generations`. */
  readonly maxGenerations: number;
  /** `push.commit.indexing-timeout-ms`: a commit's wait for an indexing thread. */
  readonly indexingTimeoutMs: number;
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
  /** `search.public`. */
  readonly searchPublic: boolean;
  /**
   * Keys without a typed field above, raw (collection.cfg over global.cfg): the known ones
   * (`collection_type`, `meta.members`, the evidence keys), already validated, and unknown ones.
   */
  readonly extra: ReadonlyMap<string, string>;
  /** Where each set key's value came from. */
  readonly sources: ReadonlyMap<string, 'collection.cfg' | 'global.cfg'>;
  /** Problems that did not stop the collection (an unknown key, a global-only key in collection.cfg). */
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
  warnings.push(...unknownKeyWarnings(collection, collectionFile), ...unknownKeyWarnings(global, globalFile));

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

  const optionalInteger = (key: string): number | undefined =>
    lookup(SPEC_BY_KEY.get(key) as ConfigKeySpec) === undefined ? undefined : integer(key);

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

  // Known keys without a typed field (they stay in `extra`): checked here, read elsewhere.
  const checkText = (spec: ConfigKeySpec): void => {
    const found = lookup(spec);
    if (found === undefined) return;
    const problem = problemOf(spec, found.text);
    if (problem !== undefined) problems.push({ file: found.file, message: `${spec.key} ${problem}` });
  };
  for (const spec of CONFIG_KEYS) if (!TYPED_KEYS.has(spec.key)) checkText(spec);

  const origins = (key: string): '*' | readonly string[] => {
    const spec = SPEC_BY_KEY.get(key) as ConfigKeySpec;
    const found = lookup(spec);
    const text = found?.text.trim() ?? '';
    if (text === '') return [];
    if (text === '*') return '*';
    const problem = problemOf(spec, text);
    if (problem !== undefined) {
      problems.push({ file: found?.file ?? 'default', message: `${key} ${problem}` });
      return [];
    }
    return text.split(',').map((entry) => entry.trim());
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
    if (!TYPED_KEYS.has(key)) extra.set(key, value);
  }
  for (const [key, value] of collection) {
    if (!TYPED_KEYS.has(key)) extra.set(key, value);
  }
  for (const key of extra.keys()) {
    if (!sourceOf.has(key)) sourceOf.set(key, collection.has(key) ? 'collection.cfg' : 'global.cfg');
  }

  const config: CollectionConfig = {
    autoCommitTimeoutSeconds: integer('push.auto-commit.timeout-seconds'),
    autoCommitMaxChanges: integer('push.auto-commit.max-changes'),
    maxGenerations: integer('push.max-generations'),
    indexingTimeoutMs: integer('push.commit.indexing-timeout-ms'),
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
    corsOrigins: origins('cors.allowed-origins'),
    metricsPublic: boolean('metrics.public'),
    readyMaxLagSeconds: optionalInteger('replication.ready-max-lag-seconds'),
    searchPublic: boolean('search.public'),
    filterClasses,
    queryProcessorOptions,
    queryProcessorFlags,
    indexerOptions: string('indexer_options') as string,
    extra,
    sources: sourceOf,
    warnings,
  };
  const [only] = problems;
  if (only !== undefined && problems.length === 1) {
    throw new ConfigFileError(only.file, undefined, only.message);
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

/** The installation-wide configuration and what was wrong with global.cfg short of an error. */
export interface ResolvedGlobalConfig extends GlobalConfig {
  /** Unknown keys of global.cfg, each with the nearest known key. */
  readonly warnings: readonly string[];
}

/** Resolves the installation-wide keys from global.cfg alone (for the HTTP server and the worker pool). */
export function resolveGlobalConfig(
  global: Entries | undefined,
  options: { globalFile?: string; cpuCount?: number } = {},
): ResolvedGlobalConfig {
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
    corsOrigins: config.corsOrigins,
    metricsPublic: config.metricsPublic,
    readyMaxLagSeconds: config.readyMaxLagSeconds,
    warnings: unknownKeyWarnings(toMap(global), options.globalFile ?? 'global.cfg'),
  };
}

/**
 * Keys whose value has a typed field of {@link CollectionConfig}. Every other key stays in
 * `extra` for the part that reads it (known ones validated here first).
 */
const TYPED_KEYS: ReadonlySet<string> = new Set([
  'push.auto-commit.timeout-seconds',
  'push.auto-commit.max-changes',
  'push.max-generations',
  'push.commit.indexing-timeout-ms',
  'push.scheduler.killed-percentage-for-reindex',
  'push.create-snapshot-on-merge-failure',
  'push.worker-thread-count',
  'push.max-request-bytes',
  'server.body-idle-timeout-seconds',
  'server.body-min-bytes-per-second',
  'server.request-timeout-seconds',
  'search.thread-count',
  'search.timeout-ms',
  'search.max-prefix-terms',
  'search.queue-size',
  'search.clicks.max-per-minute',
  'search.clicks.dedupe-seconds',
  'search.clicks.max-log-bytes',
  'filter.classes',
  'query_processor_options',
  'indexer_options',
  'search.public',
  'cors.allowed-origins',
  'metrics.public',
  'replication.ready-max-lag-seconds',
]);

/** Families of keys named by their user: `facet.<Name>=<class>` defines the facet Name. */
const KEY_PREFIXES: readonly string[] = ['facet.'];

/** One warning per key of `entries` that no spec knows, naming the nearest known key. */
function unknownKeyWarnings(entries: ReadonlyMap<string, string>, file: string): string[] {
  const warnings: string[] = [];
  for (const key of entries.keys()) {
    if (SPEC_BY_KEY.has(key)) continue;
    if (KEY_PREFIXES.some((prefix) => key.startsWith(prefix) && key.length > prefix.length)) continue;
    const nearest = nearestKey(key, SPEC_BY_KEY.keys());
    warnings.push(
      `${file}: unknown key ${key} (nothing reads it)${nearest === undefined ? '' : `; did you mean ${nearest}?`}`,
    );
  }
  return warnings;
}

/** What is wrong with `text` as a value of `spec` (worded to follow the key), or undefined. */
function problemOf(spec: ConfigKeySpec, text: string): string | undefined {
  switch (spec.kind) {
    case 'number': {
      const value = text.trim() === '' ? NaN : Number(text);
      const min = spec.min ?? -Infinity;
      const max = spec.max ?? Infinity;
      return value >= min && value <= max
        ? undefined
        : `must be a number from ${min} to ${max}, found ${JSON.stringify(text)}`;
    }
    case 'enum': {
      const value = spec.anyCase === true ? text.trim().toUpperCase() : text.trim();
      return spec.values?.includes(value)
        ? undefined
        : `must be one of ${spec.values?.join(', ')}, found ${JSON.stringify(text)}`;
    }
    case 'boolean':
      return /^(true|false)?$/i.test(text.trim())
        ? undefined
        : `must be true or false, found ${JSON.stringify(text)}`;
    case 'http-url': {
      if (text.trim() === '') return undefined;
      let url: URL | undefined;
      try {
        url = new URL(text.trim());
      } catch {
        url = undefined;
      }
      return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:')
        ? undefined
        : `must be an http(s) base URL (http://host:port), found ${JSON.stringify(text)}`;
    }
    case 'collection-names': {
      for (const name of text.split(',').map((entry) => entry.trim())) {
        if (name === '') continue;
        try {
          validateName('collection', name);
        } catch {
          return `must list collection names separated by commas; ${JSON.stringify(name)} is not one`;
        }
      }
      return undefined;
    }
    case 'origins':
      for (const entry of text.split(',')) {
        const origin = entry.trim();
        let parsed: URL | undefined;
        try {
          parsed = new URL(origin);
        } catch {
          parsed = undefined;
        }
        if (parsed === undefined || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin)
          return `holds ${JSON.stringify(origin)}, which is not an origin: give scheme://host[:port] without a path or a trailing slash (e.g. https://shop.example), separated by commas, or * for any`;
      }
      return undefined;
    default:
      return undefined;
  }
}

function toMap(entries: Entries | undefined): ReadonlyMap<string, string> {
  if (entries === undefined) return new Map();
  return entries instanceof Map ? entries : new Map(Object.entries(entries));
}
