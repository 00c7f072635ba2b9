/** The body of `clicks.json` that belongs to the store. */
export interface ClickStoreData {
  /** The time (ms since the epoch) every weight is decayed to. */
  asOf: number;
  /** key → [query, weight] pairs. */
  keys: [string, [string, number][]][];
}

/** Click evidence of one document. */
export interface DocumentClicks {
  /** Queries that led to clicks on it, heaviest first, with their decayed weights. */
  queries: { query: string; weight: number }[];
  /** The sum of the weights. */
  total: number;
}

/** Weights below this are forgotten (a single click after about 6.6 half-lives). */
export const MIN_CLICK_WEIGHT = 0.01;
/** Longest query kept as click evidence. */
export const MAX_CLICK_QUERY_LENGTH = 256;

const DAY_MS = 86_400_000;

/**
 * Decayed click weights per document and query. A click at time `t` weighs
 * `2^-((now - t) / halfLife)` at time `now`: one click today counts 1, one click a half-life
 * ago 0.5. All weights are kept decayed to one reference time (`asOf`), so that adding
 * clicks and ageing everything are both cheap: {@link advance} multiplies every weight by
 * the decay since `asOf`. Clicks from the future (clock skew) count as clicks at `asOf`.
 */
export class ClickStore {
  private asOfMs: number;
  private readonly byKey = new Map<string, Map<string, number>>();
  private readonly halfLifeMs: number;

  constructor(halfLifeDays: number, asOf = 0) {
    if (!(halfLifeDays > 0))
      throw new RangeError(`the click half-life must be a positive number of days, got ${halfLifeDays}`);
    this.halfLifeMs = halfLifeDays * DAY_MS;
    this.asOfMs = asOf;
  }

  get asOf(): number {
    return this.asOfMs;
  }

  /** Documents with click evidence. */
  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  get size(): number {
    return this.byKey.size;
  }

  /**
   * Ages every weight to `now` (nothing when `now` is not later than `asOf`) and forgets
   * weights below {@link MIN_CLICK_WEIGHT}. Returns the keys that lost all their evidence.
   */
  advance(now: number): string[] {
    if (!(now > this.asOfMs)) return [];
    const factor = 2 ** (-(now - this.asOfMs) / this.halfLifeMs);
    this.asOfMs = now;
    const emptied: string[] = [];
    for (const [key, queries] of this.byKey) {
      for (const [query, weight] of queries) {
        const next = weight * factor;
        if (next < MIN_CLICK_WEIGHT) queries.delete(query);
        else queries.set(query, next);
      }
      if (queries.size === 0) {
        this.byKey.delete(key);
        emptied.push(key);
      }
    }
    return emptied;
  }

  /** Adds one click on `key` for `query` that happened at `time` (ms). Returns the weight added. */
  add(key: string, query: string, time: number): number {
    const weight = time >= this.asOfMs ? 1 : 2 ** (-(this.asOfMs - time) / this.halfLifeMs);
    if (weight < MIN_CLICK_WEIGHT) return 0;
    let queries = this.byKey.get(key);
    if (queries === undefined) this.byKey.set(key, (queries = new Map<string, number>()));
    queries.set(query, (queries.get(query) ?? 0) + weight);
    return weight;
  }

  evidenceFor(key: string): DocumentClicks | undefined {
    const queries = this.byKey.get(key);
    if (queries === undefined || queries.size === 0) return undefined;
    const list = [...queries].map(([query, weight]) => ({ query, weight }));
    list.sort((a, b) => b.weight - a.weight || (a.query < b.query ? -1 : a.query > b.query ? 1 : 0));
    return { queries: list, total: list.reduce((sum, q) => sum + q.weight, 0) };
  }

  toData(): ClickStoreData {
    return { asOf: this.asOfMs, keys: [...this.byKey].map(([key, queries]) => [key, [...queries]]) };
  }

  /** Rebuilds a store from {@link toData}'s output. Throws TypeError on a malformed value. */
  static fromData(data: ClickStoreData, halfLifeDays: number): ClickStore {
    if (typeof data.asOf !== 'number' || !Array.isArray(data.keys))
      throw new TypeError('asOf must be a number and keys an array');
    const store = new ClickStore(halfLifeDays, data.asOf);
    for (const [key, queries] of data.keys) {
      if (typeof key !== 'string' || !Array.isArray(queries))
        throw new TypeError('a click entry must be a key and a list');
      const map = new Map<string, number>();
      for (const [query, weight] of queries) {
        if (typeof query !== 'string' || typeof weight !== 'number' || !Number.isFinite(weight)) {
          throw new TypeError('a click weight must be a query and a finite number');
        }
        map.set(query, weight);
      }
      if (map.size > 0) store.byKey.set(key, map);
    }
    return store;
  }
}

/**
 * The query of a click as evidence: lower-cased, operators dropped (excluded `-words`,
 * `class:` prefixes, quotes, brackets, `+`, `*`), whitespace collapsed, cut to
 * {@link MAX_CLICK_QUERY_LENGTH}. Empty when nothing is left (such clicks still count
 * towards the document's overall click score, under the empty query).
 */
export function normalizeClickQuery(query: string): string {
  const words: string[] = [];
  for (const raw of query.toLowerCase().split(/\s+/)) {
    if (raw === '' || raw.startsWith('-')) continue;
    const word = raw
      .replace(/^[a-z0-9_]+:/i, '')
      .replace(/["[\]()+*]/g, '')
      .trim();
    if (word !== '') words.push(word);
  }
  const text = words.join(' ');
  return text.length > MAX_CLICK_QUERY_LENGTH ? text.slice(0, MAX_CLICK_QUERY_LENGTH) : text;
}
