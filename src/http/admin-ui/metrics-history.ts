import type { Registry } from 'prom-client';
import { QUERY_ROUTES } from '../metrics.js';

/** One interval of the history: rates and latencies between two samples of the metrics. */
export interface HistoryPoint {
  /** End of the interval, Unix seconds. */
  time: number;
  /** Document PUT/POST requests answered per second. */
  ingestRate: number;
  /** Their mean latency, ms (absent when there were none). */
  ingestMs?: number;
  /** Searches answered per second (status below 400). */
  queryRate: number;
  /** Their mean latency, ms. */
  queryMs?: number;
  /** Their 95th percentile, ms, interpolated in the latency histogram's buckets. */
  queryP95Ms?: number;
}

/** What a chart of the admin UI draws: fields of {@link HistoryPoint}, with labels and units. */
export interface ChartSpec {
  title: string;
  series: { field: keyof HistoryPoint; label: string; unit: string; scale: string }[];
}

/** The JSON the admin UI's charts read. */
export interface HistoryAnswer {
  intervalSeconds: number;
  points: HistoryPoint[];
  charts: Record<string, ChartSpec>;
}

/** Options of {@link MetricsHistory}. */
export interface MetricsHistoryOptions {
  /** Sampling interval (default 5 s). */
  intervalMs?: number;
  /** Points kept (default 720: an hour at 5 s). */
  capacity?: number;
}

/** The charts of the collections page. */
export const CHARTS: Record<string, ChartSpec> = {
  ingest: {
    title: 'Ingest',
    series: [
      { field: 'ingestRate', label: 'documents/s', unit: '/s', scale: 'rate' },
      { field: 'ingestMs', label: 'mean latency', unit: 'ms', scale: 'ms' },
    ],
  },
  queries: {
    title: 'Queries',
    series: [
      { field: 'queryRate', label: 'queries/s', unit: '/s', scale: 'rate' },
      { field: 'queryMs', label: 'mean latency', unit: 'ms', scale: 'ms' },
      { field: 'queryP95Ms', label: 'p95 latency', unit: 'ms', scale: 'ms' },
    ],
  },
};

const REQUEST_SECONDS = 'pushsearch_http_request_duration_seconds';
const QUERY_SECONDS = 'pushsearch_query_duration_seconds';
/** Samples on demand (a page load) no more often than this. */
const MIN_SAMPLE_GAP_MS = 1000;

/** Cumulative totals read from the registry at one moment. */
interface Totals {
  at: number;
  ingestCount: number;
  ingestSum: number;
  queryCount: number;
  querySum: number;
  /** Query latency bucket upper bound (s) → cumulative count. */
  queryBuckets: Map<number, number>;
}

/**
 * A short history of ingest and query rates and latencies for the admin UI's charts, read
 * from the server's own Prometheus metrics (the request and query latency histograms), so
 * that the charts and `/metrics` never disagree. Samples every interval while started (the
 * timer does not keep the process alive), and on demand when a page asks.
 */
export class MetricsHistory {
  private readonly intervalMs: number;
  private readonly capacity: number;
  private readonly points: HistoryPoint[] = [];
  private last: Totals | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> | undefined;

  constructor(
    private readonly registry: Registry,
    options: MetricsHistoryOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 5000;
    this.capacity = options.capacity ?? 720;
  }

