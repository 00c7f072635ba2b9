import { TextAccumulator } from './text-accumulator.js';
import { isJsSpace } from '../../whitespace.js';

/**
 * Whitespace rules shared by the filters. Written as one scan each rather than regex
 * replaces: a global replace on a 30 MB text holds a record of every match (millions) at
 * once and needs several times the text's memory; these copy only the spans between the
 * places that change (most word gaps are already a single space).
 */

/** For short values (titles, link text, metadata values): every whitespace run becomes one space; trimmed. */
export function collapseWhitespace(s: string): string {
  return normalize(s, false);
}

/**
 * For body text: runs of spaces become one space, line breaks (with the spaces around them)
 * one `\n`, so block boundaries survive for snippets while layout whitespace goes; trimmed.
 */
export function normalizeBodyText(s: string): string {
  return normalize(s, true);
}

/** For plain text: CRLF and lone CR become LF; everything else stays as it is. */
export function normalizeNewlines(s: string): string {
  let cr = s.indexOf('\r');
  if (cr < 0) return s;
  const out = new TextAccumulator();
  let copyFrom = 0;
  while (cr >= 0) {
    out.push(s.slice(copyFrom, cr));
    out.push('\n');
    copyFrom = s.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
    cr = s.indexOf('\r', copyFrom);
  }
  out.push(s.slice(copyFrom));
  return out.toString();
}

/** Every CR and LF becomes a space (HTML source line breaks are layout, not content). */
export function lineBreaksToSpaces(s: string): string {
  const re = /[\r\n]/g;
  let m = re.exec(s);
  if (m === null) return s;
  const out = new TextAccumulator();
  let copyFrom = 0;
  for (; m !== null; m = re.exec(s)) {
    out.push(s.slice(copyFrom, m.index));
    out.push(' ');
    copyFrom = m.index + 1;
  }
  out.push(s.slice(copyFrom));
  return out.toString();
}

function normalize(s: string, keepNewlines: boolean): string {
  const out = new TextAccumulator();
  const n = s.length;
  let copyFrom = 0;
  let i = 0;
  while (i < n) {
    if (!isJsSpace(s.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let newline = false;
    while (i < n && isJsSpace(s.charCodeAt(i))) {
      if (s.charCodeAt(i) === 10) newline = true;
      i++;
    }
    const replacement = start === 0 || i === n ? '' : keepNewlines && newline ? '\n' : ' ';
    if (i - start === 1 && s[start] === replacement) continue;
    out.push(s.slice(copyFrom, start));
    out.push(replacement);
    copyFrom = i;
  }
  if (copyFrom === 0) return s;
  out.push(s.slice(copyFrom));
  return out.toString();
}
