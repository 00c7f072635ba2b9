import { SearchError } from '../../errors.js';
import { isHtmlMediaType, isJsonMediaType, isXmlMediaType, parseContentType } from './content-type.js';
import { decodeContent } from './decode-content.js';
import { filterFailed } from './filter-failed.js';
import {
  MAX_ELEMENT_VALUES,
  MAX_LINKS,
  type FilteredDocument,
  type FilterInput,
} from './filtered-document.js';
import { htmlFilter } from './html-filter.js';
import { jsonFilter } from './json-filter.js';
import { plainTextFilter } from './plain-text-filter.js';
import type { XmlConfigLike } from './xml-config-like.js';
import { startsWithXmlDeclaration, xmlFilter } from './xml-filter.js';
import { fixDocumentDates } from './date-fixer.js';
import { fixDocumentTitle } from './title-fixer.js';

/** A filter of ours, by its canonical name. `Auto` picks one of the others by content type. */
export type FilterName = 'PlainText' | 'Html' | 'Xml' | 'Json' | 'Auto';

/**
 * What one filter of a chain does here:
 * - one of ours ({@link FilterName});
 * - `Binary`: the original's `TikaFilterProvider`: a PDF or Office Open XML document becomes
 *   HTML (its text, title and properties) for the steps after it; other documents pass;
 * - `HtmlDocument`: `JSoupProcessingFilterProvider`: the HTML filter, for HTML documents only;
 * - `FixDocument`: `DocumentFixerFilterProvider`: a missing or useless title is repaired
 *   (`title-fixer.ts`) and date properties are written as ISO 8601 (`date-fixer.ts`);
 * - `Skip`: a filter of the original with no meaning here (`ExternalFilterProvider` without
 *   an external program, `CombinerFilterProvider`...): accepted, never chosen, noted once in push.log.
 */
export type FilterKind = FilterName | 'Binary' | 'HtmlDocument' | 'FixDocument' | 'Skip';

/** One filter of a chain: the name as written, and what it does here. */
export interface FilterChoice {
  name: string;
  kind: FilterKind;
}

/** Filter names as users write them (case-insensitive), with aliases. */
const NAMES: ReadonlyMap<string, FilterKind> = new Map([
  ['plaintext', 'PlainText'],
  ['text', 'PlainText'],
  ['html', 'Html'],
  ['xml', 'Xml'],
  ['json', 'Json'],
  ['auto', 'Auto'],
  // The original's built-in filters (compat), also written with their Java package.
  ['tikafilterprovider', 'Binary'],
  ['jsoupprocessingfilterprovider', 'HtmlDocument'],
  ['documentfixerfilterprovider', 'FixDocument'],
  ['externalfilterprovider', 'Skip'],
  ['combinerfilterprovider', 'Skip'],
  ['injectnoindexfilterprovider', 'Skip'],
  ['forkfilterprovider', 'Skip'],
]);

const KNOWN =
  "PlainText (alias Text), Html, Xml, Json, Auto, and the original's TikaFilterProvider, JSoupProcessingFilterProvider, DocumentFixerFilterProvider, ExternalFilterProvider, CombinerFilterProvider, InjectNoIndexFilterProvider, ForkFilterProvider";

/** Why a `Skip` filter does nothing here (the push.log note). */
export const SKIPPED_REASON: Readonly<Record<string, string>> = {
  externalfilterprovider: 'no external filter program is configured here',
  combinerfilterprovider: 'push documents have no .pan.txt/.fun.txt side files to combine',
  injectnoindexfilterprovider: 'filter.noindex rules are not supported here',
  forkfilterprovider: 'forking a document into several is not supported here',
};

/**
 * Parses the original's filter chain syntax, used by the `filters` request parameter and
 * `filter.classes`: steps separated by `:` run in order, each the output of the one before;
 * a step may be a choice of filters separated by `,`, of which the first that applies to the
 * document runs (the original chooses one filter of a choice set by document type). Names
 * are case-insensitive and may carry a Java package (`com.funnelback.common.filter.X`);
 * spaces and empty entries are ignored. No names at all (undefined or blank) is one `Auto`
 * step. An unknown name is `FILTER_UNKNOWN` (a 400 at the API), listing the known ones.
 */
export function parseFilterChain(spec: string | undefined): FilterChoice[][] {
  const steps: FilterChoice[][] = [];
  for (const stepText of (spec ?? '').split(':')) {
    const step: FilterChoice[] = [];
    for (const entry of stepText.split(',')) {
      const word = entry.trim();
      if (word === '') continue;
      const kind = NAMES.get(simpleName(word));
      if (kind === undefined) {
        throw new SearchError(
          'FILTER_UNKNOWN',
          `unknown filter "${word}" in filter chain "${spec}"; known filters: ${KNOWN}`,
          { details: { filter: word, chain: spec } },
        );
      }
      step.push({ name: word, kind });
    }
    if (step.length > 0) steps.push(step);
  }
  return steps.length === 0 ? [[{ name: 'Auto', kind: 'Auto' }]] : steps;
}

/** `com.funnelback.common.filter.TikaFilterProvider` → `tikafilterprovider`. */
function simpleName(word: string): string {
  return word.slice(word.lastIndexOf('.') + 1).toLowerCase();
}

