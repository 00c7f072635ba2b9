import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedMap } from '../src/bounded-map.js';

describe('BoundedMap', () => {
  it('answers like a Map for the keys it holds: get, has, set (replacing), delete', () => {
    const map = new BoundedMap<string, number | null>(4);
    assert.equal(map.get('a'), undefined);
    assert.equal(map.has('a'), false);
    assert.equal(map.set('a', 1), map);
    map.set('b', null);
    assert.equal(map.get('a'), 1);
    assert.equal(map.get('b'), null, 'a null value is a value');
    assert.equal(map.has('b'), true);
    map.set('a', 2);
    assert.equal(map.get('a'), 2);
    assert.equal(map.size, 2);
    assert.equal(map.delete('a'), true);
    assert.equal(map.delete('a'), false);
    assert.equal(map.get('a'), undefined);
    assert.equal(map.has('a'), false);
    assert.equal(map.size, 1);
    map.clear();
    assert.equal(map.size, 0);
    assert.equal(map.has('b'), false);
  });

  it('drops the least recently used keys, a generation at a time, once the young one is full', () => {
    const map = new BoundedMap<number, string>(3);
    for (const key of [1, 2, 3]) map.set(key, `v${key}`);
    map.set(4, 'v4'); // 1, 2, 3 become the old generation; 4 starts the young one
    assert.equal(map.size, 4);
    for (const key of [5, 6]) map.set(key, `v${key}`);
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((k) => map.has(k)),
      [true, true, true, true, true, true],
    );
    map.set(7, 'v7'); // the young one (4, 5, 6) was full: 1, 2, 3 are dropped together
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7].map((k) => map.has(k)),
      [false, false, false, true, true, true, true],
    );
    assert.equal(map.size, 4);
  });

  it('keeps a key found by get (promoted to the young generation), not one only peeked at or tested', () => {
    const map = new BoundedMap<number, string>(2);
    map.set(1, 'one').set(2, 'two').set(3, 'three'); // old: 1, 2; young: 3
    assert.equal(map.get(1), 'one'); // promoted: young is 3, 1
    assert.equal(map.peek(2), 'two');
    assert.equal(map.has(2), true);
    map.set(4, 'four'); // young (3, 1) was full: old 2 goes
    assert.equal(map.get(1), 'one');
    assert.equal(map.has(2), false);
    assert.equal(map.peek(2), undefined);
    assert.equal(map.get(3), 'three');
    assert.equal(map.size, 3);
  });

  it('setting a key of the old generation moves it (no stale value left behind)', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('c', 3); // old: a, b; young: c
    map.set('a', 10); // young: c, a
    assert.equal(map.size, 3);
    assert.equal(map.delete('a'), true);
    assert.equal(map.get('a'), undefined, 'deleting removes the only copy');
  });

  it('over random operations: holds at most 2 × keep, and each of the keep keys used last (unless deleted) with its last value', () => {
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (const keep of [1, 2, 7, 50]) {
      const map = new BoundedMap<number, number>(keep);
      // The oracle: every live key's last value, and the order of use (least recent first).
      const values = new Map<number, number>();
      let order: number[] = [];
      const use = (key: number) => {
        order = order.filter((k) => k !== key);
        order.push(key);
      };
      for (let step = 0; step < 5000; step++) {
        const key = random(keep * 4);
        const op = random(10);
        if (op < 5) {
          map.set(key, step);
          values.set(key, step);
          use(key);
        } else if (op < 8) {
          const got = map.get(key);
          if (got !== undefined) {
            assert.equal(got, values.get(key), `keep ${keep} step ${step}: get(${key})`);
            use(key);
          }
        } else if (op < 9) {
          const held = map.has(key);
          assert.equal(map.delete(key), held);
          assert.equal(map.has(key), false);
          values.delete(key); // still among the recently used, but no longer to be held
        } else {
          const peeked = map.peek(key);
          if (peeked !== undefined) assert.equal(peeked, values.get(key));
        }
        assert.ok(map.size <= 2 * keep, `keep ${keep} step ${step}: size ${map.size}`);
        // As an exact LRU of `keep`: each of the last `keep` keys used is held, unless deleted since.
        for (const recent of order.slice(-keep))
          assert.equal(map.peek(recent), values.get(recent), `keep ${keep} step ${step}: ${recent}`);
      }
    }
  });

  it('refuses a bound that keeps nothing', () => {
    assert.throws(() => new BoundedMap(0), RangeError);
    assert.throws(() => new BoundedMap(1.5), RangeError);
  });
});
