/**
 * Where in a text a query term can occur, found without the analyzer: a summary analyses only
 * the words at these places (see `summary.ts`). The answer is a superset: every token whose
 * term is a query term starts at, or holds, a place found here; many places found are not
 * such tokens, and the analyzer says so.
 *
 * What makes a fast search of the raw text exact, by the tokenizer's rules (`create-analyzer.ts`):
 * - A token of ASCII letters, digits and joined `.` has as term its characters lower-cased
 *   (with case folding), then stemmed when stemming is on and it is a lower-case word; so its
 *   characters start with the term's {@link spellingPrefix}, in some case.
 * - A joined ASCII apostrophe is removed (after a possessive `'s`): `don't` is the term `dont`
 *   though `dont` is not in the text, so every apostrophe is a place of its own.
 * - Every other token holds a character outside ASCII: such characters are places of their
 *   own, whatever the query (folding `Ｐｒｏｔｏｃｏｌ`, `é` or `ﬁ` is the analyzer's business).
 */

/** Characters a term of an ASCII token may have; a term with any other comes only from a non-ASCII token. */
const ASCII_TERM = /^[A-Za-z0-9.]+$/;
const LOWER_WORD = /^[a-z]+$/;
/** Endings of a stem whose last character may not be the word's (see {@link spellingPrefix}). */
const ONE_NEW_CHARACTER = /(?:e|i|bl)$/;

/**
 * What the lower-cased characters of every ASCII token whose term is `term` start with
 * (apostrophes aside), or undefined when no ASCII token has that term.
 *
 * Without stemming that is the term. With stemming (the `stemmer` package's Porter stemmer,
 * applied to lower-case words only) it is the stem less the characters a stemming step may
 * have put in place of the word's own: the steps remove a suffix and append at most these
 * new characters at the end: `e` (1b `hoping` → `hope`; step 2 `ational` → `ate`, `enci` →
 * `ence`, `izer`/`ization` → `ize`, `bli` → `ble`, `iviti` → `ive`), `i` (1c `happy` →
 * `happi`) and `le` (step 2 `biliti` → `ble`). Steps 3 and 4 append nothing new (and remove
 * at least as much as is new), and step 5 only removes a final `e` or `l`. So new characters,
 * when a stem has any, end it: at most `e` or `i` (one), `le` of `ble` (two), or `l` of `bl`
 * (`ble` less its `e`: one). Every word whose stem is `term` starts with the rest
 * (`test/search/summary-candidates.test.ts` checks this on generated words against the
 * pinned stemmer).
 */
export function spellingPrefix(term: string, stems: boolean): string | undefined {
  if (!ASCII_TERM.test(term)) return undefined;
  if (!stems || !LOWER_WORD.test(term)) return term;
  const newCharacters = term.endsWith('ble') ? 2 : ONE_NEW_CHARACTER.test(term) ? 1 : 0;
  return term.slice(0, term.length - newCharacters);
}

/** Patterns of {@link candidatePatterns}. */
export interface CandidatePatterns {
  /** For a text of ASCII characters only: spelling prefixes and apostrophes. */
  ascii: RegExp;
  /** For any text: spelling prefixes, apostrophes and every character outside ASCII. */
  any: RegExp;
  /** For a text of ASCII characters only whose apostrophes are found apart: spelling prefixes. */
  prefixes: RegExp;
  /** The spelling prefixes (each of at least `minPrefix` characters, all ASCII). */
  spellingPrefixes: string[];
}

/**
 * Global, case-insensitive patterns that match, in any text, at least at the start of every
 * ASCII token whose term is one of `terms` (its spelling prefix, see {@link spellingPrefix}),
 * at every ASCII apostrophe (`don't` is the term `dont`: a spelling prefix need not occur),
 * and, for `any`, at every character outside ASCII (see the module comment); or null when
 * they would match nearly everywhere (a spelling prefix of fewer than `minPrefix`
 * characters): the caller analyses the whole text then.
 *
 * Case-insensitive matching without the `u` flag never matches an ASCII letter of the pattern
 * against a character outside ASCII (ECMAScript's Canonicalize keeps those apart), which is
 * what is wanted: such characters are candidates of their own.
 */
export function candidatePatterns(
  terms: Iterable<string>,
  stems: boolean,
  minPrefix = 1,
): CandidatePatterns | null {
  const prefixes = new Set<string>();
  for (const term of terms) {
    const prefix = spellingPrefix(term, stems);
    if (prefix === undefined) continue;
    if (prefix.length < minPrefix) return null;
    prefixes.add(prefix);
  }
  // A prefix that another one starts with adds no candidate.
  const shortest = [...prefixes].filter((p) => ![...prefixes].some((q) => q !== p && p.startsWith(q)));
  const alternatives = shortest.map((p) => p.replaceAll('.', '\\.'));
  return {
    ascii: new RegExp([...alternatives, "'"].join('|'), 'gi'),
    any: new RegExp([...alternatives, '[^\\x00-\\x26\\x28-\\x7f]'].join('|'), 'gi'),
    // With no prefix, a pattern that matches nothing.
    prefixes: new RegExp(alternatives.length > 0 ? alternatives.join('|') : '[]', 'gi'),
    spellingPrefixes: shortest,
  };
}
