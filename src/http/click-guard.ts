import { createHash } from 'node:crypto';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { normalizeClickQuery } from '../collection/evidence/click-store.js';
import { BoundedMap } from '../bounded-map.js';
import { SearchError } from '../errors.js';

/** What `/s/redirect` allows one client (global.cfg `search.clicks.*`). */
export interface ClickLimits {
  /** Click requests one address (an IPv6 /64) may make per minute; 0: no limit. */
  maxPerMinute: number;
  /** A click repeated by one address on one result for one query within this many seconds is not logged again; 0: every click is logged. */
  dedupeSeconds: number;
  /** Largest unprocessed click log (`clicks.log`) of a collection, in bytes; clicks beyond it are not logged until the log is processed. */
  maxLogBytes: number;
}

/** Defaults of {@link ClickLimits} (the `search.clicks.*` defaults of global.cfg). */
export const DEFAULT_CLICK_LIMITS: Readonly<ClickLimits> = Object.freeze({
  maxPerMinute: 120,
  dedupeSeconds: 3600,
  maxLogBytes: 64 * 1024 * 1024,
});

/** IPv6 clients get a /64 each from their provider: one address to the rate limit and the dedupe. */
const IPV6_PREFIX = 64;
/**
 * Clicks remembered for the dedupe (about 100 bytes each): the 100,000 most recent, at most
 * 200,000 (see BoundedMap); the oldest are forgotten first.
 */
const MAX_REMEMBERED_CLICKS = 100_000;
/** Addresses the rate limit counts at once (its LRU store); the least recent are forgotten. */
const MAX_COUNTED_ADDRESSES = 100_000;

/** The client address the click limits count by (IPv4, or the IPv6 /64). */
export function clickAddress(request: FastifyRequest): string {
  try {
    return normalizeIP(request.ip, IPV6_PREFIX);
  } catch {
    return request.ip;
  }
}

/**
 * Registers the per-address rate limit (@fastify/rate-limit, its counters in memory) for the
 * routes of `app` that ask for it with {@link clickRateLimit} in their config. Over the limit,
 * a request is answered 429 `CLICK_RATE_LIMITED` with `Retry-After` and logs nothing.
 */
export async function installClickRateLimit(app: FastifyInstance): Promise<void> {
  await app.register(fastifyRateLimit, {
    global: false,
    cache: MAX_COUNTED_ADDRESSES,
    keyGenerator: clickAddress,
    errorResponseBuilder: (_request, context) =>
      new SearchError(
        'CLICK_RATE_LIMITED',
        `more than ${context.max} clicks a minute from this address: wait ${Math.ceil(context.ttl / 1000)} s ` +
          '(search.clicks.max-per-minute in conf/global.cfg)',
        { details: { retryAfter: Math.ceil(context.ttl / 1000) } },
      ),
  });
}

/** The route config that puts a route under the click rate limit (none when `maxPerMinute` is 0). */
export function clickRateLimit(
  limits: ClickLimits,
): { rateLimit: { max: number; timeWindow: number } } | object {
  return limits.maxPerMinute > 0 ? { rateLimit: { max: limits.maxPerMinute, timeWindow: 60_000 } } : {};
}

/**
 * Remembers which clicks were logged lately, so that one address clicking one result for one
 * query again (a double click, the back button, a script) counts once within the window.
 * Bounded: beyond the {@link MAX_REMEMBERED_CLICKS} most recent the oldest may be forgotten (then a repeat may
 * count again, which the rate limit still bounds).
 */
export class ClickDeduper {
  private readonly seen = new BoundedMap<string, number>(MAX_REMEMBERED_CLICKS);

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when this click should be logged (first in its window); remembers it. */
  admit(address: string, collection: string, url: string, query: string): boolean {
    if (this.windowMs <= 0) return true;
    // A digest: memory per click stays the same however long the query or URL.
    const key = createHash('sha256')
      .update(`${address}\u0000${collection}\u0000${url}\u0000${normalizeClickQuery(query)}`)
      .digest('base64');
    const now = this.now();
    const at = this.seen.get(key);
    if (at !== undefined && now - at < this.windowMs) return false;
    this.seen.set(key, now);
    return true;
  }
}
