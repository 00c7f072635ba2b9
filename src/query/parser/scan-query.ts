/**
 * The scanner of the query language: user text → a flat list of tokens (words, phrases,
 * brackets) with their operator and class. It never fails: whatever cannot be read as syntax
 * is read as text, so a malformed query degrades to the words it contains.
 *
 * Rules, in the order they apply:
 * 1. Quotes first: `"`, `“`, `”` and `„` (typographic quotes come from phones and word
 *    processors) are paired left to right, whatever they are; an odd last one is ignored.
 *    Nothing inside a phrase is syntax (`"a [b] -c"` is the phrase a b c).
 * 2. Brackets outside phrases are matched like parentheses; an unmatched `[` or `]` is
 *    ignored. Nested brackets are matched here and flattened by the parser.
 * 3. The rest is cut at white space, phrases and brackets into chunks. A chunk may start
 *    with one operator (`+` required, `-` excluded, `!` negation, `|` scoped) and then a
 *    class (`t:`, 1 to 64 ASCII letters or digits, as in metamap.cfg). A chunk made only of
 *    an operator and/or `class:` applies to a phrase or bracket that follows it immediately
 *    (`+"a b"`, `t:[a b]`); otherwise it is text (`t:` alone is the word `t`, a lone `+`
 *    is nothing).
 * 4. `class:` is not a class when `/`, `\` or `:` follows the colon, so a pasted URL
 *    (`https://example.com/a`) or `C:\path` stays text.
 */

/** `+` must, `-` must not, `!` negation (read as `-`), `|` scoped (a filter, not scored). */
export type QueryOperator = '+' | '-' | '!' | '|';

/** What may precede a word, a phrase or a bracket. */
export interface TokenModifiers {
  op?: QueryOperator;
  field?: string;
}

export type QueryToken =
  /** `text` is the word after its operator and class, as typed (it may end with `*`). */
  | (TokenModifiers & { kind: 'word'; text: string; raw: string })
  /** `text` is what is between the quotes. */
  | (TokenModifiers & { kind: 'phrase'; text: string; raw: string })
  | (TokenModifiers & { kind: 'open'; raw: string })
  | { kind: 'close'; raw: string };

type WordToken = Extract<QueryToken, { kind: 'word' }>;
/** Modifiers waiting for the phrase or bracket they apply to; `raw` is the chunk they came from. */
type PendingModifiers = TokenModifiers & { raw: string };

export interface ScannedQuery {
  tokens: QueryToken[];
  warnings: string[];
}

const NORMAL = 0;
const SPACE = 1;
const QUOTE_OPEN = 2;
const QUOTE_CLOSE = 3;
const BRACKET_OPEN = 4;
const BRACKET_CLOSE = 5;

const WHITE_SPACE = /\s/u;
/** A class prefix: the metamap.cfg rule for class names (ASCII letters and digits, at most 64). */
const CLASS_PREFIX = /^([A-Za-z0-9]{1,64}):/;
/** After `class:` these mean the colon is part of a URL or a path, not a class. */
const NOT_AFTER_CLASS = new Set(['/', '\\', ':']);

function isQuote(c: number): boolean {
  return c === 34 /* " */ || (c >= 0x201c && c <= 0x201e);
}

function isWhiteSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return WHITE_SPACE.test(String.fromCharCode(c));
}

