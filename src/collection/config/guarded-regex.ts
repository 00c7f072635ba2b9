/**
 * Compiles the regular expressions of gscopes.cfg and qie.cfg, which run against every key at
 * indexing time. JavaScript's regex engine backtracks, so a careless pattern such as `(a+)+b`
 * can take exponential time on one key and stall a commit. Node 20 has no linear-time engine
 * without a start-up flag, so we guard as far as is reasonable:
 *
 * - The pattern is at most {@link MAX_PATTERN_LENGTH} characters.
 * - Nested repetition is refused: a group that contains a variable repetition (`*`, `+`,
 *   `{n,}`, `{n,m}` with m > n) may not itself be repeated without limit (`*`, `+`, `{n,}`).
 *   This is the shape of nearly all exponential patterns (`(a+)+`, `(a*)*`, `(\w+\s?)*`,
 *   `((ab)*c)+`). It also refuses some safe patterns such as `(\d{1,3}\.)+`; a bounded
 *   outer count (`(\d{1,3}\.){3}`) is accepted.
 * - Not caught: overlapping alternatives under one quantifier (`(a|a)*`) and polynomial
 *   patterns (`.*a.*a.*a`). Keys are at most 2000 characters, which bounds polynomial cost.
 *
 * Syntax: JavaScript regular expressions without the `u` flag (closest to the Perl patterns the
 * original used; `\.`, `\-`, `\/` all work). A leading `(?i)` (Perl's inline flag, **compat**)
 * makes the pattern case-insensitive. Matching is a search anywhere in the key, not a match
 * of the whole key: anchor with `^` and `$` where needed.
 */

/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 1000;

/**
 * Compiles `pattern`, or throws a plain `Error` whose message says what is wrong (callers add
 * the file name and line).
 */
export function compileGuardedRegex(pattern: string): RegExp {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new Error(
      `the pattern is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are allowed`,
    );
  }
  let source = pattern;
  let flags = '';
  if (source.startsWith('(?i)')) {
    source = source.slice(4);
    flags = 'i';
  }
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags);
  } catch (e) {
    throw new Error(`invalid regular expression: ${(e as Error).message}`);
  }
  const nested = findNestedRepetition(source);
  if (nested !== undefined) {
    throw new Error(
      `the group ending at character ${nested + 1 + (pattern.length - source.length)} is repeated without limit and ` +
        'itself contains a repetition (like (a+)+), which can take exponential time; remove one of the two repetitions',
    );
  }
  return regex;
}

interface Frame {
  /** The group contains a variable repetition (at any depth). */
  repeats: boolean;
}

/**
 * Index of the `)` of the first group that contains a variable repetition and is itself
 * repeated without limit, or
 * undefined. A small scanner of the regex syntax: escapes, classes and group prefixes are
 * skipped so that their characters are not read as quantifiers. Runs on patterns that
 * `new RegExp` already accepted.
 */
export function findNestedRepetition(source: string): number | undefined {
  const stack: Frame[] = [{ repeats: false }];
  // What the next quantifier applies to: a group (with its `)` index) or a plain atom.
  let lastAtom: { groupRepeats: boolean; close: number } | undefined;
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === '\\') {
      lastAtom = { groupRepeats: false, close: i };
      i += 2;
      continue;
    }
    if (ch === '[') {
      i = skipClass(source, i);
      lastAtom = { groupRepeats: false, close: i - 1 };
      continue;
    }
    if (ch === '(') {
      stack.push({ repeats: false });
      i = skipGroupPrefix(source, i + 1);
      lastAtom = undefined;
      continue;
    }
    if (ch === ')') {
      const frame = stack.length > 1 ? (stack.pop() as Frame) : { repeats: false };
      if (frame.repeats) stack[stack.length - 1].repeats = true;
      lastAtom = { groupRepeats: frame.repeats, close: i };
      i++;
      continue;
    }
    if (ch === '|') {
      lastAtom = undefined;
      i++;
      continue;
    }
    const quantifier = readQuantifier(source, i);
    if (quantifier !== undefined) {
      if (lastAtom !== undefined) {
        if (quantifier.unbounded && lastAtom.groupRepeats) return lastAtom.close;
        if (quantifier.variable) stack[stack.length - 1].repeats = true;
      }
      i = quantifier.end;
      if (source[i] === '?') i++; // lazy form
      lastAtom = undefined;
      continue;
    }
    lastAtom = { groupRepeats: false, close: i };
    i++;
  }
  return undefined;
}

function skipClass(source: string, open: number): number {
  let i = open + 1;
  while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
  return i + 1;
}

function skipGroupPrefix(source: string, i: number): number {
  if (source[i] !== '?') return i;
  const next = source[i + 1];
  if (next === ':' || next === '=' || next === '!') return i + 2;
  if (next === '<') {
    const after = source[i + 2];
    if (after === '=' || after === '!') return i + 3;
    const close = source.indexOf('>', i + 2);
    return close === -1 ? i + 2 : close + 1;
  }
  return i + 1;
}

/**
 * `variable`: the quantifier can repeat its atom a varying number of times (two or more), so
 * a string can be split between iterations in several ways. `unbounded`: no upper limit.
 * `?` is neither: it decides once, it does not multiply the ways to split.
 */
function readQuantifier(
  source: string,
  i: number,
): { end: number; variable: boolean; unbounded: boolean } | undefined {
  const ch = source[i];
  if (ch === '*' || ch === '+') return { end: i + 1, variable: true, unbounded: true };
  if (ch === '?') return { end: i + 1, variable: false, unbounded: false };
  if (ch !== '{') return undefined;
  // Without the u flag a `{` that does not form a quantifier is a literal.
  const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24));
  if (m === null) return undefined;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
  return { end: i + m[0].length, variable: max > min && max >= 2, unbounded: max === Infinity };
}
