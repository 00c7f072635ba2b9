import { isIPv6 } from 'node:net';
import { SearchError } from '../errors.js';

/**
 * Keys: the unique identifier of a pushed document, a URI with a scheme. This file decides
 * what a valid key is and turns every valid key into its one canonical form, the form that is
 * stored, returned in `storedKeys` and shown as the result URL.
 *
 * Canonical form (RFC 3986 syntax-based normalisation, the parts the spec asks for):
 * 1. Scheme lower-cased (`HTTP:` → `http:`), host lower-cased (`Example.COM` → `example.com`;
 *    non-ASCII letters too, percent-triplets in the host untouched).
 * 2. Fragment removed (`#…`, also a lone `#`).
 * 3. With an authority (`scheme://host…`): an empty path becomes `/`
 *    (`http://a.com` → `http://a.com/`, `http://a.com?q` → `http://a.com/?q`).
 * 4. Hierarchical paths (starting with `/`): `.` and `..` segments resolved with RFC 3986
 *    remove_dot_segments; `..` above the root stays at the root (`/../a` → `/a`).
 *    Only literal dots count: `%2e%2e` is an ordinary segment, as RFC 3986 says (5.2.4 works
 *    on the path as written) and because percent-encoding is kept as sent.
 * 5. Everything else is kept exactly as sent: percent-encoding (`%7e` stays `%7e`, `%41` is
 *    not `A`), the port (`:80` stays), user info, the query (also an empty `?`).
 *
 * Keys without an authority (`local:doc-1`, `mailto:a@b.c`, `urn:isbn:…`, "opaque" URIs
 * whose path does not start with `/`) keep their path as sent: no `/` is added and no dot
 * segment is resolved (`local:abc` stays `local:abc`; `local:a/../b` stays as is), because
 * such paths are identifiers, not folders (java.net.URI.normalize does the same). A key
 * with nothing after the scheme (`local:`, `local:?x`) identifies nothing and is rejected.
 *
 * Validity:
 * - A scheme (`[A-Za-z][A-Za-z0-9+.-]*:`), any RFC 3986 scheme, except `javascript:`,
 *   `vbscript:` and `data:`: keys are the links of search results, and those schemes run
 *   code or embed content in the browser that clicks them.
 * - `http`, `https`, `ftp`, `ws`, `wss` keys need `//` and a host: they are links.
 * - Characters: those RFC 3986 allows, plus non-ASCII characters as in IRIs (RFC 3987), so
 *   `http://bücher.de/straße` is a valid key and stays as sent (no punycode, no
 *   percent-encoding: the result shows what the client pushed). Rejected with a hint to
 *   percent-encode: whitespace (ASCII and Unicode), control characters, `"` `<` `>` `\`
 *   `^` `` ` `` `{` `|` `}`, `[`/`]` outside an IPv6 host, a second `#`, `%` not followed
 *   by two hex digits, bidi-formatting characters, noncharacters, unpaired surrogates.
 * - Length: at most {@link MAX_KEY_LENGTH} characters, counted on the canonical key (so a
 *   long fragment that is removed does not count), in UTF-16 code units (JavaScript's
 *   `length`, Java's `String.length()`; the same as characters for ASCII keys).
 */

/** Longest canonical key accepted, in UTF-16 code units. */
export const MAX_KEY_LENGTH = 2000;

/**
 * Raw keys longer than this are refused before any parsing: no canonicalisation shrinks a
 * key by that much in practice, and it bounds the work spent on hostile input.
 */
export const MAX_RAW_KEY_LENGTH = 65536;

/** Schemes refused for keys (see the file comment). */
export const FORBIDDEN_KEY_SCHEMES: readonly string[] = Object.freeze(['javascript', 'vbscript', 'data']);

const SCHEMES_NEEDING_HOST = new Set(['http', 'https', 'ftp', 'ws', 'wss']);

// ASCII characters RFC 3986 allows anywhere in a URI (component rules are checked later),
// as a table: this check runs on every character of every key.
const ALLOWED_ASCII = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:/?#[]@%") {
  ALLOWED_ASCII[ch.charCodeAt(0)] = 1;
}
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const BIDI_FORMATTING = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const UNICODE_SPACE = /\s/u;

