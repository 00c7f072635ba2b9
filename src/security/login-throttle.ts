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
  /** Time source (tests). */
  clock?: () => number;
}

interface Record {
  failures: number;
  last: number;
  lockedUntil: number;
}

/** Most keys remembered: an attacker cycling through names must not grow memory without bound. */
const MAX_KEYS = 100_000;

/**
 * Slows down password guessing, per user name and per client address: after a few free
 * failures every further one locks the name (or the address) for a delay that doubles each
 * time, up to a maximum. While locked, a password is not even checked: the answer is 429
 * `LOGIN_RATE_LIMITED` with `Retry-After`, so a guess made during the lock tells nothing.
 * A success clears the user's count (not the address's: one valid account must not reset
 * the counter of an address that is guessing others).
 */
export class LoginThrottle {
  private readonly records = new Map<string, Record>();
  private readonly options: Required<Omit<LoginThrottleOptions, 'clock'>>;
  private readonly clock: () => number;

  constructor(options: LoginThrottleOptions = {}) {
    this.options = {
      freeFailuresPerUser: options.freeFailuresPerUser ?? 5,
      freeFailuresPerAddress: options.freeFailuresPerAddress ?? 20,
      baseDelayMs: options.baseDelayMs ?? 1000,
      maxDelayMs: options.maxDelayMs ?? 15 * 60 * 1000,
      forgetAfterMs: options.forgetAfterMs ?? 15 * 60 * 1000,
    };
    this.clock = options.clock ?? Date.now;
  }

  /** Throws `LOGIN_RATE_LIMITED` (with `details.retryAfter` in seconds) while the user or the address is locked. */
  check(user: string, address: string): void {
    const now = this.clock();
    let until = 0;
    for (const key of [userKey(user), addressKey(address)]) {
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

  /** Counts a failed password; returns the failure counts (for the log). */
  recordFailure(user: string, address: string): { userFailures: number; addressFailures: number } {
    const now = this.clock();
    const count = (key: string, free: number): number => {
      const record = this.current(key, now) ?? { failures: 0, last: now, lockedUntil: 0 };
      record.failures++;
      record.last = now;
      if (record.failures > free) {
        const delay = Math.min(this.options.baseDelayMs * 2 ** Math.min(record.failures - free - 1, 30), this.options.maxDelayMs);
        record.lockedUntil = now + delay;
      }
      this.records.delete(key); // re-inserted last: the map's order is least recently failed first
      this.records.set(key, record);
      return record.failures;
    };
    const result = {
      userFailures: count(userKey(user), this.options.freeFailuresPerUser),
      addressFailures: count(addressKey(address), this.options.freeFailuresPerAddress),
    };
    while (this.records.size > MAX_KEYS) {
      const oldest = this.records.keys().next().value as string;
      this.records.delete(oldest);
    }
    return result;
  }

  /** A correct password: the user's failures are forgotten. */
  recordSuccess(user: string): void {
    this.records.delete(userKey(user));
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
