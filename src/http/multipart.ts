import { isUtf8 } from 'node:buffer';
import { SearchError } from '../errors.js';
import { parseContentType } from '../collection/filters/content-type.js';

/** One body part of a multipart message. */
export interface MultipartPart {
  /** Header fields by lower-case name; a repeated field keeps its first value. */
  headers: Map<string, string>;
  /** The part's bytes as sent (a view into the request body, not a copy). */
  body: Buffer;
}

/** Limits that bound the work spent on one message. */
export interface MultipartLimits {
  /** Most parts accepted (default 16). */
  maxParts?: number;
  /** Most bytes of one part's header block (default 16 KiB). */
  maxHeaderBytes?: number;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The boundary of a `multipart/*` Content-Type header. Throws `UNSUPPORTED_MEDIA_TYPE` when
 * the type is not multipart and `MULTIPART_INVALID` when the boundary is missing or not one
 * RFC 2046 allows (1-70 characters of its set, not ending in a space).
 */
export function multipartBoundary(contentTypeHeader: string | undefined): {
  subtype: string;
  boundary: string;
} {
  const { mediaType, params } = parseContentType(contentTypeHeader);
  if (!mediaType.startsWith('multipart/')) {
    throw new SearchError(
      'UNSUPPORTED_MEDIA_TYPE',
      `this endpoint takes multipart/form-data or multipart/mixed, not ${JSON.stringify(contentTypeHeader ?? '')}`,
    );
  }
  const boundary = params.get('boundary');
  if (boundary === undefined || !BOUNDARY.test(boundary)) {
    throw new SearchError(
      'MULTIPART_INVALID',
      boundary === undefined
        ? 'the Content-Type has no boundary parameter: send e.g. multipart/form-data; boundary=xyz'
        : `the boundary ${JSON.stringify(boundary)} is not valid: 1-70 letters, digits or '()+_,-./:=? (RFC 2046)`,
    );
  }
  return { subtype: mediaType.slice('multipart/'.length), boundary };
}

/**
 * Splits a complete multipart body (RFC 2046 §5.1.1) into its parts. Strict where clients
 * agree and lenient where they differ:
 * - Lines end in CRLF. The first boundary line may start the body or follow a preamble;
 *   text after the closing `--boundary--` (the epilogue) is ignored. Spaces and tabs after a
 *   boundary (transport padding) are allowed.
 * - `CRLF--boundary` followed by anything but `--`, padding or CRLF is content, not a
 *   delimiter (the boundary is only a delimiter as a whole line).
 * - Each part: header lines (folded lines joined), a blank line, then the body. A part that
 *   starts with the blank line has no headers.
 * - A body that ends before the closing boundary, a part without the blank line after its
 *   headers, a malformed header line, or more than `maxParts` parts: `MULTIPART_INVALID`,
 *   saying which part and what is wrong.
 *
 * Header values are decoded as UTF-8 when valid (form-data field names may be UTF-8), else
 * latin1, so no byte is lost.
 */
export function parseMultipart(
  body: Buffer,
  boundary: string,
  limits: MultipartLimits = {},
): MultipartPart[] {
  const maxParts = limits.maxParts ?? 16;
  const maxHeaderBytes = limits.maxHeaderBytes ?? 16 * 1024;
  const dashBoundary = Buffer.from('--' + boundary, 'latin1');
  const delimiter = Buffer.concat([CRLF, dashBoundary]);

  // The first boundary line: at the very start or after a preamble.
  let at: number;
  if (startsWithAt(body, dashBoundary, 0) && isDelimiterEnd(body, dashBoundary.length)) {
    at = 0;
  } else {
    const found = findDelimiter(body, delimiter, 0);
    if (found === -1) throw invalid(`no boundary line --${boundary} was found in the body`);
    at = found + CRLF.length;
  }

  const parts: MultipartPart[] = [];
  for (;;) {
    let pos = at + dashBoundary.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break; // closing delimiter
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++;
    if (!startsWithAt(body, CRLF, pos))
      throw invalid(`the boundary line of part ${parts.length + 1} does not end with CRLF`);
    const start = pos + CRLF.length;
    const end = findDelimiter(body, delimiter, start);
    if (end === -1) {
      throw invalid(
        `the body ends inside part ${parts.length + 1}, before the closing boundary --${boundary}--`,
      );
    }
    if (parts.length === maxParts) throw invalid(`more than ${maxParts} parts`);
    parts.push(parsePart(body.subarray(start, end), parts.length + 1, maxHeaderBytes));
    at = end + CRLF.length;
  }
  if (parts.length === 0) throw invalid('the message has no parts');
  return parts;
}

function parsePart(raw: Buffer, number: number, maxHeaderBytes: number): MultipartPart {
  const headers = new Map<string, string>();
  if (raw.length === 0) return { headers, body: raw };
  if (startsWithAt(raw, CRLF, 0)) return { headers, body: raw.subarray(CRLF.length) };
  const headerEnd = raw.indexOf(HEADER_END);
  if (headerEnd === -1 || headerEnd > maxHeaderBytes) {
    throw invalid(
      headerEnd === -1
        ? `part ${number} has no blank line between its headers and its content`
        : `the headers of part ${number} are longer than ${maxHeaderBytes} bytes`,
    );
  }
  const block = decodeHeaderBytes(raw.subarray(0, headerEnd));
  const lines: string[] = [];
  for (const line of block.split('\r\n')) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && lines.length > 0)
      lines[lines.length - 1] += ' ' + line.trim();
    else lines.push(line);
  }
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim();
    if (!TOKEN.test(name))
      throw invalid(`part ${number} has a malformed header line ${JSON.stringify(line.slice(0, 80))}`);
    const key = name.toLowerCase();
    if (!headers.has(key)) headers.set(key, line.slice(colon + 1).trim());
  }
  return { headers, body: raw.subarray(headerEnd + HEADER_END.length) };
}

/** Index of the next `CRLF--boundary` that is a whole delimiter line (or the close delimiter), or -1. */
function findDelimiter(body: Buffer, delimiter: Buffer, from: number): number {
  for (let at = body.indexOf(delimiter, from); at !== -1; at = body.indexOf(delimiter, at + 1)) {
    if (isDelimiterEnd(body, at + delimiter.length)) return at;
  }
  return -1;
}

/** What may follow `--boundary` on a delimiter line: `--`, or padding then CRLF. */
function isDelimiterEnd(body: Buffer, pos: number): boolean {
  if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return true;
  while (body[pos] === 0x20 || body[pos] === 0x09) pos++;
  return body[pos] === 0x0d && body[pos + 1] === 0x0a;
}

function startsWithAt(body: Buffer, prefix: Buffer, pos: number): boolean {
  return (
    body.length - pos >= prefix.length &&
    body.compare(prefix, 0, prefix.length, pos, pos + prefix.length) === 0
  );
}

function decodeHeaderBytes(bytes: Buffer): string {
  return isUtf8(bytes) ? bytes.toString('utf8') : bytes.toString('latin1');
}

function invalid(problem: string): SearchError {
  return new SearchError('MULTIPART_INVALID', `the multipart body is malformed: ${problem}`);
}
