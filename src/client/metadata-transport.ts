import { randomBytes } from 'node:crypto';

/** Header prefix of single-part metadata (the server also reads the original's `X-Funnelback-Push-Meta-Data-`). */
export const METADATA_HEADER_PREFIX = 'X-Service-Push-Metadata-';

/** Metadata bytes above which `add` uses the multipart endpoint (servers and proxies limit header sizes). */
export const MAX_HEADER_METADATA_BYTES = 4096;

const HEADER_SAFE_NAME = /^[a-z0-9][a-z0-9._-]*$/;
const HEADER_SAFE_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * Whether metadata must go in a multipart body rather than in headers. Headers are used only
 * when nothing can be lost on the way:
 * - names lower-case letters, digits, `.`, `_`, `-`: metadata names are case-sensitive, but
 *   HTTP header names are not (HTTP/2 and many proxies lower-case them);
 * - values printable ASCII without leading or trailing spaces (HTTP trims them; non-ASCII
 *   has no agreed header encoding) and no line breaks; no empty value;
 * - at most {@link MAX_HEADER_METADATA_BYTES} in all.
 */
export function needsMultipart(metadata: Readonly<Record<string, readonly string[]>>): boolean {
  let bytes = 0;
  for (const [name, values] of Object.entries(metadata)) {
    if (!HEADER_SAFE_NAME.test(name)) return true;
    for (const value of values) {
      if (!HEADER_SAFE_VALUE.test(value)) return true;
      bytes += METADATA_HEADER_PREFIX.length + name.length + value.length + 4;
      if (bytes > MAX_HEADER_METADATA_BYTES) return true;
    }
  }
  return false;
}

/** Metadata as `[name, value]` header pairs (a repeated header per value). */
export function metadataHeaders(metadata: Readonly<Record<string, readonly string[]>>): [string, string][] {
  const headers: [string, string][] = [];
  for (const [name, values] of Object.entries(metadata)) {
    for (const value of values) headers.push([METADATA_HEADER_PREFIX + name, value]);
  }
  return headers;
}

/**
 * A `multipart/form-data` body for the content-and-metadata endpoint: part `metadata` (UTF-8
 * JSON, name → array of strings) and part `content` with its own Content-Type.
 */
export function contentAndMetadataBody(
  content: Buffer,
  contentType: string,
  metadata: Readonly<Record<string, readonly string[]>>,
): { body: Buffer; contentType: string } {
  let boundary = `----pushsearch-${randomBytes(12).toString('hex')}`;
  // A boundary must not occur in any part; 96 random bits make that astronomically rare, but check.
  while (content.includes(boundary)) boundary = `----pushsearch-${randomBytes(12).toString('hex')}`;
  const json = Buffer.from(JSON.stringify(metadata), 'utf8');
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json; charset=utf-8\r\n\r\n`,
    ),
    json,
    Buffer.from(
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="content"; filename="content"\r\nContent-Type: ${contentType}\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
