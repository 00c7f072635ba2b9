import { BoundedMap } from '../bounded-map.js';
import { SearchError } from '../errors.js';

/** Options of {@link LoginThrottle}. */
export interface LoginThrottleOptions {
  /** Failed passwords a user name may have before each further one locks it (default 5). */
  freeFailuresPerUser?: number;
  /** Failed passwords an address may have before each further one locks it (default 20: several people may share one). */
  freeFailuresPerAddress?: number;
  /** First lock, doubled at each further failure (default 1000 ms). */
  baseDelayMs?: number;
  /** Longest lock (default 15 minutes). */
  maxDelayMs?: number;
  /** Failures are forgotten this long after the last one (default 15 minutes). */
  forgetAfterMs?: number;
  /** An address that logged a user in stays exempt from that user's lock this long after its last success (default 7 days). */
  trustForMs?: number;
  /** Time source (tests). */
  clock?: () => number;
}

interface Record {
  failures: number;
  last: number;
  lockedUntil: number;
  /**
   * A user's record: the addresses its failures came from (at most {@link MAX_FAILING_ADDRESSES};
   * null once more did). A success may clear only failures that all came from its own address.
   */
  addresses?: Set<string> | null;
}

/**
 * Keys remembered: the 100,000 most recently failed (or checked), at most 200,000 (see
 * BoundedMap). An attacker cycling through names must not grow memory without bound, and must
 * fail with 100,000 other names before a record it wants gone may be forgotten.
 */
const MAX_KEYS = 100_000;

/** Failing addresses remembered per user; beyond this the user's failures are simply "from many". */
const MAX_FAILING_ADDRESSES = 16;

/**
 * Slows down password guessing, per user name and per client address: after a few free
 * failures every further one locks the name (or the address) for a delay that doubles each
 * time, up to a maximum. While locked, a password is not even checked: the answer is 429
 * `LOGIN_RATE_LIMITED` with `Retry-After`, so a guess made during the lock tells nothing.
 *
 * A user's lock does not apply at an address that logged that user in and has not failed
 * for it since (a trusted address): otherwise anyone who knows a user name could keep it
 * locked, and a push client sending Basic credentials with every request would be refused
 * along with the guesser. For the same reason a success does not wipe failures made from
 * other addresses (a busy client would hand the guesser fresh free failures with every
 * request); it clears the count only when every failure came from its own address (the
 * user's own typos). An address's failures are never cleared by a success (one valid account
 * must not reset the counter of an address that is guessing others).
 */
export class LoginThrottle {
  private readonly records = new BoundedMap<string, Record>(MAX_KEYS);
  /** Trusted (user, address) pairs (see the class comment): time of the last success. */
  private readonly trusted = new BoundedMap<string, number>(MAX_KEYS);
  private readonly options: Required<Omit<LoginThrottleOptions, 'clock'>>;
  private readonly clock: () => number;

  constructor(options: LoginThrottleOptions = {}) {
    this.options = {
      freeFailuresPerUser: options.freeFailuresPerUser ?? 5,
      freeFailuresPerAddress: options.freeFailuresPerAddress ?? 20,
      baseDelayMs: options.baseDelayMs ?? 1000,
      maxDelayMs: options.maxDelayMs ?? 15 * 60 * 1000,
      forgetAfterMs: options.forgetAfterMs ?? 15 * 60 * 1000,
      trustForMs: options.trustForMs ?? 7 * 24 * 60 * 60 * 1000,
    };
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Throws `LOGIN_RATE_LIMITED` (with `details.retryAfter` in seconds) while the address is
   * locked, or the user is and the address is not trusted for it.
   */
  check(user: string, address: string): void {
    const now = this.clock();
    let until = 0;
    const keys = this.isTrusted(user, address, now)
      ? [addressKey(address)]
      : [userKey(user), addressKey(address)];
    for (const key of keys) {
      const record = this.current(key, now);
      if (record !== undefined && record.lockedUntil > now) until = Math.max(until, record.lockedUntil);
    }
    if (until > now) {
      const retryAfter = Math.ceil((until - now) / 1000);
      throw new SearchError(
        'LOGIN_RATE_LIMITED',
        `too many failed logins for this user or from this address: try again in ${retryAfter} s`,
        { details: { retryAfter } },
      );
    }
  }

  /** Counts a failed password (the address is no longer trusted for the user); returns the failure counts (for the log). */
  recordFailure(user: string, address: string): { userFailures: number; addressFailures: number } {
    const now = this.clock();
    this.trusted.delete(pairKey(user, address));
    const count = (key: string, free: number, from?: string): number => {
      const record = this.current(key, now) ?? { failures: 0, last: now, lockedUntil: 0 };
      if (from !== undefined) record.addresses = withAddress(record.addresses, from);
      record.failures++;
      record.last = now;
      if (record.failures > free) {
        const delay = Math.min(
          this.options.baseDelayMs * 2 ** Math.min(record.failures - free - 1, 30),
          this.options.maxDelayMs,
        );
        record.lockedUntil = now + delay;
      }
      this.records.set(key, record);
      return record.failures;
    };
    const result = {
      userFailures: count(userKey(user), this.options.freeFailuresPerUser, address),
      addressFailures: count(addressKey(address), this.options.freeFailuresPerAddress),
    };
    return result;
  }

  /**
   * A correct password: the address becomes trusted for the user, and the user's failures
   * are forgotten when they all came from this address.
   */
  recordSuccess(user: string, address: string): void {
    const now = this.clock();
    const key = userKey(user);
    const record = this.current(key, now);
    // A record's address set is never empty: it starts with the failure that created it.
    const addresses = record?.addresses;
    if (addresses != null && addresses.size === 1 && addresses.has(address)) this.records.delete(key);
    this.trusted.set(pairKey(user, address), now);
  }

  private isTrusted(user: string, address: string, now: number): boolean {
    const pair = pairKey(user, address);
    const since = this.trusted.get(pair);
    if (since === undefined) return false;
    if (now - since <= this.options.trustForMs) return true;
    this.trusted.delete(pair);
    return false;
  }

  private current(key: string, now: number): Record | undefined {
    const record = this.records.get(key);
    if (record === undefined) return undefined;
    if (now - record.last > this.options.forgetAfterMs && record.lockedUntil <= now) {
      this.records.delete(key);
      return undefined;
    }
    return record;
  }
}

function userKey(user: string): string {
  return `user\u0000${user}`;
}

function addressKey(address: string): string {
  return `address\u0000${address}`;
}

function pairKey(user: string, address: string): string {
  return `${user}\u0000${address}`;
}

/** The failing addresses with `address` added; null ("many") once there are too many to keep. */
function withAddress(addresses: Set<string> | null | undefined, address: string): Set<string> | null {
  if (addresses === null) return null;
  const set = addresses ?? new Set<string>();
  set.add(address);
  return set.size > MAX_FAILING_ADDRESSES ? null : set;
}
