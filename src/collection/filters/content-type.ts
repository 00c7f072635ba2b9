/**
 * A parsed Content-Type header: the lower-case media type and its parameters. Parsing is
 * lenient (a pushed Content-Type is whatever the client sent) and never throws.
 */
export interface ContentType {
  /** `type/subtype`, lower-case, without parameters; `''` when the header was empty or unparsable. */
  mediaType: string;
  /** Parameters by lower-case name (`charset` among them), values unquoted. */
  params: Map<string, string>;
}

/** Parses `type/subtype; name=value; name="quoted value"`. */
export function parseContentType(header: string | undefined): ContentType {
  const params = new Map<string, string>();
  const value = header ?? '';
  const semi = value.indexOf(';');
  const essence = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
  const mediaType = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(essence) ? essence : '';
  if (semi >= 0) {
    // One regex pass over the parameter part: bounded by the header length, no backtracking
    // between alternatives of the same parameter.
    const re = /;\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
    const rest = value.slice(semi);
    for (const [, rawName = '', rawValue = ''] of rest.matchAll(re)) {
      const name = rawName.toLowerCase();
      let v = rawValue.trim();
      if (v.startsWith('"')) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
      if (!params.has(name)) params.set(name, v);
    }
  }
  return { mediaType, params };
}

/** `application/xml`, `text/xml` and every `*+xml` type. */
export function isXmlMediaType(mediaType: string): boolean {
  return mediaType === 'application/xml' || mediaType === 'text/xml' || mediaType.endsWith('+xml');
}

/** `text/html` and XHTML (which the HTML filter reads better than the XML filter: title, links). */
export function isHtmlMediaType(mediaType: string): boolean {
  return mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
}

/** `application/json`, `text/json` and every `*+json` type. */
export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType === 'text/json' || mediaType.endsWith('+json');
}
