/**
 * Whitespace rules shared by the filters. All are single linear regex passes, safe on
 * documents of tens of megabytes.
 */

/** For short values (titles, link text, metadata values): every whitespace run becomes one space; trimmed. */
export function collapseWhitespace(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * For body text: runs of spaces become one space, line breaks (with the spaces around them)
 * one `\n`, so block boundaries survive for snippets while layout whitespace goes; trimmed.
 */
export function normalizeBodyText(s: string): string {
  return s.replace(/[^\S\n]+/g, ' ').replace(/ ?\n[\n ]*/g, '\n').trim();
}

/** For plain text: CRLF and lone CR become LF; everything else stays as it is. */
export function normalizeNewlines(s: string): string {
  return s.replace(/\r\n?/g, '\n');
}
