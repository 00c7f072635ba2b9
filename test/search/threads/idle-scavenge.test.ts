import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import {
  IdleScavenger,
  minorGc,
  shouldScavenge,
  type YoungGeneration,
} from '../../../src/search/threads/idle-scavenge.js';

const KB = 1024;
const MB = 1024 * KB;

/** A young generation the test fills and empties by hand, and the scavenges asked of it. */
function fakeYoungGeneration(capacity: number) {
  const state = { used: 0, scavenges: 0 };
  const read = (): YoungGeneration => ({ used: state.used, free: capacity - state.used });
  const collect = () => {
    state.scavenges++;
    state.used = 0;
  };
  return { state, read, collect };
}

describe('shouldScavenge', () => {
  it('keeps room for twice the most a recent query allocated', () => {
    const recent = [100 * KB, 300 * KB, 0, 50 * KB];
    assert.equal(shouldScavenge(600 * KB, recent), false);
    assert.equal(shouldScavenge(600 * KB - 1, recent), true);
  });

  it('keeps 2 MiB before any query was measured', () => {
    assert.equal(shouldScavenge(2 * MB, [0, 0]), false);
    assert.equal(shouldScavenge(2 * MB - 1, [0, 0]), true);
  });
});

describe('IdleScavenger', () => {
  it('scavenges after the query that leaves too little room for the next, not before', () => {
    const young = fakeYoungGeneration(4 * MB);
    const scavenger = new IdleScavenger(young.collect, young.read);
    const scavenged: boolean[] = [];
    for (let query = 0; query < 12; query++) {
      scavenger.queryStarts();
      young.state.used += 500 * KB;
      scavenged.push(scavenger.queryEnded(false));
    }
    // Room for 2 x 500 KB is kept: the 7th query leaves 4 MB - 3.5 MB = 512 KB.
    assert.deepEqual(
      scavenged.map((s, i) => (s ? i + 1 : 0)).filter((q) => q > 0),
      [7],
    );
    assert.equal(young.state.scavenges, 1);
  });

  it('leaves the scavenge to V8 when other queries were waiting', () => {
    const young = fakeYoungGeneration(4 * MB);
    const scavenger = new IdleScavenger(young.collect, young.read);
    for (let query = 0; query < 12; query++) {
      scavenger.queryStarts();
      young.state.used = Math.min(4 * MB, young.state.used + 500 * KB);
      assert.equal(scavenger.queryEnded(true), false);
    }
    assert.equal(young.state.scavenges, 0);
  });

  it('does not count a query during which V8 scavenged as allocating nothing known', () => {
    const young = fakeYoungGeneration(4 * MB);
    const scavenger = new IdleScavenger(young.collect, young.read);
    scavenger.queryStarts();
    young.state.used = 3 * MB;
    scavenger.queryEnded(false); // 3 MB allocated, 1 MB free: scavenged (room for 6 MB wanted)
    assert.equal(young.state.scavenges, 1);
    young.state.used = 1 * MB;
    scavenger.queryStarts();
    young.state.used = 200 * KB; // V8 scavenged during this query: allocation unknown
    // The 3 MB query is still among the recent ones: 3.8 MB free < 6 MB wanted.
    assert.equal(scavenger.queryEnded(false), true);
  });

  it('never scavenges without a collector', () => {
    let reads = 0;
    const scavenger = new IdleScavenger(null, () => {
      reads++;
      return { used: 4 * MB, free: 0 };
    });
    scavenger.queryStarts();
    assert.equal(scavenger.queryEnded(false), false);
    assert.equal(reads, 0);
  });
});

describe('minorGc', () => {
  it('runs a minor GC of this isolate', async () => {
    const collect = minorGc();
    assert.notEqual(collect, null);
    const kinds: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        kinds.push((entry as unknown as { detail: { kind: number } }).detail.kind);
    });
    observer.observe({ entryTypes: ['gc'] });
    try {
      collect!();
      const deadline = Date.now() + 5000;
      while (!kinds.includes(constants.NODE_PERFORMANCE_GC_MINOR) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      observer.disconnect();
    }
    assert.ok(kinds.includes(constants.NODE_PERFORMANCE_GC_MINOR), `GC kinds seen: ${kinds.join(', ')}`);
    // No global of this context was added.
    assert.equal('gc' in globalThis, false);
  });
});
