import { ConfigFileError } from './config-file-error.js';
import { configLines } from './config-lines.js';

/**
 * `key=value` files: `global.cfg` and `collection.cfg` (**compat**: the original's format).
 *
 * - One `key=value` a line; the line is split at its first `=`, so values may contain `=`.
 * - Whitespace around keys and values is trimmed; a value may be empty (`indexer_options=`).
 * - Lines whose first non-blank character is `#` are comments; blank lines are skipped. A `#`
 *   after the start of a line is part of the value (URLs and regexes contain it).
 * - A key that appears again replaces the earlier value ("later keys win").
 * - A malformed line (no `=`, empty key, whitespace inside the key) throws
 *   {@link ConfigFileError} (`CONFIG_INVALID`) naming the file and the 1-based line number.
 */
export type CfgEntries = Map<string, string>;

const KEY = /^[^\s=]+$/;

/** Parses the text of a `.cfg` file. `fileName` only appears in error messages. */
export function parseCfg(text: string, fileName: string): CfgEntries {
  const entries: CfgEntries = new Map();
  for (const { line, text: content } of configLines(text)) {
    const { key, value } = splitLine(content, fileName, line);
    entries.set(key, value);
  }
  return entries;
}

function splitLine(content: string, fileName: string, line: number): { key: string; value: string } {
  const eq = content.indexOf('=');
  if (eq === -1) {
    throw new ConfigFileError(
      fileName,
      line,
      `expected key=value, found ${JSON.stringify(shorten(content))} (no "=")`,
    );
  }
  const key = content.slice(0, eq).trim();
  if (key === '') throw new ConfigFileError(fileName, line, 'the key before "=" is empty');
  if (!KEY.test(key)) {
    throw new ConfigFileError(fileName, line, `the key ${JSON.stringify(shorten(key))} contains whitespace`);
  }
  return { key, value: content.slice(eq + 1).trim() };
}

/**
 * Writes entries as a `.cfg` file, one `key=value` a line, in the map's order, after an
 * optional comment header. Throws `CONFIG_INVALID` for what would not read back the same:
 * a key that is empty or holds `=` or whitespace, a value with a line break or with
 * whitespace at either end.
 */
export function serializeCfg(
  entries: ReadonlyMap<string, string> | Readonly<Record<string, string>>,
  options: { fileName?: string; header?: string } = {},
): string {
  const fileName = options.fileName ?? 'configuration';
  const lines: string[] = [];
  if (options.header !== undefined) {
    for (const h of options.header.split(/\r\n|\n|\r/)) lines.push(h === '' ? '#' : `# ${h}`);
  }
  // `instanceof Map` narrows a ReadonlyMap to Map<any, any>: say again what it holds.
  const pairs =
    entries instanceof Map
      ? [...(entries as ReadonlyMap<string, string>)]
      : Object.entries(entries as Readonly<Record<string, string>>);
  for (const [key, value] of pairs) lines.push(formatLine(key, value, fileName));
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}

function formatLine(key: string, value: string, fileName: string): string {
  if (!KEY.test(key)) {
    throw new ConfigFileError(
      fileName,
      undefined,
      `the key ${JSON.stringify(key)} must be non-empty, without "=" or whitespace`,
    );
  }
  if (/[\r\n]/.test(value)) {
    throw new ConfigFileError(
      fileName,
      undefined,
      `the value of ${key} contains a line break, which a .cfg line cannot hold`,
    );
  }
  if (value !== value.trim()) {
    throw new ConfigFileError(
      fileName,
      undefined,
      `the value of ${key} starts or ends with whitespace, which reading would drop`,
    );
  }
  if (key.startsWith('#')) {
    throw new ConfigFileError(
      fileName,
      undefined,
      `the key ${JSON.stringify(key)} starts with "#" and would read back as a comment`,
    );
  }
  return `${key}=${value}`;
}

/**
 * Applies changes to the text of a `.cfg` file and keeps everything else as it was
 * (comments, blank lines, order), which is what the admin UI needs when it saves one key.
 * `changes` maps a key to its new value, or to `null` to remove it. A changed key is
 * rewritten in place at its last occurrence (the one that counts) and its earlier
 * occurrences are removed; new keys are appended at the end. The input must parse.
 */
export function updateCfgText(
  text: string,
  changes: ReadonlyMap<string, string | null> | Readonly<Record<string, string | null>>,
  fileName: string,
): string {
  const pending = new Map<string, string | null>(
    changes instanceof Map ? (changes as ReadonlyMap<string, string | null>) : Object.entries(changes),
  );
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r\n|\n|\r/);
  const trailingNewline = lines.length > 0 && lines[lines.length - 1] === '';
  if (trailingNewline) lines.pop();
  const newline = /\r\n/.test(body) ? '\r\n' : '\n';

  // The last line of each key that changes: that one is rewritten, the others dropped.
  const lastLine = new Map<string, number>();
  for (const { line, text: content } of configLines(body)) {
    const { key } = splitLine(content, fileName, line);
    if (pending.has(key)) lastLine.set(key, line - 1);
  }
  const out: string[] = [];
  lines.forEach((original, index) => {
    const content = original.trim();
    if (content === '' || content.startsWith('#')) {
      out.push(original);
      return;
    }
    const key = splitLine(content, fileName, index + 1).key;
    if (!pending.has(key)) {
      out.push(original);
      return;
    }
    if (lastLine.get(key) !== index) return;
    const value = pending.get(key);
    if (value !== null && value !== undefined) out.push(formatLine(key, value, fileName));
  });
  for (const [key, value] of pending) {
    if (!lastLine.has(key) && value !== null) out.push(formatLine(key, value, fileName));
  }
  return out.length === 0 ? '' : out.join(newline) + newline;
}

function shorten(s: string): string {
  return s.length > 80 ? s.slice(0, 80) + '…' : s;
}
