import type { Metric, Registry } from 'prom-client';

/**
 * The counter and histograms that every request feeds (`onResponse`), kept as prom-client's
 * `Counter` and `Histogram` keep them and handed to its `Registry` in the same form: a scrape
 * writes the same text and `get()` answers the same values (test/http/request-metrics.test.ts
 * compares them with prom-client's own). What differs is the cost of counting: prom-client's
 * `inc` and `observe` check the label names and build a key from the sorted labels on each
 * call, ~3% of the event loop's time per search (CPU profile of `/s/search.json`); here a
 * label set is found by one Map lookup per label value and counted in place.
 */

/** What prom-client's registry reads of a metric (`get()`, and `getForPromString()` when present). */
interface ExportedMetric<V> {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: V[];
  aggregator: 'sum';
}

/** Labels by name, in the order of the metric's label names (prom-client writes them in the order given). */
type Labels = Record<string, string>;

/** Label sets of one metric, each with its cell, in the order first seen (prom-client's order). */
class LabelCells<C> {
  private readonly root = new Map<string, unknown>();
  readonly inOrder: C[] = [];

  constructor(
    private readonly labelNames: readonly string[],
    private readonly create: (labels: Labels) => C,
  ) {
    if (labelNames.length === 0) throw new RangeError('a request metric needs at least one label');
  }

  /** The cell of these label values (one per label name, in order), made on first use. */
  get(values: readonly string[]): C {
    if (values.length !== this.labelNames.length)
      throw new RangeError(`expected ${this.labelNames.length} label values, got ${values.length}`);
    let map = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = map.get(values[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) map.set(values[i]!, (next = new Map()));
      map = next;
    }
    let cell = map.get(values[last]!) as C | undefined;
    if (cell === undefined) {
      const labels: Labels = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
      cell = this.create(labels);
      map.set(values[last]!, cell);
      this.inOrder.push(cell);
    }
    return cell;
  }

  clear(): void {
    this.root.clear();
    this.inOrder.length = 0;
  }
}

/** What both metrics are made with (the part of prom-client's configuration they use). */
export interface RequestMetricConfig {
  name: string;
  help: string;
  labelNames: readonly string[];
  registers: Registry[];
}

/** A counter of requests by label values (prom-client's `Counter`, counted in place). */
export class RequestCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly cells: LabelCells<{ value: number; labels: Labels }>;

  constructor(config: RequestMetricConfig) {
    this.name = config.name;
    this.help = config.help;
    this.cells = new LabelCells(config.labelNames, (labels) => ({ value: 0, labels }));
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** Adds one to the count of these label values (one per label name, in order). */
  inc(values: readonly string[]): void {
    this.cells.get(values).value++;
  }

  /** What prom-client's `Counter.get()` answers: one value per label set, first seen first. */
  get(): Promise<ExportedMetric<{ value: number; labels: Labels }>> {
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      values: this.cells.inOrder.map(({ value, labels }) => ({ value, labels: { ...labels } })),
      aggregator: this.aggregator,
    });
  }

  reset(): void {
    this.cells.clear();
  }
}

/** One series of a histogram as prom-client exports it (`_bucket`, `_sum`, `_count`). */
interface HistogramValue {
  labels: Record<string, string | number>;
  sharedLabels: Labels;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

interface HistogramCell {
  labels: Labels;
  /** Observations per bucket (not cumulative), by the index of its upper bound. */
  buckets: number[];
  sum: number;
  count: number;
}

/** A histogram of durations by label values (prom-client's `Histogram`, counted in place). */
export class RequestHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly upperBounds: readonly number[];
  private readonly cells: LabelCells<HistogramCell>;

  constructor(config: RequestMetricConfig & { buckets: readonly number[] }) {
    this.name = config.name;
    this.help = config.help;
    if (config.labelNames.includes('le')) throw new Error('le is a reserved label keyword');
    this.upperBounds = [...config.buckets];
    this.cells = new LabelCells(config.labelNames, (labels) => ({
      labels,
      buckets: this.upperBounds.map(() => 0),
      sum: 0,
      count: 0,
    }));
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** Counts `value` for these label values (one per label name, in order). */
  observe(values: readonly string[], value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const cell = this.cells.get(values);
    cell.sum += value;
    cell.count++;
    // The first bound at or above the value; above every bound, only +Inf counts it.
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i++)
      if (value <= bounds[i]!) {
        cell.buckets[i]!++;
        break;
      }
  }

  /** The series as the registry writes them: `le` first, then the label set. */
  getForPromString(): Promise<ExportedMetric<HistogramValue>> {
    const values: HistogramValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const cell of this.cells.inOrder) {
      let below = 0;
      this.upperBounds.forEach((le, i) => {
        below += cell.buckets[i]!;
        values.push(series({ le }, cell.labels, below, bucketName, null));
      });
      values.push(series({ le: '+Inf' }, cell.labels, cell.count, bucketName, null));
      values.push(series({}, cell.labels, cell.sum, `${this.name}_sum`, undefined));
      values.push(series({}, cell.labels, cell.count, `${this.name}_count`, undefined));
    }
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    });
  }

  /** What prom-client's `Histogram.get()` answers: each series' labels with the label set's in them. */
  async get(): Promise<
    ExportedMetric<{ labels: Record<string, string | number>; value: number; metricName: string }>
  > {
    const data = await this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ sharedLabels, labels, ...rest }) => ({
        ...rest,
        labels: Object.assign(labels, sharedLabels),
      })),
    };
  }

  reset(): void {
    this.cells.clear();
  }
}

function series(
  labels: Record<string, string | number>,
  sharedLabels: Labels,
  value: number,
  metricName: string,
  exemplar: null | undefined,
): HistogramValue {
  return { labels, sharedLabels, value, metricName, exemplar };
}
