import type { FilteredDocument } from './filtered-document.js';
import { normalizeNewlines } from './normalize-whitespace.js';

/** The plain text filter: the text as it is, with CRLF/CR line ends made LF; no title, no metadata. */
export function plainTextFilter(source: string): FilteredDocument {
  return { text: normalizeNewlines(source), metadata: {}, links: [] };
}
