import { escapeHtml } from '../../escape-html.js';
import { renderPage, renderSearchHeader } from './page-layout.js';

/** What went wrong, as the JSON error body says it. */
export interface ErrorPageInput {
  status: number;
  /** The stable error code (e.g. `PARAMETER_INVALID`). */
  code: string;
  /** What to fix. */
  message: string;
  /** The collection and query as requested (may be anything a client sent). */
  collection: string;
  query: string;
}

const HEADINGS: Readonly<Record<number, string>> = {
  400: 'This search cannot be run',
  401: 'This collection is not public',
  403: 'You may not search this collection',
  404: 'Not found',
};

/**
 * The results page when the search failed: the search box (so the user can try again),
 * what went wrong and what to fix, the error code for support. Everything is escaped: the
 * collection name and query are the client's, and messages quote them.
 */
export function renderErrorPage(input: ErrorPageInput): string {
  const heading =
    HEADINGS[input.status] ??
    (input.status >= 500 ? 'Search is not available right now' : 'This search failed');
  // A name that is not a valid collection would only make the form fail again; keep it anyway
  // (escaped) so that the user sees what was asked for.
  const header = renderSearchHeader(input.collection, input.query);
  const main = `<div class="error" role="alert"><h2>${escapeHtml(heading)}</h2><p>${escapeHtml(input.message)}</p><p>Error code: <code>${escapeHtml(input.code)}</code> (HTTP ${input.status})</p></div>`;
  return renderPage({ title: `${heading} – Search`, header, main });
}
