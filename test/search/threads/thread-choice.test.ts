import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { takeIdleThread, type ThreadChoicePolicy } from '../../../src/search/threads/thread-choice.js';

interface FakeThread {
  name: string;
  isReady: boolean;
  busy: boolean;
  dispatched: number;
  lastDispatchedAt: number;
  lastRecentAt: number;
}

const POLICY: ThreadChoicePolicy = { warmUpQueries: 4, refreshAfterMs: 1000 };

function thread(name: string, fields: Partial<FakeThread> = {}): FakeThread {
  return { name, isReady: true, busy: false, dispatched: 0, lastDispatchedAt: 0, lastRecentAt: 0, ...fields };
}

/** Queries one at a time, at the given times; the name of the thread each went to. */
function oneAtATime(threads: FakeThread[], times: number[]): string[] {
  return times.map((now) => takeIdleThread(threads, now, POLICY)!.name);
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('takeIdleThread', () => {
  it('threads take turns while warming up, then queries one at a time stay on one thread', () => {
    const threads = [thread('a'), thread('b')];
    const names = oneAtATime(threads, range(1, 20));
    assert.deepEqual(names.slice(0, 8), ['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b']);
    // Warm: one thread takes every query (hot in its core's caches).
    assert.equal(new Set(names.slice(8)).size, 1);
    assert.equal(threads[0]!.dispatched + threads[1]!.dispatched, 20);
  });

  it('a thread idle for refreshAfterMs takes one query as a turn; the most recently used one keeps the rest', () => {
    const threads = [thread('a'), thread('b')];
    const names = oneAtATime(threads, [...range(1, 8), ...range(100, 3000)]);
    const after = names.slice(8);
    const hot = after[0]!;
    const other = hot === 'a' ? 'b' : 'a';
    // The other thread is due once a second (at 1000, 2000 and 3000 ms after its last query).
    const turns = after.flatMap((name, i) => (name === other ? [100 + i] : []));
    assert.equal(turns.length, 3, `turns at ${turns.join(', ')}`);
    for (let i = 1; i < turns.length; i++) assert.equal(turns[i]! - turns[i - 1]!, 1000);
    // After each turn the next query goes back to the hot thread.
    for (const at of turns) assert.equal(after[at - 100 + 1], hot);
  });

  it('a busy thread is never taken; a thread still starting only when no listening one is idle', () => {
    const warm = { dispatched: 100, lastDispatchedAt: 50, lastRecentAt: 50 };
    assert.equal(
      takeIdleThread([thread('a', { ...warm, busy: true }), thread('b', { isReady: false })], 60, POLICY)!
        .name,
      'b',
    );
    assert.equal(
      takeIdleThread(
        [thread('s', { isReady: false }), thread('a', { ...warm, busy: true }), thread('c', warm)],
        60,
        POLICY,
      )!.name,
      'c',
    );
    assert.equal(takeIdleThread([thread('a', { busy: true }), null], 60, POLICY), null);
  });

  it('of several idle threads, the due one idle longest goes first, then the most recently used', () => {
    const warm = (at: number) => ({ dispatched: 100, lastDispatchedAt: at, lastRecentAt: at });
    const threads = [
      thread('a', warm(4000)),
      thread('b', warm(4500)),
      thread('c', warm(2000)),
      thread('d', warm(1000)),
    ];
    assert.equal(takeIdleThread(threads, 4600, POLICY)!.name, 'd');
    threads[3]!.busy = true;
    assert.equal(takeIdleThread(threads, 4600, POLICY)!.name, 'c');
    threads[2]!.busy = true;
    assert.equal(takeIdleThread(threads, 4600, POLICY)!.name, 'b');
    // The turns did not make c and d the most recently used.
    threads[2]!.busy = threads[3]!.busy = false;
    assert.equal(takeIdleThread(threads, 4700, POLICY)!.name, 'b');
  });
});
