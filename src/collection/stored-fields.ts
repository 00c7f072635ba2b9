/**
 * Names of the values a push collection stores with each document in the index. The
 * original content is kept, so GET returns it after commit and RE_INDEX can run filters
 * again under today's configuration.
 */
export const STORED = {
  content: 'content',
  contentType: 'contentType',
  /** Pushed metadata as JSON (name → values), names as the client sent them. */
  pushMetadata: 'pushMetadata',
  receivedTime: 'receivedTime',
  filters: 'filters',
  /** A binary document's extracted text as HTML, so RE_INDEX need not extract it again. */
  extracted: 'extracted',
  title: 'title',
  /** Filtered text: the source of query-biased summaries. */
  text: 'text',
  /** Metadata classes as JSON (class → values): the result's listMetadata. */
  classes: 'classes',
  fileSize: 'fileSize',
  fileType: 'fileType',
  date: 'date',
  /** Outgoing links as JSON [[href, text], ...] (anchor text evidence). */
  links: 'links',
  /** Redirect target, for redirect entries. */
  redirect: 'redirect',
} as const;

/** Keyword field marking redirect entries: they are never results. */
export const REDIRECT_FIELD = '$redirect';
/** Keyword field holding the gscope IDs a document is in. */
export const GSCOPE_FIELD = '$gscope';
/** Numeric field with the query-independent evidence score (qie.cfg). */
export const QIE_FIELD = '$qie';
/** Keyword field prefix of facet values of a metadata class: `$f.<class>`. */
export const FACET_FIELD_PREFIX = '$f.';
/** Text field of the body. */
export const BODY_FIELD = 'body';
export const TITLE_FIELD = 't';
/** Summary text kept per document (characters); longer text is cut for snippets only. */
export const SUMMARY_SOURCE_CHARS = 65_536;
