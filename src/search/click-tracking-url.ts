import { createHmac } from 'node:crypto';
import { BoundedMap } from '../bounded-map.js';

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

/**
 * Result URLs whose signature a {@link ClickTrackingUrls} keeps: the 16,384 most recently
 * shown, at most 32,768 (see BoundedMap): the URLs of the results queries answer most (a few
 * MB at most per search thread).
 */
const SIGNATURE_CACHE_ENTRIES = 16_384;

/**
 * {@link clickTrackingUrl}, byte for byte, at a fraction of its cost: an HMAC per result was
 * most of it (0.12 ms of a page of 10 on the RFC corpus, mostly `createHmac`), so the signature of a URL is kept
 * (it covers the URL only, and the secret is this object's), with the URL encoded as the
 * redirect URL holds it (encoding a result URL was the next largest part); the collection
 * and query, the same for every result of a query, are encoded once for all of them.
 */
export class ClickTrackingUrls {
  /** Per URL, `url=<encoded URL>&auth=<signature>`, the part of its redirect URL it decides. */
  private readonly signedUrls = new BoundedMap<string, string>(SIGNATURE_CACHE_ENTRIES);
  private lastCollection = '';
  private lastCollectionEncoded = '';
  private lastQuery = '';
  private lastQueryEncoded = '';

  constructor(private readonly secret: Uint8Array) {}

  /** The `/s/redirect` URL of a result (see {@link clickTrackingUrl}). */
  url(collection: string, url: string, rank: number, query: string): string {
    if (collection !== this.lastCollection) {
      this.lastCollection = collection;
      this.lastCollectionEncoded = formEncode(collection);
    }
    if (query !== this.lastQuery) {
      this.lastQuery = query;
      this.lastQueryEncoded = formEncode(query);
    }
    // A rank is an integer: its digits need no encoding.
    return `/s/redirect?collection=${this.lastCollectionEncoded}&${this.signedUrl(url)}&rank=${rank}&query=${this.lastQueryEncoded}`;
  }

  /** {@link signUrl} of `url`, computed once while it stays in the cache. */
  signature(url: string): string {
    const signed = this.signedUrl(url);
    return signed.slice(signed.lastIndexOf(AUTH) + AUTH.length);
  }

  /** `url=<url encoded>&auth=<its signature>`, made once while it stays in the cache. */
  private signedUrl(url: string): string {
    let signed = this.signedUrls.get(url);
    if (signed === undefined) {
      // The encoded URL holds no `&`: the signature is what follows the last AUTH.
      signed = `url=${formEncode(url)}${AUTH}${signUrl(this.secret, url)}`;
      this.signedUrls.set(url, signed);
    }
    return signed;
  }
}

const AUTH = '&auth=';

/** What `application/x-www-form-urlencoded` escapes and `encodeURIComponent` does not. */
const FORM_ONLY = /%20|[!'()~]/g;
const FORM_ESCAPES: Readonly<Record<string, string>> = {
  '%20': '+',
  '!': '%21',
  "'": '%27',
  '(': '%28',
  ')': '%29',
  '~': '%7E',
};

/**
 * A value as `URLSearchParams` serialises it (the form encoding: space as `+`, only
 * `*-._` and ASCII letters and digits left as they are), through the engine's
 * `encodeURIComponent`, which leaves `!'()~` too and writes space as `%20`.
 */
export function formEncode(value: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    // A lone surrogate: URLSearchParams writes it as U+FFFD, encodeURIComponent refuses it.
    return new URLSearchParams([['', value]]).toString().slice(1);
  }
  return encoded.replace(FORM_ONLY, (match) => FORM_ESCAPES[match]!);
}
