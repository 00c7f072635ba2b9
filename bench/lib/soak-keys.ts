/**
 * The soak benchmark's record of what the server must hold: for every key, whether its last
 * acknowledged change was a put (with a fingerprint of the content sent) or a delete.
 *
 * The record is exact only if no two changes to one key are ever in flight together: their
 * acknowledgements could then arrive in another order than the server applied them. So a
 * worker {@link KeyBook.claim}s a key before changing (or reading) it and releases it after,
 * and the pickers only offer keys nobody holds. A change that fails (non-2xx, network error)
 * leaves the key's state unknown: it is set aside as uncertain and never checked.
 */
import { createHash } from 'node:crypto';

/** What the book knows of one key. */
export interface KeyRecord {
  live: boolean;
  /** {@link fingerprint} of the content of the last acknowledged put. */
  fingerprint: string;
  /** The unique word of the last put made during the soak (none for pages only loaded). */
  token?: string;
  /** The unique word of the put before that one: it must not be found any more. */
  previousToken?: string;
  /** Changed during the soak (not only loaded). */
  touched: boolean;
}

/** A short digest of a document's content, to compare what GET returns with what was put. */
export function fingerprint(content: string | Buffer): string {
  return createHash('md5').update(content).digest('base64url').slice(0, 16);
}

/** A set of keys with O(1) add, remove and uniform random pick. */
class KeyPool {
  private readonly keys: string[] = [];
  private readonly index = new Map<string, number>();

  get size(): number {
    return this.keys.length;
  }

  add(key: string): void {
    if (this.index.has(key)) return;
    this.index.set(key, this.keys.length);
    this.keys.push(key);
  }

  remove(key: string): void {
    const at = this.index.get(key);
    if (at === undefined) return;
    const last = this.keys.pop()!;
    if (last !== key) {
      this.keys[at] = last;
      this.index.set(last, at);
    }
    this.index.delete(key);
  }

  random(random: () => number): string | undefined {
    return this.keys.length === 0 ? undefined : this.keys[Math.floor(random() * this.keys.length)];
  }

  all(): readonly string[] {
    return this.keys;
  }
}

/** See the module comment. */
export class KeyBook {
  private readonly records = new Map<string, KeyRecord>();
  private readonly livePool = new KeyPool();
  private readonly deletedPool = new KeyPool();
  private readonly claimed = new Set<string>();
  private readonly uncertainKeys = new Set<string>();

  constructor(private readonly random: () => number = Math.random) {}

  /** Keys whose last acknowledged change is a put. */
  get liveCount(): number {
    return this.livePool.size;
  }

  get deletedCount(): number {
    return this.deletedPool.size;
  }

  /** Keys whose state is unknown after a failed change. */
  get uncertainCount(): number {
    return this.uncertainKeys.size;
  }

  record(key: string): KeyRecord | undefined {
    return this.records.get(key);
  }

  /** Whether `key` was ever put or deleted here (new keys for adds must not be). */
  known(key: string): boolean {
    return this.records.has(key) || this.uncertainKeys.has(key);
  }

  /** A live key nobody holds, claimed for the caller; undefined when none was found quickly. */
  claimLive(): string | undefined {
    return this.claimFrom(this.livePool);
  }

  /** A deleted key nobody holds (to add it again), claimed; undefined when none. */
  claimDeleted(): string | undefined {
    return this.claimFrom(this.deletedPool);
  }

  /** Claims a key the caller chose (a new one); false when someone holds it. */
  claim(key: string): boolean {
    if (this.claimed.has(key) || this.uncertainKeys.has(key)) return false;
    this.claimed.add(key);
    return true;
  }

  release(key: string): void {
    this.claimed.delete(key);
  }

  /** The server acknowledged a put of `content` at `key` (token: its unique word, when it has one). */
  put(key: string, print: string, token?: string, touched = true): void {
    const before = this.records.get(key);
    this.records.set(key, {
      live: true,
      fingerprint: print,
      token,
      previousToken: before?.token ?? before?.previousToken,
      touched: touched || (before?.touched ?? false),
    });
    this.deletedPool.remove(key);
    this.livePool.add(key);
  }

  /** The server acknowledged a delete of `key`. */
  delete(key: string): void {
    const before = this.records.get(key);
    this.records.set(key, {
      live: false,
      fingerprint: '',
      token: undefined,
      // A deleted key's last words must not be found: keep the last one to search for.
      previousToken: before?.token ?? before?.previousToken,
      touched: true,
    });
    this.livePool.remove(key);
    this.deletedPool.add(key);
  }

  /** A change to `key` failed: what the server holds is unknown, so the key is never checked. */
  uncertain(key: string): void {
    this.records.delete(key);
    this.livePool.remove(key);
    this.deletedPool.remove(key);
    this.uncertainKeys.add(key);
  }

  /**
   * Up to `count` keys of each kind, at random, for the final verification: touched keys that
   * are live, touched keys that are deleted, and loaded keys never touched since.
   */
  sample(count: number): { touchedLive: string[]; deleted: string[]; untouched: string[] } {
    const touchedLive: string[] = [];
    const untouched: string[] = [];
    for (const key of this.livePool.all()) {
      if (this.records.get(key)!.touched) touchedLive.push(key);
      else untouched.push(key);
    }
    return {
      touchedLive: pick(touchedLive, count, this.random),
      deleted: pick([...this.deletedPool.all()], count, this.random),
      untouched: pick(untouched, count, this.random),
    };
  }

  private claimFrom(pool: KeyPool): string | undefined {
    // A few tries: with thousands of keys and a few dozen claimed, the first nearly always works.
    for (let attempt = 0; attempt < 16; attempt++) {
      const key = pool.random(this.random);
      if (key === undefined) return undefined;
      if (!this.claimed.has(key)) {
        this.claimed.add(key);
        return key;
      }
    }
    return undefined;
  }
}

/** `count` distinct elements of `list` at random (all of them when it is shorter); shuffles `list`. */
function pick(list: string[], count: number, random: () => number): string[] {
  const n = Math.min(count, list.length);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(random() * (list.length - i));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list.slice(0, n);
}
