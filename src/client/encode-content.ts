/**
 * Turns the content given to `add` into bytes and the Content-Type to send with them.
 *
 * Strings are encoded with the charset the content type names when Node can encode it
 * (UTF-8, UTF-16LE, ISO-8859-1/Latin-1, US-ASCII) and the text fits it. Otherwise ("UTF-8
 * where possible", as the spec says) the text is sent as UTF-8 and the type's charset is
 * rewritten to `utf-8`, so that the bytes and the declared charset always agree. A string
 * without a content type is `text/plain; charset=utf-8`; a text type without a charset gets
 * `charset=utf-8` added. Bytes are sent as they are (`application/octet-stream` by default:
 * the server then picks the filter from the content).
 */
export function encodeContent(
  content: Uint8Array | string,
  contentType: string | undefined,
): { body: Buffer; contentType: string } {
  if (typeof content !== 'string') {
    const body = Buffer.isBuffer(content)
      ? content
      : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    return { body, contentType: contentType ?? 'application/octet-stream' };
  }
  if (contentType === undefined)
    return { body: Buffer.from(content, 'utf8'), contentType: 'text/plain; charset=utf-8' };
  const charset = charsetOf(contentType);
  if (charset === undefined) {
    return {
      body: Buffer.from(content, 'utf8'),
      contentType: `${contentType.trim().replace(/;\s*$/, '')}; charset=utf-8`,
    };
  }
  const encoding = NODE_ENCODINGS[charset];
  if (encoding !== undefined && fits(content, encoding))
    return { body: Buffer.from(content, encoding), contentType };
  return { body: Buffer.from(content, 'utf8'), contentType: withCharset(contentType, 'utf-8') };
}

const NODE_ENCODINGS: Readonly<Record<string, BufferEncoding>> = {
  'utf-8': 'utf8',
  utf8: 'utf8',
  'utf-16le': 'utf16le',
  'iso-8859-1': 'latin1',
  'iso_8859-1': 'latin1',
  latin1: 'latin1',
  l1: 'latin1',
  'us-ascii': 'ascii',
  ascii: 'ascii',
};

/** The lower-cased `charset` parameter of a media type, if any. */
export function charsetOf(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType);
  return match?.[2]?.toLowerCase();
}

function withCharset(contentType: string, charset: string): string {
  return contentType.replace(/(;\s*charset\s*=\s*)("?)[^";\s]+\2/i, `$1${charset}`);
}

function fits(text: string, encoding: BufferEncoding): boolean {
  if (encoding === 'latin1') return /^[\u0000-\u00ff]*$/.test(text);
  if (encoding === 'ascii') return /^[\u0000-\u007f]*$/.test(text);
  return true;
}