/**
 * Validates a key and returns its canonical form (see the file comment for the rules).
 * Throws `SearchError` `KEY_MISSING` (undefined, null or empty), `KEY_INVALID` (the message
 * says why and where) or `KEY_TOO_LONG`.
 */
export function canonicalizeKey(raw: string | undefined | null): string {
  if (raw === undefined || raw === null || raw === '') {
    throw new SearchError(
      'KEY_MISSING',
      'the key is missing: pass the document URI, URL-encoded, as the key query parameter, e.g. ?key=https%3A%2F%2Fexample.com%2Fpage',
    );
  }
  if (raw.length > MAX_RAW_KEY_LENGTH) {
    throw tooLong(raw, raw.length);
  }
  // Most keys hold no bracket: the bracket checks below (one per component) are skipped then.
  const brackets = checkCharacters(raw);

  const [schemeColon, schemeText] = SCHEME.exec(raw) ?? [];
  if (schemeColon === undefined || schemeText === undefined) throw noScheme(raw);
  const scheme = schemeText.toLowerCase();
  if (FORBIDDEN_KEY_SCHEMES.includes(scheme)) {
    throw invalid(
      raw,
      `the scheme ${scheme}: is not allowed for keys, because search results link to the key`,
    );
  }
  let pos = schemeColon.length;
  // "localhost:8080/x" and "example.com:8080/x" parse as a scheme and a path; nobody means that.
  if ((scheme.includes('.') || scheme === 'localhost') && /^[0-9]+(?:[/?#]|$)/.test(raw.slice(pos))) {
    throw invalid(
      raw,
      `it has no scheme ("${schemeText}:" looks like host:port); write it as https://${raw}`,
    );
  }

  // Split off the fragment (validated, then dropped) and the query (kept as sent).
  const hashAt = raw.indexOf('#', pos);
  const end = hashAt === -1 ? raw.length : hashAt;
  if (hashAt !== -1) {
    const second = raw.indexOf('#', hashAt + 1);
    if (second !== -1) throw badChar(raw, second, 'a second "#"', 'the fragment already started');
    if (brackets) checkNoBrackets(raw, hashAt + 1, raw.length);
  }
  const questionAt = raw.indexOf('?', pos);
  const hierEnd = questionAt === -1 || questionAt > end ? end : questionAt;
  const query = raw.slice(hierEnd, end);
  if (brackets) checkNoBrackets(raw, hierEnd, end);

  let authority: string | undefined;
  if (raw.startsWith('//', pos)) {
    let authorityEnd = raw.indexOf('/', pos + 2);
    if (authorityEnd === -1 || authorityEnd > hierEnd) authorityEnd = hierEnd;
    authority = canonicalAuthority(raw, pos + 2, authorityEnd, scheme, brackets);
    pos = authorityEnd;
  }
  const rawPath = raw.slice(pos, hierEnd);
  if (brackets) checkNoBrackets(raw, pos, hierEnd);

  let path: string;
  if (authority !== undefined) {
    path = rawPath === '' ? '/' : removeDotSegments(rawPath);
  } else {
    if (SCHEMES_NEEDING_HOST.has(scheme)) {
      throw invalid(raw, `${scheme} keys need a host: write them as ${scheme}://host/path`);
    }
    if (rawPath === '') {
      throw invalid(
        raw,
        `nothing follows "${scheme}:": give the document's identifier after it, e.g. ${scheme}:doc-1`,
      );
    }
    if (rawPath.startsWith('/')) {
      path = removeDotSegments(rawPath);
      // Without an authority a path starting with "//" would read back as one (RFC 3986 5.3).
      if (path.startsWith('//')) path = '/.' + path;
    } else {
      path = rawPath;
    }
  }

  const key = scheme + ':' + (authority === undefined ? '' : '//' + authority) + path + query;
  if (key.length > MAX_KEY_LENGTH) throw tooLong(raw, key.length);
  return key;
}

/**
 * RFC 3986 5.2.4 remove_dot_segments for a path starting with `/`. A `..` at the root has
 * nothing to remove and is dropped, so the path stays at the root.
 */
export function removeDotSegments(path: string): string {
  // No segment starts with a dot (the usual path): nothing to remove.
  if (!path.includes('/.')) return path;
  const segments = path.split('/');
  const out: string[] = [];
  // segments[0] is the empty string before the leading `/`.
  for (const [i, segment] of segments.entries()) {
    if (i === 0) continue;
    const last = i === segments.length - 1;
    if (segment === '.') {
      if (last) out.push('');
    } else if (segment === '..') {
      out.pop();
      if (last) out.push('');
    } else {
      out.push(segment);
    }
  }
  return '/' + out.join('/');
}

/** Validates `raw[start, end)` as an authority and returns it with the host lower-cased. */
function canonicalAuthority(
  raw: string,
  start: number,
  end: number,
  scheme: string,
  brackets: boolean,
): string {
  const at = raw.indexOf('@', start);
  const hostStart = at === -1 || at >= end ? start : at + 1;
  if (brackets) checkNoBrackets(raw, start, hostStart);
  const userinfo = raw.slice(start, hostStart);

  let host: string;
  let portPart: string;
  if (brackets && raw[hostStart] === '[') {
    const close = raw.indexOf(']', hostStart);
    if (close === -1 || close >= end)
      throw badChar(raw, hostStart, 'an "[" that is not closed by "]" in the host');
    const literal = raw.slice(hostStart + 1, close);
    if (!isIpLiteral(literal)) {
      throw invalid(
        raw,
        `[${literal}] is not an IPv6 address (hosts in brackets must be IPv6, e.g. http://[::1]/)`,
      );
    }
    host = raw.slice(hostStart, close + 1);
    portPart = raw.slice(close + 1, end);
    checkNoBrackets(raw, close + 1, end);
    if (portPart !== '' && !portPart.startsWith(':')) {
      throw badChar(raw, close + 1, 'text after the "]" of an IPv6 host (only ":port" may follow)');
    }
  } else {
    if (brackets) checkNoBrackets(raw, hostStart, end);
    const colon = raw.indexOf(':', hostStart);
    const hostEnd = colon === -1 || colon >= end ? end : colon;
    host = raw.slice(hostStart, hostEnd);
    portPart = raw.slice(hostEnd, end);
    const atInHost = host.indexOf('@');
    if (atInHost !== -1) throw badChar(raw, hostStart + atInHost, 'a second "@" in the authority');
  }
  if (portPart !== '' && !/^:[0-9]*$/.test(portPart)) {
    throw invalid(raw, `the port ${JSON.stringify(portPart.slice(1))} is not a number`);
  }
  if (host === '' && SCHEMES_NEEDING_HOST.has(scheme)) {
    throw invalid(raw, `${scheme} keys need a host: write them as ${scheme}://host/path`);
  }
  return userinfo + lowerCaseHost(host) + portPart;
}

function isIpLiteral(literal: string): boolean {
  if (/^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/i.test(literal)) return true; // IPvFuture
  // RFC 6874 zone identifier: "%25" then unreserved or percent-encoded characters.
  const zoneAt = literal.indexOf('%25');
  const address = zoneAt === -1 ? literal : literal.slice(0, zoneAt);
  if (!/^[0-9A-Fa-f:.]+$/.test(address) || !isIPv6(address)) return false;
  return zoneAt === -1 || /^(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+$/.test(literal.slice(zoneAt + 3));
}

/** Lower-cases a host except its percent-triplets, which are kept as sent. */
function lowerCaseHost(host: string): string {
  if (!host.includes('%')) return host.toLowerCase();
  return host.replace(/%[0-9A-Fa-f]{2}|[^%]+/g, (part) => (part.startsWith('%') ? part : part.toLowerCase()));
}

/** Rejects characters that are never valid in a key, wherever they are; returns whether `[` or `]` occurs. */
function checkCharacters(raw: string): boolean {
  let brackets = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x80) {
      if (c <= 0x20 || c === 0x7f) {
        const blank = describeAsciiBlank(c);
        throw blank === undefined
          ? badChar(raw, i, 'a control character')
          : badChar(raw, i, 'whitespace', blank);
      }
      if (ALLOWED_ASCII[c] === 0) throw badChar(raw, i, `the character "${raw[i]}"`);
      if (c === 0x5b || c === 0x5d) brackets = true;
      if (c === 0x25 /* % */ && !(isHex(raw.charCodeAt(i + 1)) && isHex(raw.charCodeAt(i + 2)))) {
        throw invalid(
          raw,
          `"%" at position ${i + 1} does not start a percent-encoding like %2F (write a literal % as %25)`,
        );
      }
      continue;
    }
    // Non-ASCII: allowed as in IRIs, except what cannot be shown or typed reliably.
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = raw.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) throw invalid(raw, `unpaired surrogate at position ${i + 1}`);
      const cp = raw.codePointAt(i) as number;
      if ((cp & 0xfffe) === 0xfffe) throw badChar(raw, i, 'a Unicode noncharacter');
      i++;
      continue;
    }
    if (c >= 0xdc00 && c <= 0xdfff) throw invalid(raw, `unpaired surrogate at position ${i + 1}`);
    const ch = raw.charAt(i);
    if (c <= 0x9f) throw badChar(raw, i, 'a control character');
    if (UNICODE_SPACE.test(ch)) throw badChar(raw, i, 'whitespace');
    if (BIDI_FORMATTING.test(ch)) throw badChar(raw, i, 'a bidirectional formatting character');
    if ((c >= 0xfdd0 && c <= 0xfdef) || c >= 0xfffe) throw badChar(raw, i, 'a Unicode noncharacter');
  }
  return brackets;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function describeAsciiBlank(c: number): string | undefined {
  if (c === 0x20) return 'a space';
  if (c === 0x09) return 'a tab';
  if (c === 0x0a || c === 0x0d) return 'a line break';
  return undefined;
}

