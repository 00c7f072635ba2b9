import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { SearchError } from '../errors.js';

/**
 * How replication requests (a query processor asking its master for a manifest or a file,
 * or handing it click logs) are authenticated: master and query processor share
 * `server_secret` from global.cfg, and every request carries
 *
 * - `x-pushsearch-sync-time`: the sender's clock, milliseconds since the epoch;
 * - `x-pushsearch-sync-signature`: hex HMAC-SHA256 with the secret over
 *   `METHOD \n path-with-query \n time \n sha256-of-body-hex` (the empty body's hash when none).
 *
 * The signature proves the sender knows the secret without sending it; the time bounds a
 * replay to {@link MAX_CLOCK_SKEW_MS}; the body hash keeps a signed click batch from being
 * altered. A user's password or token is never involved: these are server-to-server calls.
 */
export const SYNC_TIME_HEADER = 'x-pushsearch-sync-time';
export const SYNC_SIGNATURE_HEADER = 'x-pushsearch-sync-signature';

/** A request whose time differs from ours by more than this is refused as stale. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

const EMPTY_BODY_SHA256 = createHash('sha256').digest('hex');

function signingString(method: string, path: string, time: string, bodySha256: string): string {
  return `${method.toUpperCase()}\n${path}\n${time}\n${bodySha256}`;
}

/** The headers that sign one request. `path` includes the query string, exactly as sent. */
export function signSyncRequest(
  secret: string,
  method: string,
  path: string,
  body?: Uint8Array,
  now = Date.now(),
): Record<string, string> {
  const time = String(now);
  const bodySha256 = body === undefined ? EMPTY_BODY_SHA256 : createHash('sha256').update(body).digest('hex');
  const signature = createHmac('sha256', secret)
    .update(signingString(method, path, time, bodySha256))
    .digest('hex');
  return { [SYNC_TIME_HEADER]: time, [SYNC_SIGNATURE_HEADER]: signature };
}

/**
 * Checks a request's signature; throws a {@link SearchError} saying what is wrong:
 * `SYNC_NOT_CONFIGURED` (this server has no `server_secret`), `SYNC_SIGNATURE_MISSING`,
 * `SYNC_SIGNATURE_STALE` (clock further apart than {@link MAX_CLOCK_SKEW_MS}) or
 * `SYNC_SIGNATURE_INVALID` (the secrets differ, or the request was altered).
 */
export function verifySyncRequest(
  secret: string | undefined,
  request: {
    method: string;
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body?: Uint8Array;
  },
  now = Date.now(),
): void {
  if (secret === undefined || secret === '') {
    throw new SearchError(
      'SYNC_NOT_CONFIGURED',
      'this server has no server_secret in global.cfg: set the same server_secret on the master and its query processors',
    );
  }
  const time = headerValue(request.headers[SYNC_TIME_HEADER]);
  const given = headerValue(request.headers[SYNC_SIGNATURE_HEADER]);
  if (time === undefined || given === undefined) {
    throw new SearchError(
      'SYNC_SIGNATURE_MISSING',
      `replication requests must carry ${SYNC_TIME_HEADER} and ${SYNC_SIGNATURE_HEADER} (signed with server_secret)`,
    );
  }
  const sent = /^\d{1,16}$/.test(time) ? Number(time) : NaN;
  if (!(Math.abs(now - sent) <= MAX_CLOCK_SKEW_MS)) {
    throw new SearchError(
      'SYNC_SIGNATURE_STALE',
      `the request's time ${JSON.stringify(time)} is more than ${MAX_CLOCK_SKEW_MS / 1000} s from this server's clock: synchronise the clocks (NTP)`,
    );
  }
  const bodySha256 =
    request.body === undefined || request.body.length === 0
      ? EMPTY_BODY_SHA256
      : createHash('sha256').update(request.body).digest('hex');
  const expected = createHmac('sha256', secret)
    .update(signingString(request.method, request.path, time, bodySha256))
    .digest();
  const givenBytes = /^[0-9a-f]{64}$/.test(given) ? Buffer.from(given, 'hex') : Buffer.alloc(0);
  if (givenBytes.length !== expected.length || !timingSafeEqual(givenBytes, expected)) {
    throw new SearchError(
      'SYNC_SIGNATURE_INVALID',
      'the request is not signed with this server_secret: master and query processor must share the same server_secret in global.cfg',
    );
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
