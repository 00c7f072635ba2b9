import { isUtf8 } from 'node:buffer';
import { SearchError } from '../errors.js';
import { checkMetadataBytes, checkMetadataNameCount, checkMetadataValueCount } from './metadata-limits.js';

/**
 * Header name prefixes that carry metadata on the single-part document PUT, lower-cased
 * for comparison. The second one is the original product's name (**compat**).
 */
export const PUSH_METADATA_HEADER_PREFIXES: readonly string[] = Object.freeze([
  'x-service-push-metadata-',
  'x-funnelback-push-meta-data-',
]);

/**
 * Reads the push metadata out of Node's `rawHeaders` (`req.raw.rawHeaders` in Fastify): a flat
 * list of name, value, name, value… in the order and case the client sent.
 *
 * - Every header whose name starts, in any case, with `X-Service-Push-Metadata-` or
 *   `X-Funnelback-Push-Meta-Data-` adds one value under the rest of its name. The rest keeps
 *   the client's case (`…-Metadata-Author` → `Author`); names differing only in case are
 *   different names, as on the multi-part endpoint. We read `rawHeaders` rather than
 *   `req.headers` because the latter lower-cases names and joins repeated headers.
 * - A repeated header adds a value per header line, in order. Values are never split at
 *   commas: a comma is ordinary text in a metadata value.
 * - Values: Node's parser turns each byte into one char (latin1). When those bytes are valid
 *   UTF-8 (what clients send for non-ASCII text) the value is decoded as UTF-8; otherwise it
 *   stays latin1, the only reading that loses no byte. A string that already holds chars
 *   above U+00FF did not come from raw bytes and is kept as it is.
 * - An empty name (`X-Service-Push-Metadata-` alone) throws `METADATA_INVALID`.
 * - The limits of `metadata-limits.ts` apply (names and values counted in characters).
 *
 * The result has no prototype, so names like `__proto__` are ordinary keys.
 */
export function extractPushMetadata(rawHeaders: readonly string[]): Record<string, string[]> {
  const metadata = Object.create(null) as Record<string, string[]>;
  let bytes = 0;
  let names = 0;
  for (const [header, rawValue] of headerPairs(rawHeaders)) {
    const prefixLength = metadataPrefixLength(header);
    if (prefixLength === 0) continue;
    const name = header.slice(prefixLength);
    if (name === '') {
      throw new SearchError(
        'METADATA_INVALID',
        `header ${header} has no metadata name: write the name after the prefix, e.g. ${header}Author`,
        { details: { header } },
      );
    }
    const value = decodeHeaderValue(rawValue);
    bytes += name.length + value.length;
    checkMetadataBytes(bytes, 'the metadata headers');
    const values = metadata[name];
    if (values === undefined) {
      checkMetadataNameCount(++names);
      metadata[name] = [value];
    } else {
      checkMetadataValueCount(name, values.length + 1);
      values.push(value);
    }
  }
  return metadata;
}

/** The (name, value) pairs of Node's flat `rawHeaders` list; a name without a value is dropped. */
function* headerPairs(rawHeaders: readonly string[]): Generator<[string, string]> {
  let name: string | undefined;
  for (const item of rawHeaders) {
    if (name === undefined) {
      name = item;
    } else {
      yield [name, item];
      name = undefined;
    }
  }
}

/** Length of the metadata prefix `header` starts with, or 0 when it is no metadata header. */
function metadataPrefixLength(header: string): number {
  // Every prefix starts with "x-": most headers of a request are ruled out without a copy.
  if (header.length < 3 || (header.charCodeAt(0) | 0x20) !== 0x78 || header.charCodeAt(1) !== 0x2d) return 0;
  for (const prefix of PUSH_METADATA_HEADER_PREFIXES) {
    if (header.length >= prefix.length && header.slice(0, prefix.length).toLowerCase() === prefix) {
      return prefix.length;
    }
  }
  return 0;
}

/** Turns a header value as Node gives it (one char per byte) into the text the client meant. */
export function decodeHeaderValue(value: string): string {
  let ascii = true;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0xff) return value;
    if (c > 0x7f) ascii = false;
  }
  if (ascii) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
}