/** `[` and `]` are only valid around an IPv6 host; other components must encode them. */
function checkNoBrackets(raw: string, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    const ch = raw.charAt(i);
    if (ch === '[' || ch === ']') throw badChar(raw, i, `"${ch}" outside an IPv6 host`);
  }
}

function preview(raw: string): string {
  return JSON.stringify(raw.length > 120 ? raw.slice(0, 120) + '…' : raw);
}

function invalid(raw: string, why: string): SearchError {
  return new SearchError('KEY_INVALID', `key ${preview(raw)} is not a valid URI: ${why}`);
}

function badChar(raw: string, index: number, what: string, detail?: string): SearchError {
  const cp = raw.codePointAt(index) as number;
  const ch = String.fromCodePoint(cp);
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  const encoded =
    ch === '#' || ch === '[' || ch === ']' || cp >= 0x80 || ALLOWED_ASCII[cp] === 0
      ? safeEncode(ch)
      : undefined;
  const hint = encoded === undefined ? '' : `; percent-encode it as ${encoded}`;
  return invalid(
    raw,
    `${what} (${detail === undefined ? '' : detail + ', '}U+${hex}) at position ${index + 1}${hint}`,
  );
}

function safeEncode(ch: string): string | undefined {
  try {
    return encodeURIComponent(ch);
  } catch {
    return undefined; // an unpaired surrogate has no UTF-8 form
  }
}

function noScheme(raw: string): SearchError {
  const colon = raw.indexOf(':');
  const why =
    colon > 0 && /^[^/?#]+$/.test(raw.slice(0, colon))
      ? `"${raw.slice(0, colon)}" is not a scheme (a letter, then letters, digits, "+", "-" or ".")`
      : 'it has no scheme';
  return invalid(
    raw,
    `${why}; a key must be an absolute URI such as https://example.com/page or local:doc-1`,
  );
}

function tooLong(raw: string, length: number): SearchError {
  return new SearchError(
    'KEY_TOO_LONG',
    `key ${preview(raw)} is ${length} characters long; keys may have at most ${MAX_KEY_LENGTH} characters after canonicalisation`,
    { details: { length, max: MAX_KEY_LENGTH } },
  );
}
