import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ByteBudget } from '../../src/http/byte-budget.js';

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ByteBudget', () => {
  it('grants at once while there is room, queues beyond it, and serves the queue in order', async () => {
    const budget = new ByteBudget(100);
    const a = await budget.acquire(60);
    const b = await budget.acquire(40);
    assert.equal(budget.inUse, 100);

    const order: string[] = [];
    const c = budget.acquire(50).then((release) => (order.push('c'), release));
    const d = budget.acquire(10).then((release) => (order.push('d'), release));
    await settle();
    assert.deepEqual(order, [], 'nothing fits');
    assert.equal(budget.waiting, 2);

    b(); // 40 free: c (50) still does not fit, and d waits behind it (no overtaking)
    await settle();
    assert.deepEqual(order, []);
    a();
    await settle();
    assert.deepEqual(order, ['c', 'd']);
    assert.equal(budget.inUse, 60);
    (await c)();
    (await d)();
    assert.equal(budget.inUse, 0);
  });

  it('tryAcquire grants only with room and nobody waiting (no overtaking the line)', async () => {
    const budget = new ByteBudget(100);
    const a = budget.tryAcquire(70);
    assert.ok(a);
    assert.equal(budget.tryAcquire(40), undefined, 'no room');
    const waiter = budget.acquire(50);
    assert.equal(budget.tryAcquire(10), undefined, 'room for 10, but a waiter is first in line');
    a();
    const release = await waiter;
    assert.equal(budget.inUse, 50);
    const b = budget.tryAcquire(50);
    assert.ok(b);
    release();
    b();
    assert.equal(budget.inUse, 0);
  });

  it('release is idempotent', async () => {
    const budget = new ByteBudget(10);
    const release = await budget.acquire(10);
    release();
    release();
    assert.equal(budget.inUse, 0);
    await budget.acquire(10);
    assert.equal(budget.inUse, 10);
  });

  it('a reservation larger than the capacity is cut to it and runs alone', async () => {
    const budget = new ByteBudget(10);
    const release = await budget.acquire(1000);
    assert.equal(budget.inUse, 10);
    let second = false;
    const next = budget.acquire(1).then((r) => ((second = true), r));
    await settle();
    assert.equal(second, false);
    release();
    (await next)();
    assert.equal(second, true);
  });

  it('an aborted waiter leaves the line and unblocks those behind it', async () => {
    const budget = new ByteBudget(10);
    const held = await budget.acquire(5);
    const controller = new AbortController();
    const big = budget.acquire(10, controller.signal);
    let small = false;
    const next = budget.acquire(5).then((r) => ((small = true), r));
    await settle();
    assert.equal(small, false, 'blocked behind the big waiter');
    controller.abort(new Error('client left'));
    await assert.rejects(big, /client left/);
    (await next)();
    assert.equal(small, true);
    held();
    assert.equal(budget.inUse, 0);
    assert.equal(budget.waiting, 0);
  });

  it('one owner holds at most its share; its waiters do not hold up other owners', async () => {
    const budget = new ByteBudget(100, { ownerShare: 0.5 });
    const a1 = budget.tryAcquire(30, 'slow');
    assert.ok(a1);
    assert.equal(budget.tryAcquire(30, 'slow'), undefined, 'over the share of slow');
    const order: string[] = [];
    const a2 = budget.acquire(30, undefined, 'slow').then((r) => (order.push('slow'), r));
    // Another owner is not behind slow's waiter: it goes at once.
    const b = budget.tryAcquire(40, 'other');
    assert.ok(b, 'other gets room while slow waits for its share');
    assert.equal(budget.inUseBy('slow'), 30);
    assert.equal(budget.inUseBy('other'), 40);
    a1();
    await settle();
    assert.deepEqual(order, ['slow']);
    (await a2)();
    b();
    assert.equal(budget.inUse, 0);
    assert.equal(budget.inUseBy('slow'), 0);
  });

  it('a reservation larger than the share is cut to the share; a lack of room overall still keeps the order', async () => {
    const budget = new ByteBudget(100, { ownerShare: 0.5 });
    const big = await budget.acquire(1000, undefined, 'a');
    assert.equal(budget.inUse, 50);
    const held = await budget.acquire(40, undefined, 'b');
    const order: string[] = [];
    const c = budget.acquire(30, undefined, 'c').then((r) => (order.push('c'), r));
    const d = budget.acquire(5, undefined, 'd').then((r) => (order.push('d'), r));
    await settle();
    assert.deepEqual(order, [], 'c lacks room overall, so d waits behind it');
    assert.equal(budget.tryAcquire(5, 'e'), undefined, 'no overtaking c');
    big();
    await settle();
    assert.deepEqual(order, ['c', 'd']);
    held();
    (await c)();
    (await d)();
    assert.equal(budget.inUse, 0);
  });
});
