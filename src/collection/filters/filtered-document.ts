/**
 * The data types of the document filter chain: what a filter receives ({@link FilterInput})
 * and what the chain hands to the indexer ({@link FilteredDocument}).
 */

/** A link found in a document, as the indexer stores it for anchor text and link evidence. */
export interface FilteredLink {
  /** Absolute URL, resolved against `<base href>` or the document key; fragment removed. */
  href: string;
  /** The link's text (with `img alt` text inside the link), whitespace collapsed; may be empty. */
  text: string;
}

/**
 * The result of running a pushed document through its filter chain: everything the indexer
 * needs from the document's content. Pushed metadata is not copied in here; the caller
 * keeps it separately, so that a GET of the document returns only what the push set.
 */
export interface FilteredDocument {
  /** HTML `<title>` (else the first `<h1>`), JSON top-level `title`, XML class `t`; undefined when none. */
  title?: string;
  /** HTML: the first `<h1>`, else the first of `<h2>`..`<h6>` (the document fixer's title candidate). */
  heading?: string;
  /** Body text for indexing and snippets: whitespace collapsed, block boundaries as `\n`. */
  text: string;
  /**
   * Metadata extracted from the content: HTML `<meta name|property>` as `<name>` (the name
   * lower-cased inside the angle brackets), XML values keyed by the xml.cfg xpath string,
   * JSON values keyed by their dotted path (`a.b`; arrays flatten). Values in document order.
   */
  metadata: Record<string, string[]>;
  /** Outgoing links in document order, at most {@link MAX_LINKS}. */
  links: FilteredLink[];
  /**
   * The text of the HTML elements the collection maps (metamap.cfg `<h1>` sources): element
   * name (lower case) → the visible text of each element of that name, in document order
   * (whitespace collapsed, empty ones left out). Only the names asked for are collected.
   */
  elements?: Record<string, string[]>;
  /** The record's own URL from the xml.cfg `docurl` xpath. */
  docUrl?: string;
  /** Language tag of the document (HTML `lang`, XML `xml:lang` of the root). */
  language?: string;
}

/** A pushed document as the filter chain receives it. */
export interface FilterInput {
  /** The canonical document key (a URI); relative links resolve against it. */
  key: string;
  /** The content bytes as pushed. */
  content: Uint8Array;
  /** The pushed Content-Type, e.g. `text/html; charset=iso-8859-1`; may be empty. */
  contentType: string;
  /** The metadata the push set (name → values). Read-only for filters; not copied to the output. */
  metadata: Record<string, string[]>;
  /**
   * A PDF or Office Open XML document's text as HTML, extracted before the chain ran (the
   * extraction is asynchronous and runs in a worker thread; see `binary/binary-extractor.ts`).
   */
  extracted?: string;
}

/** At most this many values are kept per mapped HTML element name (the rest are ignored). */
export const MAX_ELEMENT_VALUES = 1000;
/** A mapped HTML element's text is cut at this many characters (a `<div>` may hold a whole page). */
export const MAX_ELEMENT_CHARS = 4096;

/** At most this many links are kept per document (the rest are ignored). */
export const MAX_LINKS = 10_000;
