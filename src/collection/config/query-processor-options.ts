/**
 * Query processor options (`query_processor_options` in collection.cfg, **compat**): flags
 * separated by whitespace, each `-name=value`, or a bare `-name` meaning `-name=true`
 * (e.g. `-anniemode=3 -stem=2 -SF=[t,a]`). Names are case-sensitive and kept as written; a
 * flag given twice takes its last value. The value is everything after the first `=`, so it
 * may contain `=`; it cannot contain whitespace (there is no quoting, as in the original).
 */

/**
 * Parses query processor options into flag name → value. Throws a plain `Error` saying which
 * token is wrong (the caller names the key and file).
 */
export function parseQueryProcessorOptions(text: string): Map<string, string> {
  const flags = new Map<string, string>();
  for (const token of text.split(/\s+/)) {
    if (token === '') continue;
    if (!token.startsWith('-')) {
      throw new Error(`${JSON.stringify(token)} is not a flag: each option is -name=value or -name`);
    }
    const eq = token.indexOf('=');
    const name = eq === -1 ? token.slice(1) : token.slice(1, eq);
    if (name === '' || name.startsWith('-')) {
      throw new Error(`${JSON.stringify(token)} has no flag name: write -name=value or -name`);
    }
    flags.set(name, eq === -1 ? 'true' : token.slice(eq + 1));
  }
  return flags;
}

/** Writes flags back as `-name=value` separated by spaces (the inverse of the parser). */
export function serializeQueryProcessorOptions(flags: ReadonlyMap<string, string>): string {
  const parts: string[] = [];
  for (const [name, value] of flags) {
    if (name === '' || /[\s=]/.test(name) || name.startsWith('-') || /\s/.test(value)) {
      throw new Error(
        `query processor option ${JSON.stringify(name)}=${JSON.stringify(value)} cannot be written`,
      );
    }
    parts.push(`-${name}=${value}`);
  }
  return parts.join(' ');
}
