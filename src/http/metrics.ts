import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { CollectionManager } from '../collection/collection-manager.js';
import type { CollectionState, CollectionStateView } from '../collection/push-collection.js';
import type { Authenticator } from '../security/authenticator.js';
import { ADMIN_PERMISSION } from '../security/permissions.js';
import { requireUser } from './auth-hooks.js';
import { RequestCounter, RequestHistogram } from './request-metrics.js';
import type { SearchPoolStats } from '../search/threads/search-thread-pool.js';
import type { SyncState, SyncStateView } from '../replication/replication-puller.js';

/** Options of {@link installMetrics}. */
export interface MetricsOptions {
  manager: CollectionManager;
  auth: Authenticator;
  /**
   * `metrics.public` of global.cfg (validated when global.cfg is loaded): true lets anyone scrape,
   * false needs a user holding `sec.administer` (HTTP Basic or `X-Security-Token`).
   */
  public: boolean;
  /** Path of the scrape route (default `/metrics`). */
  path?: string;
  /** The search threads' statistics (none: queries run on the event loop). */
  searchStats?: () => SearchPoolStats | null;
}

/** The global.cfg key that decides whether `/metrics` needs `sec.administer`. */
export const METRICS_PUBLIC_KEY = 'metrics.public';

/** Routes whose successful answers feed the query latency histogram. */
export const QUERY_ROUTES: readonly string[] = Object.freeze(['/s/search.json', '/s/search.html']);

/** Label of requests no route matched: raw URLs would make one series per URL scanned. */
const UNMATCHED_ROUTE = 'unmatched';

const SYNC_STATES: readonly SyncState[] = ['STOPPED', 'IN_SYNC', 'SYNCING', 'ERROR'];

const COLLECTION_STATES: readonly CollectionState[] = [
  'STOPPED',
  'STARTING',
  'RUNNING',
  'STOPPING',
  'FAILED',
];

let processRegistry: Registry | undefined;

/** prom-client's default gauges whose names end in `_total`. */
const TOTAL_NAMED_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * RSS, open file descriptors, event loop lag, heap and GC: one set per process, so one
 * registry shared by every app of the process. Each app having its own would start another
 * event-loop monitor and GC observer per app, never stopped (tests build hundreds of apps).
 */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    // Gauges named like counters: Prometheus' naming rules (and `promtool check metrics`)
    // keep `_total` for counters. The same numbers by type stay in nodejs_active_handles,
    // nodejs_active_requests and nodejs_active_resources (their sum is the total).
    for (const name of TOTAL_NAMED_GAUGES) processRegistry.removeSingleMetric(name);
  }
  return processRegistry;
}

/**
 * The service's metrics in a registry of its own (never prom-client's global one, so several
 * apps in one process keep apart counts). Request metrics are counted by hooks; collection
 * metrics are read from each RUNNING collection's `stateView()` at scrape time, which never
 * starts a collection (STOPPED and FAILED ones only show their state).
 */
export class ServiceMetrics {
  /** The app's own metrics (the process metrics are added to the scrape text). */
  readonly registry = new Registry();
  /** Metrics read from the collections at each scrape (declared before the fields filling it). */
  private readonly collectionMetrics: (Gauge | Counter)[] = [];