/** Reads `text` into tokens. Brackets in the result are balanced. Never throws. */
export function scanQuery(text: string): ScannedQuery {
  const n = text.length;
  const warnings: string[] = [];
  const role = new Uint8Array(n);
  const quotePartner = new Map<number, number>();

  let openQuote = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (isQuote(c)) {
      if (openQuote < 0) {
        openQuote = i;
      } else {
        role[openQuote] = QUOTE_OPEN;
        role[i] = QUOTE_CLOSE;
        quotePartner.set(openQuote, i);
        openQuote = -1;
      }
    } else if (isWhiteSpace(c)) {
      role[i] = SPACE;
    }
  }
  if (openQuote >= 0) {
    role[openQuote] = SPACE;
    warnings.push('a quote without its closing quote was ignored');
  }

  const stack: number[] = [];
  let unmatchedClose = false;
  for (let i = 0; i < n; i++) {
    if (role[i] === QUOTE_OPEN) {
      i = quotePartner.get(i)!;
      continue;
    }
    const c = text.charCodeAt(i);
    if (c === 91 /* [ */) {
      stack.push(i);
    } else if (c === 93 /* ] */) {
      const open = stack.pop();
      if (open === undefined) {
        role[i] = SPACE;
        unmatchedClose = true;
      } else {
        role[open] = BRACKET_OPEN;
        role[i] = BRACKET_CLOSE;
      }
    }
  }
  for (const open of stack) role[open] = SPACE;
  if (stack.length > 0) warnings.push('a [ without its closing ] was ignored');
  if (unmatchedClose) warnings.push('a ] without its opening [ was ignored');

  const tokens: QueryToken[] = [];
  // Modifiers of a chunk such as `+t:` wait here for the phrase or bracket right after them.
  let pending: PendingModifiers | null = null;
  let i = 0;
  while (i < n) {
    const r = role[i];
    if (r === SPACE) {
      i++;
    } else if (r === QUOTE_OPEN) {
      const close = quotePartner.get(i)!;
      tokens.push({
        kind: 'phrase',
        ...modifiers(pending),
        text: text.slice(i + 1, close),
        raw: (pending?.raw ?? '') + text.slice(i, close + 1),
      });
      pending = null;
      i = close + 1;
    } else if (r === BRACKET_OPEN) {
      tokens.push({ kind: 'open', ...modifiers(pending), raw: (pending?.raw ?? '') + '[' });
      pending = null;
      i++;
    } else if (r === BRACKET_CLOSE) {
      tokens.push({ kind: 'close', raw: ']' });
      i++;
    } else {
      let j = i + 1;
      while (j < n && role[j] === NORMAL) j++;
      const chunk = text.slice(i, j);
      const next = j < n ? role[j] : SPACE;
      const attached = next === QUOTE_OPEN || next === BRACKET_OPEN;
      const token = readChunk(chunk, attached);
      if (token !== null && token.kind === 'word') tokens.push(token);
      else if (token !== null) pending = token.modifiers;
      i = j;
    }
  }
  return { tokens, warnings };
}

function modifiers(pending: TokenModifiers | null): TokenModifiers {
  const out: TokenModifiers = {};
  if (pending?.op !== undefined) out.op = pending.op;
  if (pending?.field !== undefined) out.field = pending.field;
  return out;
}

/**
 * A chunk: a word with its modifiers, modifiers for the phrase or bracket right after it
 * (`attached`), or null when it is a lone operator.
 */
function readChunk(
  chunk: string,
  attached: boolean,
): WordToken | { kind: 'modifiers'; modifiers: PendingModifiers } | null {
  let op: QueryOperator | undefined;
  let rest = chunk;
  const c = chunk.charCodeAt(0);
  if (c === 43 /* + */ || c === 45 /* - */ || c === 33 /* ! */ || c === 124 /* | */) {
    op = chunk[0] as QueryOperator;
    rest = chunk.slice(1);
  }
  let field: string | undefined;
  // Cheap test first: most chunks have no colon.
  const m = rest.includes(':') ? CLASS_PREFIX.exec(rest) : null;
  if (m !== null) {
    const after = rest.slice(m[0].length);
    if (after === '') {
      if (attached)
        return { kind: 'modifiers', modifiers: withModifiers<PendingModifiers>({ raw: chunk }, op, m[1]) };
      // `t:` followed by nothing it could scope: the stray colon degrades to the word.
      rest = m[1];
    } else if (!NOT_AFTER_CLASS.has(after[0])) {
      field = m[1];
      rest = after;
    }
  }
  if (rest === '')
    return attached
      ? { kind: 'modifiers', modifiers: withModifiers<PendingModifiers>({ raw: chunk }, op, undefined) }
      : null;
  return withModifiers<WordToken>({ kind: 'word', text: rest, raw: chunk }, op, field);
}

/** Sets only the modifiers there are (no undefined keys: tests compare with deepEqual). */
function withModifiers<T extends TokenModifiers>(
  token: T,
  op: QueryOperator | undefined,
  field: string | undefined,
): T {
  if (op !== undefined) token.op = op;
  if (field !== undefined) token.field = field;
  return token;
}
