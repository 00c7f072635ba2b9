import { ConfigFileError } from './config-file-error.js';
import { configLines } from './config-lines.js';
import { compileGuardedRegex, type KeyRegex } from './guarded-regex.js';

/**
 * `gscopes.cfg`: generalised scopes set on documents by their key (**compat**). One rule a
 * line, `ID regex`, separated by the first run of whitespace:
 *
 * - `ID`: 1 to 64 ASCII letters or digits, case-sensitive.
 * - `regex`: the rest of the line (trimmed; write a trailing space as `\x20`), searched in
 *   the canonical key (not anchored: use `^`/`$`). Syntax and the guard against catastrophic
 *   backtracking: see `guarded-regex.ts` (RE2 syntax, linear-time matching, size limits).
 * - The same ID on several lines ORs them: the document gets the ID when any of its lines
 *   matches. A repeated identical line is kept once.
 * - `#` comments and blank lines are skipped; errors name the file and line.
 */

/** One line of gscopes.cfg. */
export interface GscopeRule {
  readonly id: string;
  /** The regex as written. */
  readonly pattern: string;
  readonly regex: KeyRegex;
}

/** A parsed gscopes.cfg, rules in file order. */
export interface Gscopes {
  readonly rules: readonly GscopeRule[];
}

const ID = /^[A-Za-z0-9]{1,64}$/;

/** Checks a gscope ID; returns the problem or undefined. Shared with query-gscopes.cfg. */
export function gscopeIdProblem(id: string): string | undefined {
  if (ID.test(id)) return undefined;
  if (id.length > 64 && /^[A-Za-z0-9]+$/.test(id))
    return `the ID ${id.slice(0, 20)}… is ${id.length} characters long; at most 64 are allowed`;
  return `the ID ${JSON.stringify(id)} may only contain ASCII letters and digits`;
}

/** Splits `ID rest` at the first whitespace; undefined when there is no rest. */
export function splitIdLine(content: string): { id: string; rest: string } | undefined {
  const [, id, rest] = /^(\S+)\s+(\S.*)$/s.exec(content) ?? [];
  return id === undefined || rest === undefined ? undefined : { id, rest };
}

/** Parses gscopes.cfg. Throws `ConfigFileError` (`CONFIG_INVALID`) with the line of the first bad line. */
export function parseGscopes(text: string, fileName = 'gscopes.cfg'): Gscopes {
  const rules: GscopeRule[] = [];
  const seen = new Set<string>();
  for (const { line, text: content } of configLines(text)) {
    const parts = splitIdLine(content);
    if (parts === undefined) {
      throw new ConfigFileError(
        fileName,
        line,
        `expected "ID regex", found ${JSON.stringify(content)} (no regex)`,
      );
    }
    const idProblem = gscopeIdProblem(parts.id);
    if (idProblem !== undefined) throw new ConfigFileError(fileName, line, idProblem);
    let regex: KeyRegex;
    try {
      regex = compileGuardedRegex(parts.rest);
    } catch (e) {
      throw new ConfigFileError(fileName, line, (e as Error).message);
    }
    const identity = `${parts.id} ${parts.rest}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    rules.push({ id: parts.id, pattern: parts.rest, regex });
  }
  return { rules };
}

/** The gscope IDs a key gets, each once, in the order of their first line. */
export function gscopesForKey(gscopes: Gscopes, key: string): string[] {
  const ids: string[] = [];
  for (const rule of gscopes.rules) {
    if (!ids.includes(rule.id) && rule.regex.test(key)) ids.push(rule.id);
  }
  return ids;
}

/** Writes the rules back as gscopes.cfg. */
export function serializeGscopes(gscopes: Gscopes): string {
  const lines = gscopes.rules.map((rule) => `${rule.id} ${rule.pattern}`);
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}
