/**
 * The analyzer's scanner (`create-analyzer.ts`) on ASCII text, for summaries, which look at
 * most of a result's words without asking the analyzer for their terms: where the tokens
 * are, and for a token the `kind` and spelling hash the analyzer would report with it (so
 * that its term comes from the spelling table as the analyzer's would). On ASCII characters
 * a token is a run of letters and digits, in which a `.` between two digits and a `'`
 * between two letters join; `test/search/ascii-tokens.test.ts` checks every function here
 * against the analyzer.
 */
import { SPELLING_HASH_PRIME, SPELLING_HASH_SEED } from '../index/analysis/analyzer.js';
import { ASCII_CLASS, DIGIT, LETTER, OTHER } from '../index/analysis/char-class.js';
import { JOINED_APOSTROPHE } from '../index/analysis/create-analyzer.js';

/** Added to a state of {@link ASCII_STEP} when the character starts a token. */
export const TOKEN_START = 8;

/**
 * The ASCII scanner of `create-analyzer.ts` as a table: `ASCII_STEP[state << 7 | c]` is the
 * state after the character `c`, plus {@link TOKEN_START} when `c` starts a token. A token
 * is a run of letters and digits, in which a `.` between two digits and a `'` between two
 * letters join. States: 0 outside a token, 1 after a letter, 2 after a digit, 3 after a `.`
 * that follows a digit, 4 after a `'` that follows a letter (a joiner joins exactly when the
 * next character is of its kind). `test/search/summary.test.ts` checks the two count alike.
 */
export const ASCII_STEP: Uint8Array = (() => {
  const table = new Uint8Array(8 << 7);
  for (let state = 0; state < 5; state++) {
    for (let c = 0; c < 128; c++) {
      const k = ASCII_CLASS[c]!;
      let next = 0;
      let starts = false;
      if ((k & LETTER) !== 0) {
        next = 1;
        starts = state !== 1 && state !== 2 && state !== 4;
      } else if ((k & DIGIT) !== 0) {
        next = 2;
        starts = state !== 1 && state !== 2 && state !== 3;
      } else if (c === 46 /* . */ && state === 2) {
        next = 3;
      } else if (c === 39 /* ' */ && state === 1) {
        next = 4;
      }
      table[(state << 7) | c] = next | (starts ? TOKEN_START : 0);
    }
  }
  return table;
})();

/** Added to a state of {@link ASCII_PAIR_STEP} when the second character of the pair starts a token. */
export const SECOND_TOKEN_START = 16;

/**
 * {@link ASCII_STEP} two characters at a time: `ASCII_PAIR_STEP[state << 14 | c0 << 7 | c1]`
 * is the state after `c0` then `c1`, plus {@link TOKEN_START} when `c0` starts a token and
 * {@link SECOND_TOKEN_START} when `c1` does. A count of tokens waits for one table read per
 * pair instead of one per character (the next read needs the state the last one gave): 8-10%
 * less time per summary on the RFC pages of the mixed set, for 80 KiB of table.
 */
export const ASCII_PAIR_STEP: Uint8Array = (() => {
  const table = new Uint8Array(5 << 14);
  for (let state = 0; state < 5; state++) {
    for (let c0 = 0; c0 < 128; c0++) {
      const first = ASCII_STEP[(state << 7) | c0]!;
      for (let c1 = 0; c1 < 128; c1++) {
        const second = ASCII_STEP[((first & 7) << 7) | c1]!;
        table[(state << 14) | (c0 << 7) | c1] =
          (second & 7) | (first & TOKEN_START) | (second >= TOKEN_START ? SECOND_TOKEN_START : 0);
      }
    }
  }
  return table;
})();

/** The end of the ASCII token that starts at `start` (before `to`, a cut or the text's end). */
export function asciiTokenEnd(text: string, start: number, to: number): number {
  let state = ASCII_STEP[text.charCodeAt(start)]! & 7;
  let i = start + 1;
  for (; i < to; i++) {
    const next = ASCII_STEP[(state << 7) | text.charCodeAt(i)]!;
    if (next === 0 || next >= TOKEN_START) break;
    state = next;
  }
  // A joiner that joined nothing is not the token's.
  return state >= 3 ? i - 1 : i;
}

/**
 * The starts of the kept tokens of the ASCII text `text[from, to)` (both cuts), written into
 * `out` from `first`; returns where they end. The scanner's rules one token at a time, with
 * each token's length: for texts with a token longer than `maxLength` (which is not kept).
 */
export function asciiStartsExactly(
  text: string,
  from: number,
  to: number,
  maxLength: number,
  out: Int32Array,
  first: number,
): number {
  let count = first;
  let i = from;
  while (i < to) {
    let c = text.charCodeAt(i);
    let kind = ASCII_CLASS[c]!;
    if (kind === OTHER) {
      i++;
      continue;
    }
    const start = i;
    // A joiner's right side is before `to`: the character there (a cut) is no letter or digit.
    while (++i < to) {
      c = text.charCodeAt(i);
      const k = ASCII_CLASS[c]!;
      if (k !== OTHER) {
        kind = k;
        continue;
      }
      const joins =
        i + 1 < to &&
        (c === 46 /* . */
          ? (kind & DIGIT) !== 0 && (ASCII_CLASS[text.charCodeAt(i + 1)]! & DIGIT) !== 0
          : c === 39 /* ' */ &&
            (kind & LETTER) !== 0 &&
            (ASCII_CLASS[text.charCodeAt(i + 1)]! & LETTER) !== 0);
      if (!joins) break;
    }
    if (i - start <= maxLength) out[count++] = start;
  }
  return count;
}

/** What {@link forEachAsciiToken} reports tokens to (`TokenSink.token` without a position). */
export interface AsciiTokenSink {
  token(text: string, start: number, end: number, kind: number, hash: number): void;
}

/**
 * Every token of the ASCII text `text[from, to)` (`from` a token's start or outside one, `to`
 * a token's end or outside one), with the `kind` and spelling hash the analyzer reports: the
 * classes of its characters, and {@link JOINED_APOSTROPHE} when it holds an apostrophe.
 */
export function forEachAsciiToken(text: string, from: number, to: number, sink: AsciiTokenSink): void {
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if ((ASCII_CLASS[c]! & (LETTER | DIGIT)) === 0) {
      i++;
      continue;
    }
    const end = asciiTokenEnd(text, i, to);
    let kind = 0;
    let hash = SPELLING_HASH_SEED;
    for (let j = i; j < end; j++) {
      const d = text.charCodeAt(j);
      kind |= d === 39 /* ' */ ? JOINED_APOSTROPHE : ASCII_CLASS[d]!;
      hash = Math.imul(hash ^ d, SPELLING_HASH_PRIME);
    }
    sink.token(text, i, end, kind, hash);
    i = end;
  }
}
