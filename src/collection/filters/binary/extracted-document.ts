import { escapeHtml } from '../../../escape-html.js';

/** What the extraction of a binary document yields (see `extraction-worker.ts`). */
export interface ExtractedDocument {
  title?: string;
  /** Paragraphs (or cells, or slide text lines) in document order. */
  paragraphs: string[];
  /** Document properties by lower-case name (`author`, `subject`, `keywords`, `created`...). */
  properties: Record<string, string>;
}

/**
 * The extracted document as HTML, as the original's Tika step hands it on: `<title>`, one
 * `<meta name content>` a property, one `<p>` a paragraph. Later steps of the chain (the
 * HTML filter, the title fixer) read it like any pushed page, and it is what the journal
 * and the index keep beside the pushed bytes, so replay and RE_INDEX need no second extraction.
 */
export function extractedToHtml(document: ExtractedDocument): string {
  const head = [
    document.title === undefined ? '' : `<title>${escapeHtml(document.title)}</title>`,
    ...Object.entries(document.properties).map(
      ([name, value]) => `<meta name="${escapeHtml(name)}" content="${escapeHtml(value)}">`,
    ),
  ].join('');
  const body = document.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>\n${body}\n</body></html>`;
}
