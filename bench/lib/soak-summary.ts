/**
 * The judgements of the soak benchmark, as pure functions over its samples so that they can
 * be tested: latency and throughput per call, whether a gauge (RSS, heap) stayed flat, and
 * whether a count (open file descriptors, threads) grew.
 */
import { median, percentile } from './measure.js';

/** Latencies and failures of one kind of call. */
export interface CallStats {
  /** Milliseconds of every call, failed ones included. */
  ms: number[];
  errors: number;
}

/** One row of the calls table. */
export interface CallRow {
  call: string;
  count: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
}

/** Count, rate over `seconds`, p50/p99/max latency and errors of each kind of call, in the given order. */
export function callRows(
  calls: ReadonlyMap<string, CallStats>,
  seconds: number,
  order: readonly string[],
): CallRow[] {
  const names = [
    ...order.filter((name) => calls.has(name)),
    ...[...calls.keys()].filter((name) => !order.includes(name)),
  ];
  return names.map((call) => {
    const stats = calls.get(call)!;
    return {
      call,
      count: stats.ms.length,
      perSecond: stats.ms.length / seconds,
      p50Ms: median(stats.ms),
      p99Ms: percentile(stats.ms, 99),
      maxMs: stats.ms.length === 0 ? Number.NaN : stats.ms.reduce((a, b) => Math.max(a, b), 0),
      errors: stats.errors,
    };
  });
}

/** How a gauge behaved over a window of samples. */
export interface Spread {
  samples: number;
  min: number;
  median: number;
  max: number;
  /** Largest distance of a sample from the median, as a fraction of the median. */
  deviation: number;
  /** Least-squares slope, in units per minute. */
  slopePerMinute: number;
}

/** Spread of `values` taken at `seconds` (same length, at least one). */
export function spreadOf(seconds: readonly number[], values: readonly number[]): Spread {
  if (values.length === 0 || seconds.length !== values.length) {
    throw new RangeError('spreadOf: needs as many times as values, at least one');
  }
  const middle = median(values);
  let deviation = 0;
  for (const v of values)
    deviation = Math.max(deviation, middle === 0 ? (v === 0 ? 0 : Infinity) : Math.abs(v - middle) / middle);
  return {
    samples: values.length,
    min: Math.min(...values),
    median: middle,
    max: Math.max(...values),
    deviation,
    slopePerMinute: slope(seconds, values) * 60,
  };
}

/** The least-squares slope of `values` over `x` (0 with fewer than two distinct x). */
export function slope(x: readonly number[], values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i]!;
    my += values[i]!;
  }
  mx /= n;
  my /= n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (x[i]! - mx) * (values[i]! - my);
    den += (x[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Whether a gauge stayed within ±`tolerance` (a fraction) of its median. */
export function isFlat(spread: Spread, tolerance = 0.1): boolean {
  return spread.deviation <= tolerance;
}

/** The verdict on a count that must not grow (open file descriptors, threads). */
export interface Growth {
  /** Median of the first and of the second half of the window. */
  firstMedian: number;
  secondMedian: number;
  /** How much more the second half may hold: max(`absolute`, `relative` × first median). */
  allowance: number;
  grows: boolean;
}

/**
 * Splits the window in two halves by time and says the count grows when the median of the
 * later half exceeds the earlier one's by more than the allowance. Medians, because a single
 * sample taken while a merge or a snapshot holds extra files open is no leak; a leak raises
 * every later sample. The allowance absorbs a merge that happens to straddle the split.
 */
export function growthOf(
  seconds: readonly number[],
  values: readonly number[],
  absolute = 2,
  relative = 0.05,
): Growth {
  if (values.length < 2) throw new RangeError('growthOf: needs at least two samples');
  const start = seconds[0]!;
  const split = start + (seconds[seconds.length - 1]! - start) / 2;
  const first: number[] = [];
  const second: number[] = [];
  seconds.forEach((t, i) => (t <= split ? first : second).push(values[i]!));
  if (second.length === 0) second.push(first.pop()!);
  const firstMedian = median(first);
  const secondMedian = median(second);
  const allowance = Math.max(absolute, relative * firstMedian);
  return { firstMedian, secondMedian, allowance, grows: secondMedian - firstMedian > allowance };
}
