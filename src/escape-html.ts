/** The character references {@link escapeHtml} puts in place of the characters it escapes, by character. */
export const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Escapes text for HTML element content and quoted attribute values: the one escaper of the
 * project (results and error pages, summaries, the admin UI, HTML made from extracted documents).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}