  // Counted on every request: counted in place (request-metrics.ts), not by prom-client's
  // inc/observe, which build a key string from the labels on each call.
  private readonly requests = new RequestCounter({
    name: 'pushsearch_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly requestSeconds = new RequestHistogram({
    name: 'pushsearch_http_request_duration_seconds',
    help: 'Time from request received to answer sent, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly querySeconds = new RequestHistogram({
    name: 'pushsearch_query_duration_seconds',
    help: 'Latency of successful searches (status below 400), by search route',
    labelNames: ['route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private readonly state = this.gauge(
    'pushsearch_collection_state',
    'Push collection state: 1 for the current state, 0 for the others',
    ['collection', 'state'],
  );
  private readonly documents = this.gauge(
    'pushsearch_collection_documents',
    'Live documents of the last commit (running collections)',
  );
  private readonly killed = this.gauge(
    'pushsearch_collection_killed_documents',
    'Deleted or replaced documents still held by generations until merged away',
  );
  private readonly staged = this.gauge(
    'pushsearch_collection_staged_changes',
    'Accepted changes not yet committed',
  );
  private readonly generations = this.gauge(
    'pushsearch_collection_generations',
    'Generations of the live manifest',
  );
  private readonly bytesOnDisk = this.gauge(
    'pushsearch_collection_bytes_on_disk',
    'Bytes of the live index files',
  );
  private readonly mergesRunning = this.gauge('pushsearch_collection_merges_running', 'Merges running now');
  private readonly lastCommit = this.gauge(
    'pushsearch_collection_last_commit_timestamp_seconds',
    'Time of the last commit (Unix seconds)',
  );
  private readonly lastFsync = this.gauge(
    'pushsearch_journal_last_fsync_seconds',
    "Duration of the journal's most recent fsync",
  );
  // Engine counters count since the collection was opened; a restart of the collection is a
  // counter reset, which Prometheus' rate() handles.
  private readonly commits = this.counter(
    'pushsearch_collection_commits_total',
    'Commits published since the collection was opened',
  );
  private readonly commitFailures = this.counter(
    'pushsearch_collection_commit_failures_total',
    'Commits that failed since the collection was opened',
  );
  private readonly merges = this.counter(
    'pushsearch_collection_merges_total',
    'Merges finished since the collection was opened, by result (done, failed)',
    ['collection', 'result'],
  );
  private readonly documentsPut = this.counter(
    'pushsearch_collection_documents_put_total',
    'Documents added or replaced since the collection was opened',
  );
  private readonly documentsDeleted = this.counter(
    'pushsearch_collection_documents_deleted_total',
    'Documents deleted since the collection was opened',
  );
  private readonly journalAppends = this.counter(
    'pushsearch_journal_appends_total',
    'Changes appended to the journal since the collection was opened',
  );
  private readonly journalFsyncs = this.counter(
    'pushsearch_journal_fsyncs_total',
    'Journal fsyncs (each makes a group of appends durable)',
  );

  // Query processors (mode SLAVE): their sync, read at each scrape.
  private readonly replicationLag = this.gauge(
    'pushsearch_replication_lag_seconds',
    'Query processors: seconds since the master published a state not installed here (0 when in sync)',
  );
  private readonly replicationLagGenerations = this.gauge(
    'pushsearch_replication_lag_generations',
    'Query processors: manifests the installed state is behind the newest the master announced',
  );
  private readonly replicationGeneration = this.gauge(
    'pushsearch_replication_synced_generation',
    "Query processors: manifest number of the installed state (the admin's numbering)",
  );
  private readonly replicationState = this.gauge(
    'pushsearch_replication_state',
    'Query processors: 1 for the current sync state (STOPPED, IN_SYNC, SYNCING, ERROR), 0 for the others',
    ['collection', 'state'],
  );
  private readonly replicationBytes = this.counter(
    'pushsearch_replication_bytes_pulled_total',
    'Query processors: bytes downloaded from the master since the sync started',
  );

  // The search threads (issue #19): read from the pool at each scrape.
  private readonly searchMetrics: (Gauge | Counter)[] = [];
  private readonly searchThreads = this.searchGauge(
    'pushsearch_search_threads',
    'Search threads running (started when queries first need them, up to search.thread-count)',
  );
  private readonly searchThreadsBusy = this.searchGauge(
    'pushsearch_search_threads_busy',
    'Search threads running a query now',
  );
  private readonly searchQueue = this.searchGauge(
    'pushsearch_search_queue_length',
    'Queries waiting for a search thread (at most search.queue-size)',
  );
  private readonly searchQueries = this.searchCounter(
    'pushsearch_search_queries_total',
    'Queries handed to the search threads',
  );
  private readonly searchRejected = this.searchCounter(
    'pushsearch_search_rejected_total',
    'Queries refused with 503 SEARCH_OVERLOADED because every thread was busy and the queue full',
  );
  private readonly searchTimeouts = this.searchCounter(
    'pushsearch_search_timeouts_total',
    'Queries that ran out of search.timeout-ms (answered timedOut, or 503 SEARCH_TIMEOUT)',
  );
  private readonly searchThreadFailures = this.searchCounter(
    'pushsearch_search_thread_failures_total',
    'Search threads that died (their query answered 503 SEARCH_THREAD_FAILED; the thread is replaced)',
  );

  constructor(
    private readonly manager: CollectionManager,
    private readonly searchStats: () => SearchPoolStats | null = () => null,
  ) {}

  /** Counts one answered request (called from the `onResponse` hook). */
  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    const pattern = route ?? UNMATCHED_ROUTE;
    this.requests.inc([method, pattern, String(status)]);
    this.requestSeconds.observe([method, pattern], seconds);
    if (status < 400 && QUERY_ROUTES.includes(pattern)) this.querySeconds.observe([pattern], seconds);
  }

  /** `Content-Type` of {@link scrape}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition: collection metrics read now, request and process metrics. */
  async scrape(): Promise<string> {
    this.refreshCollections();
    this.refreshSearch();
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return own + process;
  }

  private refreshCollections(): void {
    // Reset: a deleted or stopped collection's series disappear instead of freezing.
    for (const metric of this.collectionMetrics) metric.reset();
    for (const name of this.manager.names()) {
      let view: CollectionStateView;
      try {
        if (this.manager.typeOf(name) !== 'push') continue;
        view = this.manager.collection(name).stateView();
      } catch {
        continue; // deleted while we listed
      }
      for (const state of COLLECTION_STATES)
        this.state.set({ collection: name, state }, view.state === state ? 1 : 0);
      if (view.mode === 'SLAVE') this.refreshSync(name);
      const stats = view.stats;
      if (stats === undefined) continue;
      const labels = { collection: name };
      this.documents.set(labels, stats.CurDocuments);
      this.killed.set(labels, stats.CurKilled);
      this.staged.set(labels, stats.CurStagedChanges);
      this.generations.set(labels, stats.CurGenerations);
      this.bytesOnDisk.set(labels, stats.CurBytesOnDisk);
      this.mergesRunning.set(labels, stats.CurMergesRunning);
      if (stats.LastCommitTime !== null) this.lastCommit.set(labels, Date.parse(stats.LastCommitTime) / 1000);
      this.lastFsync.set(labels, stats.JournalLastFsyncMs / 1000);
      this.commits.inc(labels, stats.TotCommits);
      this.commitFailures.inc(labels, stats.TotCommitFailures);
      this.merges.inc({ collection: name, result: 'done' }, stats.TotMergesDone);
      this.merges.inc({ collection: name, result: 'failed' }, stats.TotMergesFailed);
      this.documentsPut.inc(labels, stats.TotDocumentsPut);
      this.documentsDeleted.inc(labels, stats.TotDocumentsDeleted);
      this.journalAppends.inc(labels, stats.JournalAppends);
      this.journalFsyncs.inc(labels, stats.JournalFsyncs);
    }
  }

  private refreshSync(name: string): void {
    let sync: SyncStateView;
    try {
      sync = this.manager.collection(name).syncState();
    } catch {
      return;
    }
    const labels = { collection: name };
    for (const state of SYNC_STATES)
      this.replicationState.set({ collection: name, state }, sync.state === state ? 1 : 0);
    this.replicationLag.set(labels, sync.lagSeconds);
    this.replicationLagGenerations.set(labels, sync.lagGenerations);
    if (sync.lastSyncedGeneration !== null) this.replicationGeneration.set(labels, sync.lastSyncedGeneration);
    this.replicationBytes.inc(labels, sync.bytesPulled);
  }

  private refreshSearch(): void {
    for (const metric of this.searchMetrics) metric.reset();
    const stats = this.searchStats();
    if (stats === null) return;
    this.searchThreads.set(stats.threads);
    this.searchThreadsBusy.set(stats.busyThreads);
    this.searchQueue.set(stats.queued);
    this.searchQueries.inc(stats.TotQueries);
    this.searchRejected.inc(stats.TotRejected);
    this.searchTimeouts.inc(stats.TotTimedOut);
    this.searchThreadFailures.inc(stats.TotThreadFailures);
  }

  private searchGauge(name: string, help: string): Gauge {
    const gauge = new Gauge({ name, help, registers: [this.registry] });
    this.searchMetrics.push(gauge);
    return gauge;
  }

  private searchCounter(name: string, help: string): Counter {
    const counter = new Counter({ name, help, registers: [this.registry] });
    this.searchMetrics.push(counter);
    return counter;
  }

  private gauge(name: string, help: string, labelNames: string[] = ['collection']): Gauge {
    const gauge = new Gauge({ name, help, labelNames, registers: [this.registry] });
    this.collectionMetrics.push(gauge);
    return gauge;
  }

  private counter(name: string, help: string, labelNames: string[] = ['collection']): Counter {
    const counter = new Counter({ name, help, labelNames, registers: [this.registry] });
    this.collectionMetrics.push(counter);
    return counter;
  }
}

/**
 * Adds request counting (hooks on the root instance, so call it before the routes are
 * registered: Fastify gives a plugin the hooks its parent had when it was registered) and
 * `GET /metrics`, public unless {@link MetricsOptions.public} is false. Routes are labelled
 * with their pattern (`/push-api/v1/collections/:collection/documents`), never the raw URL.
 */
export function installMetrics(app: FastifyInstance, options: MetricsOptions): ServiceMetrics {
  const metrics = new ServiceMetrics(options.manager, options.searchStats);
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    metrics.observeRequest(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.get(
    options.path ?? '/metrics',
    {
      ...(options.public ? {} : { onRequest: requireUser(options.auth, ADMIN_PERMISSION) }),
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format)',
        description: `Requests by route and status, request and query latency, search threads (busy, queue length, rejections, timeouts, thread failures), per running collection: documents, staged changes, generations, commits, merges, journal fsyncs; per query processor: replication lag (seconds and generations), sync state, synced generation, bytes pulled; process RSS, open files, event loop lag. Public unless ${METRICS_PUBLIC_KEY}=false in conf/global.cfg (then sec.administer is needed).`,
      },
    },
    async (_request, reply) => {
      const text = await metrics.scrape();
      void reply.header('content-type', metrics.contentType).header('cache-control', 'no-store');
      return text;
    },
  );
  return metrics;
}