/** True when a chain can extract binary documents (a `TikaFilterProvider` or `Auto` in it). */
export function chainExtractsBinary(steps: FilterChoice[][]): boolean {
  return steps.some((step) => step.some((choice) => choice.kind === 'Binary' || choice.kind === 'Auto'));
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

/** What a collection's configuration tells the filters, and who hears of skipped filters. */
export interface FilterChainOptions {
  /** The xml.cfg mappings the XML filter collects. */
  xmlConfig?: XmlConfigLike | undefined;
  /** HTML elements whose text metamap.cfg maps (`<h1>` sources), lower case. */
  htmlElements?: ReadonlySet<string> | undefined;
  /** Hears of each `Skip` filter passed over (the caller notes it once in push.log). */
  onSkipped?: ((filter: string, reason: string) => void) | undefined;
}

/**
 * Runs a pushed document through its filter chain (`chainSpec`: the `filters` parameter or
 * `filter.classes`; undefined or blank means `Auto`), see {@link parseFilterChain}.
 *
 * The first filter gets the content decoded by the Content-Type charset (see
 * {@link decodeContent}: BOM, `charset=`, the document's own declaration, else UTF-8; invalid
 * bytes become U+FFFD, an unknown charset is FILTER_FAILED). A PDF or Office Open XML document
 * reaches the chain with `input.extracted` (its HTML, made by `binary/binary-extractor.ts`
 * before the chain runs): `TikaFilterProvider`, or `Auto`, replaces the content with it. Each
 * later filter of ours gets the previous filter's text, as `text/plain` (so `Html:PlainText`
 * runs the text filter on the page's text). Results accumulate: metadata values and links add
 * up, a later title, docUrl or language replaces an earlier one, the last filter's text is the
 * text. When no filter of the chain applied to the document (e.g. a plain text document and
 * the chain `TikaFilterProvider:JSoupProcessingFilterProvider`), `Auto` reads it.
 *
 * An explicit `Xml` does not look at the Content-Type (asking for it says the content is
 * XML) but still requires the XML declaration.
 *
 * `options.onSkipped` hears of each `Skip` filter passed over. Throws only SearchError: FILTER_UNKNOWN for a bad chain, FILTER_FAILED (message naming the
 * filter and the problem) when a filter cannot read the document.
 */
export function runFilterChain(
  input: FilterInput,
  chainSpec: string | undefined,
  options: FilterChainOptions = {},
): FilteredDocument {
  const { xmlConfig, htmlElements, onSkipped } = options;
  const steps = parseFilterChain(chainSpec);
  const contentType = parseContentType(input.contentType);
  const first = steps[0]![0]!.kind;
  const sniffHtml = first === 'Html' || (first === 'Auto' && isHtmlMediaType(contentType.mediaType));
  let text = decodeContent(input.content, contentType, sniffHtml);
  let mediaType = contentType.mediaType;
  let extracted = input.extracted;
  const useExtracted = (): boolean => {
    if (extracted === undefined) return false;
    text = extracted;
    mediaType = 'text/html';
    extracted = undefined;
    return true;
  };

  let result: FilteredDocument | undefined;
  let fixDocument = false;
  const run = (filter: Exclude<FilterName, 'Auto'> | 'Binary'): void => {
    const out = runOne(filter, text, input.key, xmlConfig, htmlElements);
    result = result === undefined ? out : merge(result, out);
    text = out.text;
    mediaType = 'text/plain';
  };
  for (const step of steps) {
    for (const choice of step) {
      const applied = ((): boolean => {
        switch (choice.kind) {
          case 'Binary':
            return useExtracted();
          case 'HtmlDocument':
            if (!isHtmlMediaType(mediaType)) return false;
            run('Html');
            return true;
          case 'FixDocument':
            fixDocument = true;
            return true;
          case 'Skip':
            onSkipped?.(choice.name, SKIPPED_REASON[simpleName(choice.name)] ?? 'it has no meaning here');
            return false;
          case 'Auto':
            useExtracted();
            run(chooseAutoFilter(mediaType, text));
            return true;
          default:
            run(choice.kind);
            return true;
        }
      })();
      if (applied) break;
    }
  }
  if (result === undefined) {
    useExtracted();
    run(chooseAutoFilter(mediaType, text));
  }
  const document = result as FilteredDocument;
  return fixDocument ? fixDocumentDates(fixDocumentTitle(document, input.key)) : document;
}

function runOne(
  filter: Exclude<FilterName, 'Auto'> | 'Binary',
  text: string,
  key: string,
  xmlConfig: XmlConfigLike | undefined,
  htmlElements: ReadonlySet<string> | undefined,
): FilteredDocument {
  try {
    switch (filter) {
      case 'PlainText':
        return plainTextFilter(text);
      case 'Html':
        return htmlFilter(text, key, htmlElements);
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
  if (before.elements !== undefined || after.elements !== undefined) {
    const elements = new Map<string, string[]>(Object.entries(before.elements ?? {}));
    for (const [name, values] of Object.entries(after.elements ?? {}))
      elements.set(name, [...(elements.get(name) ?? []), ...values].slice(0, MAX_ELEMENT_VALUES));
    merged.elements = Object.fromEntries(elements);
  }
  const title = after.title ?? before.title;
  if (title !== undefined) merged.title = title;
  const docUrl = after.docUrl ?? before.docUrl;
  if (docUrl !== undefined) merged.docUrl = docUrl;
  const heading = after.heading ?? before.heading;
  if (heading !== undefined) merged.heading = heading;
  const language = after.language ?? before.language;
  if (language !== undefined) merged.language = language;
  return merged;
}
