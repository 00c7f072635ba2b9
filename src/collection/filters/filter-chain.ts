import { SearchError } from '../../errors.js';
import { isHtmlMediaType, isJsonMediaType, isXmlMediaType, parseContentType } from './content-type.js';
import { decodeContent } from './decode-content.js';
import { filterFailed } from './filter-failed.js';
import { MAX_LINKS, type FilteredDocument, type FilterInput } from './filtered-document.js';
import { htmlFilter } from './html-filter.js';
import { jsonFilter } from './json-filter.js';
import { plainTextFilter } from './plain-text-filter.js';
import type { XmlConfigLike } from './xml-config-like.js';
import { startsWithXmlDeclaration, xmlFilter } from './xml-filter.js';

/** A filter of the chain, by its canonical name. `Auto` picks one of the others by content type. */
export type FilterName = 'PlainText' | 'Html' | 'Xml' | 'Json' | 'Auto';

/** Filter names as users write them (case-insensitive), with aliases. */
const NAMES: ReadonlyMap<string, FilterName> = new Map([
  ['plaintext', 'PlainText'],
  ['text', 'PlainText'],
  ['html', 'Html'],
  ['xml', 'Xml'],
  ['json', 'Json'],
  ['auto', 'Auto'],
]);

const KNOWN = 'PlainText (alias Text), Html, Xml, Json, Auto';

/**
 * Parses the filter chain syntax of the `filters` request parameter and `filter.classes`:
 * filter names separated by `,` or `:`, run in that order; names are case-insensitive,
 * spaces around them and empty entries are ignored. No names at all (undefined or blank)
 * is `['Auto']`. An unknown name is `FILTER_UNKNOWN` (a 400 at the API), listing the known ones.
 */
export function parseFilterChain(spec: string | undefined): FilterName[] {
  const names: FilterName[] = [];
  for (const entry of (spec ?? '').split(/[,:]/)) {
    const word = entry.trim();
    if (word === '') continue;
    const name = NAMES.get(word.toLowerCase());
    if (name === undefined) {
      throw new SearchError(
        'FILTER_UNKNOWN',
        `unknown filter "${word}" in filter chain "${spec}"; known filters: ${KNOWN}`,
        {
          details: { filter: word, chain: spec },
        },
      );
    }
    names.push(name);
  }
  return names.length === 0 ? ['Auto'] : names;
}

/**
 * The filter `Auto` runs for a media type and decoded content:
 * - `text/html`, `application/xhtml+xml` → Html;
 * - XML types (`application/xml`, `text/xml`, `*+xml`) → Xml when the content starts with
 *   the `<?xml ...?>` declaration, else PlainText (compat: the original's rule);
 * - `application/json`, `text/json`, `*+json` → Json;
 * - other `text/*` → PlainText;
 * - anything else (missing, `application/octet-stream`, `application/pdf`, ...) → PlainText,
 *   unless the content looks binary (a NUL character in its first 8000, as git decides): then
 *   no text at all, since decoded binary would only fill the index with noise.
 */
export function chooseAutoFilter(mediaType: string, text: string): Exclude<FilterName, 'Auto'> | 'Binary' {
  if (isHtmlMediaType(mediaType)) return 'Html';
  if (isXmlMediaType(mediaType)) return startsWithXmlDeclaration(text) ? 'Xml' : 'PlainText';
  if (isJsonMediaType(mediaType)) return 'Json';
  if (mediaType.startsWith('text/')) return 'PlainText';
  return text.slice(0, 8000).includes('\0') ? 'Binary' : 'PlainText';
}

/**
 * Runs a pushed document through its filter chain (`chainSpec`: the `filters` parameter or
 * `filter.classes`; undefined or blank means `Auto`).
 *
 * The first filter gets the content decoded by the Content-Type charset (see
 * {@link decodeContent}: BOM, `charset=`, the document's own declaration, else UTF-8; invalid
 * bytes become U+FFFD, an unknown charset is FILTER_FAILED). Each later filter gets the
 * previous filter's text, as `text/plain` (so `Html,PlainText` runs the text filter on the
 * page's text). Results accumulate: metadata values and links add up, a later title,
 * docUrl or language replaces an earlier one, the last filter's text is the text.
 *
 * An explicit `Xml` does not look at the Content-Type (asking for it says the content is
 * XML) but still requires the XML declaration.
 *
 * Throws only SearchError: FILTER_UNKNOWN for a bad chain, FILTER_FAILED (message naming the
 * filter and the problem) when a filter cannot read the document.
 */
export function runFilterChain(
  input: FilterInput,
  chainSpec: string | undefined,
  xmlConfig?: XmlConfigLike,
): FilteredDocument {
  const names = parseFilterChain(chainSpec);
  const contentType = parseContentType(input.contentType);
  const sniffHtml = names[0] === 'Html' || (names[0] === 'Auto' && isHtmlMediaType(contentType.mediaType));
  let text = decodeContent(input.content, contentType, sniffHtml);
  let mediaType = contentType.mediaType;

  let result: FilteredDocument | undefined;
  for (const name of names) {
    const filter = name === 'Auto' ? chooseAutoFilter(mediaType, text) : name;
    const out = runOne(filter, text, input.key, xmlConfig);
    result = result === undefined ? out : merge(result, out);
    text = out.text;
    mediaType = 'text/plain';
  }
  return result as FilteredDocument;
}

function runOne(
  filter: Exclude<FilterName, 'Auto'> | 'Binary',
  text: string,
  key: string,
  xmlConfig: XmlConfigLike | undefined,
): FilteredDocument {
  try {
    switch (filter) {
      case 'PlainText':
        return plainTextFilter(text);
      case 'Html':
        return htmlFilter(text, key);
      case 'Xml':
        return xmlFilter(text, xmlConfig);
      case 'Json':
        return jsonFilter(text);
      case 'Binary':
        return { text: '', metadata: {}, links: [] };
    }
  } catch (e) {
    if (e instanceof SearchError) throw e;
    // Not a problem the filter foresaw (e.g. a string past the engine's length limit): still
    // this document's problem, and the request must fail with our error, not a crash.
    // `details.unexpected` lets tests tell this safety net from the errors filters mean to throw.
    throw filterFailed(filter, `unexpected failure: ${(e as Error)?.message ?? String(e)}`, {
      cause: e,
      details: { unexpected: true },
    });
  }
}

function merge(before: FilteredDocument, after: FilteredDocument): FilteredDocument {
  const metadata = new Map<string, string[]>(Object.entries(before.metadata));
  for (const [name, values] of Object.entries(after.metadata)) {
    const list = metadata.get(name);
    metadata.set(name, list === undefined ? values : [...list, ...values]);
  }
  const merged: FilteredDocument = {
    text: after.text,
    metadata: Object.fromEntries(metadata),
    links: [...before.links, ...after.links].slice(0, MAX_LINKS),
  };
  const title = after.title ?? before.title;
  if (title !== undefined) merged.title = title;
  const docUrl = after.docUrl ?? before.docUrl;
  if (docUrl !== undefined) merged.docUrl = docUrl;
  const language = after.language ?? before.language;
  if (language !== undefined) merged.language = language;
  return merged;
}
