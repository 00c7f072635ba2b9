import { TextDecoder } from 'node:util';
import { SearchError } from '../../errors.js';
import type { ContentType } from './content-type.js';

/**
 * Turns pushed bytes into text. The charset is chosen in this order:
 * 1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE): it is unambiguous, so it wins, as in browsers;
 * 2. the Content-Type `charset=` parameter (any WHATWG label: utf-8, latin1, iso-8859-1,
 *    windows-1252, utf-16le, shift_jis, ...); an unknown label is an error, since guessing
 *    would index garbage silently;
 * 3. the document's own declaration in its first 1024 bytes: `<?xml ... encoding="..."?>`,
 *    and for HTML `<meta charset>` / `<meta http-equiv content="...; charset=...">`
 *    (unknown labels found there are ignored, as browsers do);
 * 4. UTF-8.
 * Bytes that are invalid in the chosen charset become U+FFFD replacement characters; decoding
 * never fails on the bytes themselves. The BOM is not part of the text.
 */
export function decodeContent(bytes: Uint8Array, contentType: ContentType, sniffHtml: boolean): string {
  const bom = bomEncoding(bytes);
  if (bom !== undefined) return new TextDecoder(bom).decode(bytes);

  const declared = contentType.params.get('charset');
  if (declared !== undefined && declared !== '') {
    const decoder = decoderFor(declared);
    if (decoder === undefined) {
      throw new SearchError(
        'FILTER_FAILED',
        `cannot decode the document: unsupported charset "${declared}" in its Content-Type; ` +
          'use utf-8 (or another WHATWG encoding label such as iso-8859-1, windows-1252, utf-16le)',
        { details: { charset: declared } },
      );
    }
    return decodeWith(decoder, bytes);
  }

  const sniffed = sniffDeclaredCharset(bytes, sniffHtml);
  return decodeWith(sniffed ?? new TextDecoder('utf-8'), bytes);
}

function decodeWith(decoder: TextDecoder, bytes: Uint8Array): string {
  return decoder.encoding === 'windows-1252' ? decodeWindows1252(bytes) : decoder.decode(bytes);
}

/**
 * windows-1252, which the WHATWG labels latin1, iso-8859-1 and ascii also mean. Node 20's
 * TextDecoder decodes it as ISO-8859-1, leaving 0x80-0x9F as C1 controls where the encoding
 * has € “ ” – and friends; so: latin1, then those 27 bytes from the table.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return text.replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80] ?? c);
}

/** Characters of bytes 0x80-0x9F; the five bytes windows-1252 leaves undefined map to the C1 control, as in the WHATWG table. */
const WINDOWS_1252_HIGH =
  '\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f' +
  '\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178';

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function decoderFor(label: string): TextDecoder | undefined {
  try {
    // fatal: false → invalid sequences decode to U+FFFD instead of throwing.
    return new TextDecoder(label.trim(), { fatal: false });
  } catch {
    return undefined;
  }
}

const SNIFF_BYTES = 1024;

function sniffDeclaredCharset(bytes: Uint8Array, sniffHtml: boolean): TextDecoder | undefined {
  // The declarations are ASCII, so a byte-for-byte (latin1) view of the prefix finds them in
  // any ASCII-compatible encoding.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, SNIFF_BYTES)).toString(
    'latin1',
  );
  let label = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']\s*([A-Za-z0-9._:-]+)\s*["']/.exec(head)?.[1];
  if (label === undefined && sniffHtml) {
    label = /<meta\s[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i.exec(head)?.[1];
  }
  if (label === undefined) return undefined;
  const decoder = decoderFor(label);
  // A declaration we could read as ASCII cannot be in UTF-16: the declaration lies (a common
  // mistake), so UTF-8 is the better reading, as the HTML standard also says.
  if (decoder === undefined || decoder.encoding.startsWith('utf-16')) return undefined;
  return decoder;
}