  /** Takes the first sample and samples every interval until {@link stop}. */
  start(): void {
    if (this.timer !== undefined) return;
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The history, after a fresh sample when the last one is older than a second. */
  async answer(): Promise<HistoryAnswer> {
    if (this.last === undefined || Date.now() - this.last.at >= MIN_SAMPLE_GAP_MS) await this.sample();
    return { intervalSeconds: this.intervalMs / 1000, points: [...this.points], charts: CHARTS };
  }

  /** Reads the metrics and adds the interval since the previous sample (the first is a baseline). */
  sample(): Promise<void> {
    // One reading at a time: a page load during a timer sample waits for it.
    this.sampling ??= this.read().finally(() => (this.sampling = undefined));
    return this.sampling;
  }

  private async read(): Promise<void> {
    const now = await this.totals();
    const before = this.last;
    this.last = now;
    if (before === undefined) return;
    const seconds = (now.at - before.at) / 1000;
    if (seconds <= 0) return;
    const ingest = now.ingestCount - before.ingestCount;
    const queries = now.queryCount - before.queryCount;
    const point: HistoryPoint = {
      time: Math.round(now.at / 1000),
      ingestRate: Math.max(0, ingest) / seconds,
      queryRate: Math.max(0, queries) / seconds,
    };
    if (ingest > 0) point.ingestMs = ((now.ingestSum - before.ingestSum) / ingest) * 1000;
    if (queries > 0) {
      point.queryMs = ((now.querySum - before.querySum) / queries) * 1000;
      const p95 = quantile(now.queryBuckets, before.queryBuckets, 0.95);
      if (p95 !== undefined) point.queryP95Ms = p95 * 1000;
    }
    this.points.push(point);
    if (this.points.length > this.capacity) this.points.splice(0, this.points.length - this.capacity);
  }

  private async totals(): Promise<Totals> {
    const totals: Totals = {
      at: Date.now(),
      ingestCount: 0,
      ingestSum: 0,
      queryCount: 0,
      querySum: 0,
      queryBuckets: new Map(),
    };
    for (const value of await valuesOf(this.registry, REQUEST_SECONDS)) {
      const { method, route } = value.labels as { method?: string; route?: string };
      if ((method !== 'PUT' && method !== 'POST') || !/\/documents(\/|$)/.test(String(route))) continue;
      if (value.metricName === `${REQUEST_SECONDS}_count`) totals.ingestCount += value.value;
      else if (value.metricName === `${REQUEST_SECONDS}_sum`) totals.ingestSum += value.value;
    }
    for (const value of await valuesOf(this.registry, QUERY_SECONDS)) {
      if (!QUERY_ROUTES.includes(String(value.labels.route))) continue;
      if (value.metricName === `${QUERY_SECONDS}_count`) totals.queryCount += value.value;
      else if (value.metricName === `${QUERY_SECONDS}_sum`) totals.querySum += value.value;
      else if (value.metricName === `${QUERY_SECONDS}_bucket`) {
        const le = value.labels.le === '+Inf' ? Infinity : Number(value.labels.le);
        totals.queryBuckets.set(le, (totals.queryBuckets.get(le) ?? 0) + value.value);
      }
    }
    return totals;
  }
}

/** The series of a histogram: prom-client names each (`_bucket`, `_sum`, `_count`). */
async function valuesOf(
  registry: Registry,
  name: string,
): Promise<{ metricName?: string; labels: Record<string, string | number | undefined>; value: number }[]> {
  const metric = await registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []) as {
    metricName?: string;
    labels: Record<string, string | number | undefined>;
    value: number;
  }[];
}

/**
 * The `q` quantile of the observations between two readings of a cumulative histogram,
 * interpolated linearly inside its bucket (as Prometheus' histogram_quantile does); the
 * last finite bound when it falls in the `+Inf` bucket.
 */
export function quantile(
  now: ReadonlyMap<number, number>,
  before: ReadonlyMap<number, number>,
  q: number,
): number | undefined {
  const bounds = [...now.keys()].sort((a, b) => a - b);
  const counts = bounds.map((le) => (now.get(le) ?? 0) - (before.get(le) ?? 0));
  const total = counts[counts.length - 1] ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (let i = 0; i < bounds.length; i++) {
    const upper = bounds[i]!;
    const count = counts[i]!;
    if (count >= rank) {
      if (upper === Infinity) return lower;
      const inBucket = count - below;
      return inBucket <= 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket;
    }
    lower = upper;
    below = count;
  }
  return lower;
}
