import { createHmac } from 'node:crypto';

/** HMAC of a result URL: `/s/redirect` only follows URLs it signed (no open redirect). */
export function signUrl(secret: Uint8Array, url: string): string {
  return createHmac('sha256', secret).update(url).digest('base64url').slice(0, 32);
}

/** The `/s/redirect` URL of a result: logs the click, then redirects to the signed URL. */
export function clickTrackingUrl(
  secret: Uint8Array,
  collection: string,
  url: string,
  rank: number,
  query: string,
): string {
  const params = new URLSearchParams({
    collection,
    url,
    auth: signUrl(secret, url),
    rank: String(rank),
    query,
  });
  return `/s/redirect?${params.toString()}`;
}
