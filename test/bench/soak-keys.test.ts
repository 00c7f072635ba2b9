import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprint, KeyBook } from '../../bench/lib/soak-keys.js';

/** A deterministic random source, so the picks are reproducible. */
function seeded(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

void describe('soak key book', () => {
  void it('tracks the last acknowledged change of each key and the expected live count', () => {
    const book = new KeyBook(seeded(1));
    book.put('a', fingerprint('A1'), undefined, false);
    book.put('b', fingerprint('B1'), undefined, false);
    book.put('a', fingerprint('A2'), 'tokaone');
    book.delete('b');
    book.put('c', fingerprint('C1'), 'tokcone');
    assert.equal(book.liveCount, 2);
    assert.equal(book.deletedCount, 1);
    assert.deepEqual(book.record('a'), {
      live: true,
      fingerprint: fingerprint('A2'),
      token: 'tokaone',
      previousToken: undefined,
      touched: true,
    });
    assert.equal(book.record('b')!.live, false);

    // A replaced version's word, and a deleted key's last word, must not be found any more.
    book.put('a', fingerprint('A3'), 'tokatwo');
    assert.equal(book.record('a')!.previousToken, 'tokaone');
    book.delete('c');
    assert.equal(book.record('c')!.previousToken, 'tokcone');
    book.put('c', fingerprint('C2'), 'tokcthree');
    assert.equal(book.record('c')!.previousToken, 'tokcone');
  });

  void it('never offers a claimed key, so two changes to one key are never in flight together', () => {
    const book = new KeyBook(seeded(2));
    for (const key of ['a', 'b', 'c']) book.put(key, fingerprint(key), undefined, false);
    const claimed = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const key = book.claimLive();
      assert.ok(key !== undefined && !claimed.has(key));
      claimed.add(key);
    }
    assert.equal(book.claimLive(), undefined);
    assert.equal(book.claim('a'), false);
    book.release('b');
    assert.equal(book.claimLive(), 'b');
  });

  void it('sets a key whose change failed aside: not counted, not offered, not checked', () => {
    const book = new KeyBook(seeded(3));
    book.put('a', fingerprint('a'), undefined, false);
    book.put('b', fingerprint('b'), 'tokb');
    book.uncertain('a');
    assert.equal(book.liveCount, 1);
    assert.equal(book.uncertainCount, 1);
    assert.equal(book.known('a'), true);
    assert.equal(book.claim('a'), false);
    const sample = book.sample(10);
    assert.deepEqual(sample, { touchedLive: ['b'], deleted: [], untouched: [] });
  });

  void it('samples distinct keys of each kind, at most the count asked', () => {
    const book = new KeyBook(seeded(4));
    for (let i = 0; i < 50; i++) book.put(`k${i}`, fingerprint(String(i)), undefined, false);
    for (let i = 0; i < 20; i++) book.put(`k${i}`, fingerprint(`new${i}`), `tok${i}`);
    for (let i = 20; i < 30; i++) book.delete(`k${i}`);
    const sample = book.sample(8);
    assert.equal(sample.touchedLive.length, 8);
    assert.equal(sample.deleted.length, 8);
    assert.equal(sample.untouched.length, 8);
    assert.equal(new Set(sample.touchedLive).size, 8);
    for (const key of sample.touchedLive) assert.ok(Number(key.slice(1)) < 20);
    for (const key of sample.deleted) assert.ok(Number(key.slice(1)) >= 20 && Number(key.slice(1)) < 30);
    for (const key of sample.untouched) assert.ok(Number(key.slice(1)) >= 30);
    assert.equal(book.sample(100).untouched.length, 20);
  });
});
