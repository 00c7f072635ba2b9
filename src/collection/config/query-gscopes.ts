import { ConfigFileError } from './config-file-error.js';
import { configLines } from './config-lines.js';
import { gscopeIdProblem, splitIdLine } from './gscopes.js';

/**
 * `query-gscopes.cfg`: gscopes set on the documents that match a query (**compat**). One rule a
 * line, `ID query`, separated by the first run of whitespace. ID rules as in gscopes.cfg; the
 * query is the rest of the line in the query language, kept as text here (the query
 * processor parses it when the rule is applied). The same ID on several lines ORs the
 * queries. `#` comments and blank lines are skipped; errors name the file and line.
 */

/** One line of query-gscopes.cfg. */
export interface QueryGscopeRule {
  readonly id: string;
  readonly query: string;
}

/** A parsed query-gscopes.cfg, rules in file order. */
export interface QueryGscopes {
  readonly rules: readonly QueryGscopeRule[];
}

/** Parses query-gscopes.cfg. Throws `ConfigFileError` (`CONFIG_INVALID`) with the line of the first bad line. */
export function parseQueryGscopes(text: string, fileName = 'query-gscopes.cfg'): QueryGscopes {
  const rules: QueryGscopeRule[] = [];
  const seen = new Set<string>();
  for (const { line, text: content } of configLines(text)) {
    const parts = splitIdLine(content);
    if (parts === undefined) {
      throw new ConfigFileError(
        fileName,
        line,
        `expected "ID query", found ${JSON.stringify(content)} (no query)`,
      );
    }
    const idProblem = gscopeIdProblem(parts.id);
    if (idProblem !== undefined) throw new ConfigFileError(fileName, line, idProblem);
    const identity = `${parts.id} ${parts.rest}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    rules.push({ id: parts.id, query: parts.rest });
  }
  return { rules };
}

/** The queries of each ID, IDs in the order of their first line. */
export function queriesById(config: QueryGscopes): Map<string, string[]> {
  const byId = new Map<string, string[]>();
  for (const rule of config.rules) {
    const list = byId.get(rule.id);
    if (list === undefined) byId.set(rule.id, [rule.query]);
    else list.push(rule.query);
  }
  return byId;
}

/** Writes the rules back as query-gscopes.cfg. */
export function serializeQueryGscopes(config: QueryGscopes): string {
  const lines = config.rules.map((rule) => `${rule.id} ${rule.query}`);
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}
