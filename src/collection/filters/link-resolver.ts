/**
 * Turns the raw `href` values of a document into the absolute link targets the indexer
 * stores: resolved against the base URL, fragment removed, only schemes that name
 * documents (http, https, ftp, local and the document key's own scheme), never script or
 * contact schemes, and never the document itself (a same-page `#section` link is no
 * evidence about anything).
 */
export class LinkResolver {
  private readonly keyUrl: URL | undefined;
  private readonly self: string | undefined;
  private readonly allowed: Set<string>;

  constructor(key: string) {
    this.keyUrl = parseUrl(key);
    if (this.keyUrl !== undefined) {
      this.keyUrl.hash = '';
      this.self = this.keyUrl.href;
    }
    this.allowed = new Set(ALWAYS_ALLOWED);
    if (this.keyUrl !== undefined && !NEVER_ALLOWED.has(this.keyUrl.protocol))
      this.allowed.add(this.keyUrl.protocol);
  }

  /** The base URL of the document: `<base href>` resolved against the key, else the key. */
  baseFor(baseHref: string | undefined): URL | undefined {
    if (baseHref !== undefined) {
      const base = parseUrl(baseHref, this.keyUrl);
      if (base !== undefined && this.allowed.has(base.protocol)) return base;
    }
    return this.keyUrl;
  }

  /** The absolute target of `href`, or undefined when the link is to be ignored. */
  resolve(href: string, base: URL | undefined): string | undefined {
    if (href.length > MAX_HREF_LENGTH) return undefined;
    const url = parseUrl(href, base);
    if (url === undefined || !this.allowed.has(url.protocol)) return undefined;
    url.hash = '';
    const target = url.href;
    return target === this.self ? undefined : target;
  }
}

/** Cheap early test on a raw href, so that lists of script links do not use up the link budget. */
export function isIgnorableHref(href: string): boolean {
  const m = /^[\s\0-\x1f]*([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(href);
  const scheme = m?.[1];
  return scheme !== undefined && NEVER_ALLOWED.has(`${scheme.toLowerCase()}:`);
}

/** Longer targets are not usable keys (the push API stops at 2000 characters); skipping them bounds memory. */
const MAX_HREF_LENGTH = 4096;
const ALWAYS_ALLOWED = ['http:', 'https:', 'ftp:', 'local:'];
const NEVER_ALLOWED = new Set(['javascript:', 'vbscript:', 'data:', 'mailto:', 'tel:', 'about:', 'blob:']);

function parseUrl(href: string, base?: URL): URL | undefined {
  try {
    return new URL(href, base);
  } catch {
    return undefined;
  }
}
