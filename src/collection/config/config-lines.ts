/**
 * The line reader every `.cfg` parser shares, so that they agree on what a line, a comment
 * and a line number are: lines end at `\n`, `\r\n` or `\r`; a leading byte-order mark is
 * dropped; a line whose first non-blank character is `#` is a comment; blank lines are
 * skipped. `#` later in a line is ordinary text (values and regexes contain it).
 */
export interface ConfigLine {
  /** 1-based line number in the file. */
  line: number;
  /** The line with surrounding whitespace removed; never empty, never a comment. */
  text: string;
}

/** The meaningful lines of a configuration file, with their line numbers. */
export function configLines(text: string): ConfigLine[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const out: ConfigLine[] = [];
  const lines = body.split(/\r\n|\n|\r/);
  lines.forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) out.push({ line: i + 1, text: trimmed });
  });
  return out;
}

/** Splits `text` at the first `count` commas: `count + 1` fields, the last one keeps its commas. */
export function splitFields(text: string, count: number): string[] {
  const fields: string[] = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    const comma = text.indexOf(',', start);
    if (comma === -1) break;
    fields.push(text.slice(start, comma).trim());
    start = comma + 1;
  }
  fields.push(text.slice(start).trim());
  return fields;
}
