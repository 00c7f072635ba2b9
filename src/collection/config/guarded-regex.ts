import { RE2JS } from 're2js';

/**
 * Compiles the regular expressions of gscopes.cfg and qie.cfg, which run against every key at
 * indexing time, on the event loop of the PUT that carries the key. JavaScript's own engine
 * backtracks: `^http://x/(\w|\d)*$` or `(a|a)*$` take time that doubles with every character
 * of a key, so one PUT could stall the whole server for minutes. These patterns run on RE2
 * instead (re2js, a pure JavaScript port of RE2/J: no native build), whose matching time is
 * linear in the key: at most (compiled program size) × (key length) steps, both bounded here.
 *
 * - The pattern is at most {@link MAX_PATTERN_LENGTH} characters.
 * - Its compiled program has at most {@link MAX_PROGRAM_SIZE} instructions (counted
 *   repetitions such as `a{500}` are expanded, so they count), which with keys of at most
 *   2000 characters bounds one match to a few milliseconds.
 *
 * Syntax: RE2's (https://github.com/google/re2/wiki/Syntax), the Perl syntax the original used
 * minus what cannot run in linear time: backreferences (`\1`) and lookaround (`(?=`, `(?!`,
 * `(?<=`) are refused with an error naming them. `\.`, `\-`, `\/` all work; `(?i)` anywhere
 * makes the rest of the group case-insensitive (**compat**: Perl's inline flag). Matching is
 * a search anywhere in the key, not a match of the whole key: anchor with `^` and `$` where
 * needed.
 */

/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 1000;

/** Largest compiled program accepted, in RE2 instructions. */
export const MAX_PROGRAM_SIZE = 1000;

/** A compiled key pattern: answers whether it occurs anywhere in a key, in linear time. */
export interface KeyRegex {
  test(key: string): boolean;
}

/**
 * Compiles `pattern`, or throws a plain `Error` whose message says what is wrong (callers add
 * the file name and line).
 */
export function compileGuardedRegex(pattern: string): KeyRegex {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new Error(
      `the pattern is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are allowed`,
    );
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (e) {
    throw new Error(`invalid regular expression: ${explainSyntaxError((e as Error).message)}`);
  }
  const size = programSize(compiled);
  if (size > MAX_PROGRAM_SIZE) {
    throw new Error(
      `the pattern compiles to ${size} instructions; at most ${MAX_PROGRAM_SIZE} are allowed ` +
        '(counted repetitions like {500} are expanded: lower the counts)',
    );
  }
  return { test: (key) => compiled.test(key) };
}

/** RE2's message, with a hint where the pattern uses Perl syntax RE2 leaves out on purpose. */
function explainSyntaxError(message: string): string {
  if (/\(\?[=!<]/.test(message)) {
    return `${message} (lookaround cannot run in linear time, so it is not supported)`;
  }
  if (/escape sequence: `\\[1-9]/.test(message)) {
    return `${message} (backreferences cannot run in linear time, so they are not supported)`;
  }
  return message;
}

/** Instructions of the compiled program (re2js keeps them in `re2().prog.inst`). */
function programSize(compiled: RE2JS): number {
  const prog = (compiled.re2() as unknown as { prog?: { inst?: unknown[] } }).prog;
  if (prog?.inst === undefined) throw new Error('re2js no longer exposes its compiled program size');
  return prog.inst.length;
}
