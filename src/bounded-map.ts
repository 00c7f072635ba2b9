/**
 * A map that remembers at least the `keep` most recently used keys and never holds more than
 * twice as many: the bounded caches and memos of every layer (term lookups, parsed postings
 * shapes, URL signatures, login failures...), so that a stream of new keys cannot grow memory
 * without bound.
 *
 * Two generations of Maps (an approximation of least recently used): a key set, or found by
 * {@link get} in the old generation, goes into the young one; when the young one holds `keep`
 * keys and another comes, the old one is dropped whole and the young one takes its place. So
 * an eviction costs nothing per key. Dropping the first inserted key of a single full Map
 * instead (`map.delete(map.keys().next().value)`) cost 1.3-2.9 µs per insert into 4,096 keys
 * in V8, against 0.1-0.2 µs (`bench/bounded-caches.ts`): a Map's iterator walks over the
 * entries deleted at the start of its table on every `next()` until the table is rebuilt.
 *
 * Each key is in one generation at most; values should not be `undefined` (an `undefined`
 * value is returned as stored but not promoted by {@link get}).
 */
export class BoundedMap<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  /** @param keep the most recently used keys always kept (at least 1); at most 2 × keep are held. */
  constructor(readonly keep: number) {
    if (!(Number.isInteger(keep) && keep >= 1))
      throw new RangeError(`keep must be an integer >= 1, got ${keep}`);
  }

  /** The value of `key`, or undefined; a key found becomes the most recently used. */
  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const older = this.old.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  /** The value of `key`, or undefined, leaving its recency as it was (a look that should not keep it). */
  peek(key: K): V | undefined {
    const value = this.young.get(key);
    return value !== undefined ? value : this.old.get(key);
  }

  /** Whether `key` is held (its recency unchanged). */
  has(key: K): boolean {
    return this.young.has(key) || this.old.has(key);
  }

  /** Sets `key` as the most recently used key, dropping the old generation if the young one is full. */
  set(key: K, value: V): this {
    const young = this.young;
    if (young.size >= this.keep && !young.has(key)) {
      // The old generation goes whole (with `key`, if it was there).
      this.old = young;
      this.young = new Map();
    } else if (this.old.size > 0) {
      this.old.delete(key);
    }
    this.young.set(key, value);
    return this;
  }

  /** Forgets `key`; true when it was held. */
  delete(key: K): boolean {
    return this.young.delete(key) || this.old.delete(key);
  }

  /** Forgets every key. */
  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }

  /** Keys held: between 0 and 2 × {@link keep}. */
  get size(): number {
    return this.young.size + this.old.size;
  }
}
