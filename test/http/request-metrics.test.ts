import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { RequestCounter, RequestHistogram } from '../../src/http/request-metrics.js';
import { seededRandom } from '../support/seeded-random.js';

const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const METHODS = ['GET', 'PUT', 'POST', 'DELETE'];
// Label values the text format must escape (quote, backslash, newline) among ordinary ones.
const ROUTES = [
  '/s/search.json',
  '/push-api/v1/collections/:collection',
  'unmatched',
  'a "quoted"\\ route\nend',
];
const STATUSES = ['200', '404', '400', '503'];

/** The same metrics, once as prom-client counts them and once as request-metrics.ts does. */
function pair() {
  const theirs = new Registry();
  const ours = new Registry();
  const config = (registry: Registry) => ({
    counter: { name: 'x_requests_total', help: 'Requests "by" route\\status', registers: [registry] },
    histogram: { name: 'x_duration_seconds', help: 'Durations', buckets: BUCKETS, registers: [registry] },
    single: { name: 'x_query_seconds', help: 'Queries', buckets: [0.0005, 0.5, 5], registers: [registry] },
  });
  const t = config(theirs);
  const o = config(ours);
  return {
    theirs,
    ours,
    theirCounter: new Counter({ ...t.counter, labelNames: ['method', 'route', 'status'] as const }),
    ourCounter: new RequestCounter({ ...o.counter, labelNames: ['method', 'route', 'status'] }),
    theirHistogram: new Histogram({ ...t.histogram, labelNames: ['method', 'route'] as const }),
    ourHistogram: new RequestHistogram({ ...o.histogram, labelNames: ['method', 'route'] }),
    theirSingle: new Histogram({ ...t.single, labelNames: ['route'] as const }),
    ourSingle: new RequestHistogram({ ...o.single, labelNames: ['route'] }),
  };
}

describe('request metrics (counted in place)', () => {
  it('scrape to the same text and get() the same values as prom-client fed the same requests', async () => {
    const random = seededRandom(19);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    const m = pair();
    assert.equal(await m.ours.metrics(), await m.theirs.metrics(), 'before any request');
    for (let i = 0; i < 3000; i++) {
      const method = pick(METHODS);
      const route = pick(ROUTES);
      const status = pick(STATUSES);
      // Durations across every bucket, beyond the last, exactly on bounds, and zero.
      const kind = random();
      const seconds =
        kind < 0.1 ? pick(BUCKETS) : kind < 0.15 ? 0 : kind < 0.2 ? 31 + random() * 100 : random() ** 4 * 12;
      m.theirCounter.inc({ method, route, status });
      m.ourCounter.inc([method, route, status]);
      m.theirHistogram.observe({ method, route }, seconds);
      m.ourHistogram.observe([method, route], seconds);
      m.theirSingle.observe({ route }, seconds);
      m.ourSingle.observe([route], seconds);
      if (i % 500 === 499) assert.equal(await m.ours.metrics(), await m.theirs.metrics(), `after ${i + 1}`);
    }
    for (const name of ['x_requests_total', 'x_duration_seconds', 'x_query_seconds']) {
      assert.deepEqual(
        await m.ours.getSingleMetric(name)!.get(),
        await m.theirs.getSingleMetric(name)!.get(),
        name,
      );
    }
    // The admin UI's history reads values as JSON, as the registry lists them.
    assert.deepEqual(await m.ours.getMetricsAsJSON(), await m.theirs.getMetricsAsJSON());
    m.ours.resetMetrics();
    m.theirs.resetMetrics();
    assert.equal(await m.ours.metrics(), await m.theirs.metrics(), 'after a reset');
  });

  it('keeps label sets in the order first seen, not grouped by label value', async () => {
    const m = pair();
    m.ourCounter.inc(['GET', '/a', '200']);
    m.ourCounter.inc(['POST', '/b', '200']);
    m.ourCounter.inc(['GET', '/a', '404']);
    m.ourCounter.inc(['GET', '/a', '200']);
    const values = (await m.ourCounter.get()).values.map((v) => [v.labels.method, v.labels.status, v.value]);
    assert.deepEqual(values, [
      ['GET', '200', 2],
      ['POST', '200', 1],
      ['GET', '404', 1],
    ]);
  });

  it('refuses what prom-client refuses: a value that is not a number, a wrong number of labels, an le label', () => {
    const m = pair();
    assert.throws(() => m.ourHistogram.observe(['GET', '/a'], Number.NaN), TypeError);
    assert.throws(() => m.ourHistogram.observe(['GET', '/a'], Infinity), TypeError);
    assert.throws(() => m.ourHistogram.observe(['GET'], 1), RangeError);
    assert.throws(() => m.ourCounter.inc(['GET', '/a']), RangeError);
    assert.throws(
      () => new RequestHistogram({ name: 'y', help: 'y', labelNames: ['le'], buckets: [1], registers: [] }),
      /le is a reserved label/,
    );
    // A name registered twice is refused by the registry, as for prom-client's metrics.
    assert.throws(
      () =>
        new RequestCounter({
          name: 'x_requests_total',
          help: 'again',
          labelNames: ['a'],
          registers: [m.ours],
        }),
      /already been registered/,
    );
  });
});
