import { SearchError } from '../errors.js';
import { parseContentType } from '../collection/filters/content-type.js';
import { checkMetadataBytes, checkMetadataNameCount, checkMetadataValueCount } from './metadata-limits.js';
import { multipartBoundary, parseMultipart, type MultipartPart } from './multipart.js';

/** What the content-and-metadata endpoint pushes: the content part and the metadata part. */
export interface ContentAndMetadata {
  content: Buffer;
  /** The content part's own Content-Type (RFC 2046/7578 default `text/plain` when it has none). */
  contentType: string;
  /** Metadata name (case and Unicode as sent) → values; empty when there is no metadata part. */
  metadata: Record<string, string[]>;
}

const DEFAULT_PART_TYPE = 'text/plain';
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads the body of `POST|PUT …/documents/content-and-metadata`: `multipart/form-data` or
 * `multipart/mixed` with a `content` part and an optional `metadata` part.
 *
 * Which part is which:
 * 1. A part whose Content-Disposition has a `name` is identified by it: `content` or
 *    `metadata` (in any case). Any other name, or a name used twice, is
 *    `MULTIPART_INVALID`: a misspelt part must not silently drop metadata.
 * 2. Parts without a name (usual in `multipart/mixed`) take the roles that no named part
 *    took, in order: with both roles free and two unnamed parts, the second is the metadata
 *    when it is `application/json`, else the first when it is (the JSON one is the
 *    metadata), else `MULTIPART_INVALID`; a single unnamed part is the content when the
 *    content is still free, else the metadata.
 * 3. A message without content, or with more parts than roles, is `MULTIPART_INVALID`.
 *
 * The content part may use `Content-Transfer-Encoding: base64` (decoded) or an identity
 * encoding (`7bit`, `8bit`, `binary`); other encodings are refused.
 *
 * The metadata part is a UTF-8 JSON object (a BOM is allowed): each name maps to a string or
 * an array of strings. Names keep their case and may hold any Unicode; values may hold line
 * breaks. Invalid UTF-8, invalid JSON or another shape is `METADATA_INVALID`. Its size, names
 * and values per name are bounded by `METADATA_LIMITS` (metadata-limits.ts) (413 `METADATA_TOO_LARGE`,
 * `METADATA_TOO_MANY_NAMES`, `METADATA_TOO_MANY_VALUES`), the size checked before decoding.
 */
export function readContentAndMetadata(
  body: Buffer,
  contentTypeHeader: string | undefined,
): ContentAndMetadata {
  const { boundary } = multipartBoundary(contentTypeHeader);
  const parts = parseMultipart(body, boundary);

  let content: MultipartPart | undefined;
  let metadata: MultipartPart | undefined;
  const unnamed: MultipartPart[] = [];
  for (const part of parts) {
    const name = partName(part)?.toLowerCase();
    if (name === undefined) {
      unnamed.push(part);
    } else if (name === 'content' || name === 'metadata') {
      if ((name === 'content' ? content : metadata) !== undefined)
        throw invalid(`the part "${name}" appears twice`);
      if (name === 'content') content = part;
      else metadata = part;
    } else {
      throw invalid(
        `unexpected part "${name}": send a part named "content" and optionally one named "metadata"`,
      );
    }
  }

  if (unnamed.length > (content === undefined ? 1 : 0) + (metadata === undefined ? 1 : 0)) {
    throw invalid(`${parts.length} parts, but only "content" and "metadata" are expected`);
  }
  // At most two, by the check above.
  const [first, second] = unnamed;
  if (first !== undefined && second !== undefined) {
    if (isJsonPart(second)) [content, metadata] = [first, second];
    else if (isJsonPart(first)) [metadata, content] = [first, second];
    else
      throw invalid(
        'two parts without names and neither is application/json: name them content and metadata',
      );
  } else if (first !== undefined) {
    if (content === undefined) content = first;
    else metadata = first;
  }
  if (content === undefined)
    throw invalid('there is no content part: send the document in a part named "content"');

  return {
    content: decodeTransfer(content),
    contentType: content.headers.get('content-type') || DEFAULT_PART_TYPE,
    metadata:
      metadata === undefined
        ? (Object.create(null) as Record<string, string[]>)
        : parseMetadataJson(decodeMetadataPart(metadata), metadata.headers.get('content-type')),
  };
}

/**
 * Parses the metadata part: a JSON object of name → string | string[]. The result has no
 * prototype, so names like `__proto__` are ordinary names. Names with an empty array are
 * dropped (they carry no value).
 */
export function parseMetadataJson(bytes: Uint8Array, contentType?: string): Record<string, string[]> {
  checkMetadataBytes(bytes.length, 'the metadata part');
  const charset = parseContentType(contentType).params.get('charset')?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii') {
    throw metadataInvalid(`its charset is ${charset}; send it as UTF-8 JSON`);
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw metadataInvalid('it is not valid UTF-8; send the JSON encoded as UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw metadataInvalid(`it is not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw metadataInvalid(
      'it must be a JSON object of name → string or array of strings, e.g. {"author": ["Ann", "Bo"]}',
    );
  }
  const names = Object.keys(value);
  checkMetadataNameCount(names.length);
  const metadata = Object.create(null) as Record<string, string[]>;
  for (const name of names) {
    const values = (value as Record<string, unknown>)[name];
    if (name === '') throw metadataInvalid('a metadata name is empty');
    if (typeof values === 'string') {
      metadata[name] = [values];
    } else if (Array.isArray(values) && values.every((v) => typeof v === 'string')) {
      checkMetadataValueCount(name, values.length);
      if (values.length > 0) metadata[name] = [...(values as string[])];
    } else {
      throw metadataInvalid(`the value of ${JSON.stringify(name)} must be a string or an array of strings`);
    }
  }
  return metadata;
}

function partName(part: MultipartPart): string | undefined {
  const disposition = part.headers.get('content-disposition');
  if (disposition === undefined) return undefined;
  // parseContentType reads the `; name=value` parameters of any header of this shape.
  return parseContentType(disposition).params.get('name');
}

function isJsonPart(part: MultipartPart): boolean {
  const { mediaType } = parseContentType(part.headers.get('content-type'));
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function decodeTransfer(part: MultipartPart): Buffer {
  const encoding = (part.headers.get('content-transfer-encoding') ?? 'binary').toLowerCase();
  if (encoding === 'binary' || encoding === '8bit' || encoding === '7bit') return part.body;
  if (encoding === 'base64') {
    const text = part.body.toString('latin1').replace(/[\r\n\t ]/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1)
      throw invalid('a base64 part holds characters that are not base64');
    return Buffer.from(text, 'base64');
  }
  throw invalid(`Content-Transfer-Encoding ${encoding} is not supported: send the part as binary or base64`);
}

/**
 * The metadata part's bytes, refused before any decoding when they cannot fit the limit
 * (base64 takes 4 bytes for 3, plus line breaks).
 */
function decodeMetadataPart(part: MultipartPart): Buffer {
  checkMetadataBytes(Math.floor((part.body.length * 3) / 4) - 2, 'the metadata part');
  return decodeTransfer(part);
}

function invalid(problem: string): SearchError {
  return new SearchError('MULTIPART_INVALID', `the multipart body is malformed: ${problem}`);
}

function metadataInvalid(problem: string): SearchError {
  return new SearchError('METADATA_INVALID', `the metadata part is invalid: ${problem}`);
}
