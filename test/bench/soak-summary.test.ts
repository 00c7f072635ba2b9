import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callRows, growthOf, isFlat, slope, spreadOf } from '../../bench/lib/soak-summary.js';

const seconds = (n: number): number[] => Array.from({ length: n }, (_, i) => i * 5);

void describe('soak summary: calls', () => {
  void it('gives count, rate, nearest-rank p50/p99 and errors per call, in the order asked, unknown calls last', () => {
    const calls = new Map([
      ['search', { ms: Array.from({ length: 100 }, (_, i) => i + 1), errors: 0 }],
      ['other', { ms: [5], errors: 1 }],
      ['put', { ms: [10, 30, 20], errors: 2 }],
    ]);
    const rows = callRows(calls, 10, ['put', 'delete', 'search']);
    assert.deepEqual(
      rows.map((r) => r.call),
      ['put', 'search', 'other'],
    );
    assert.deepEqual(rows[0], {
      call: 'put',
      count: 3,
      perSecond: 0.3,
      p50Ms: 20,
      p99Ms: 30,
      maxMs: 30,
      errors: 2,
    });
    assert.equal(rows[1]!.p50Ms, 50.5);
    assert.equal(rows[1]!.p99Ms, 99);
    assert.equal(rows[1]!.perSecond, 10);
  });
});

void describe('soak summary: flat RSS', () => {
  void it('is flat while every sample stays within ±10% of the median, not once one leaves it', () => {
    const steady = spreadOf(seconds(6), [100, 105, 95, 102, 98, 109]);
    assert.equal(steady.median, 101);
    assert.ok(isFlat(steady));
    const spike = spreadOf(seconds(6), [100, 105, 95, 102, 98, 125]);
    assert.ok(!isFlat(spike));
    assert.ok(Math.abs(spike.deviation - 24 / 101) < 1e-12);
  });

  void it('reports a steady climb as a positive slope per minute', () => {
    const climb = spreadOf(
      seconds(13),
      Array.from({ length: 13 }, (_, i) => 1000 + i * 10),
    );
    assert.ok(Math.abs(climb.slopePerMinute - 120) < 1e-9); // 10 per 5 s
    assert.equal(slope([1, 1], [3, 5]), 0);
  });

  void it('refuses an empty window', () => {
    assert.throws(() => spreadOf([], []), RangeError);
  });
});

void describe('soak summary: growing counts', () => {
  void it('a leak that raises every later sample grows; one busy sample and a plateau do not', () => {
    const leak = growthOf(seconds(12), [80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91]);
    assert.equal(leak.grows, true);
    assert.equal(leak.firstMedian, 82.5);
    assert.equal(leak.secondMedian, 88.5);

    const mergeSpike = growthOf(seconds(12), [80, 80, 81, 80, 80, 80, 80, 80, 140, 80, 81, 80]);
    assert.equal(mergeSpike.grows, false);

    const noisy = growthOf(seconds(8), [100, 104, 101, 99, 103, 100, 105, 102]);
    assert.equal(noisy.grows, false);
    assert.equal(noisy.allowance, 0.05 * 100.5); // 5% of the first median beats the absolute 2
  });

  void it('honours a zero allowance (threads) and a relative one (heap)', () => {
    assert.equal(growthOf(seconds(4), [10, 10, 11, 11], 0, 0).grows, true);
    assert.equal(growthOf(seconds(4), [10, 10, 11, 11], 1, 0).grows, false);
    assert.equal(growthOf(seconds(4), [100, 100, 109, 109], 0, 0.1).grows, false);
    assert.equal(growthOf(seconds(4), [100, 100, 111, 111], 0, 0.1).grows, true);
  });
});
