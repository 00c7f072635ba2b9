/**
 * Normalisation of a token that is not plain ASCII (the ASCII path in `create-analyzer.ts`
 * only needs `toLowerCase`). Whatever the options, the result is in a canonical Unicode form,
 * so text typed in NFC, in NFD or with compatibility characters (full-width Latin, `ﬁ`
 * ligatures, half-width katakana) gives the same term on the index and on the query side.
 *
 * Case folding is `toLowerCase` plus the full-folding cases that matter for search and cost
 * nothing: `ß`/`ẞ` → `ss`, final `ς` → `σ`, and `İ` → `i` (locale-independent, so
 * `İstanbul`, `ISTANBUL` and `istanbul` meet).
 *
 * Diacritic folding strips the combining marks that are diacritics (the Combining Diacritical
 * Marks blocks, Hebrew points, Arabic harakat) after an NFKD decomposition, maps the Latin
 * letters whose stroke or dot is not a combining mark (`ø`, `ł`, `đ`, `ħ`, `ŧ`, dotless `ı`),
 * then recomposes (NFC). It deliberately does not strip every `\p{M}`: Indic vowel signs,
 * Thai vowels and the kana voicing marks are combining marks too, and removing them turns
 * one word into another.
 */

const DIACRITIC_MARKS =
  /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u064b-\u065f\u0670]/g;
const STROKED_LETTERS = /[øØłŁđĐħĦŧŦı]/g;
const STROKED_BASE: Record<string, string> = {
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ħ: 'h',
  Ħ: 'H',
  ŧ: 't',
  Ŧ: 'T',
  ı: 'i',
};
const FULL_FOLD = /[ßς]/g;
const FULL_FOLD_TO: Record<string, string> = { ß: 'ss', ς: 'σ' };
/**
 * What a term may contain: letters, numbers, marks, and the `.` of `3.14`. Everything else
 * is removed: ignorable format characters, punctuation produced by a compatibility
 * decomposition (`ŀ` → `l·`), and the variation selectors, which are marks that only choose
 * a glyph (the U+FE0F of an emoji keycap `1️⃣`).
 */
const NOT_TERM_CHAR = /[^\p{L}\p{N}\p{M}.]|[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;

/** Folds a non-ASCII token (apostrophes already handled). May return ''. */
export function foldTerm(token: string, caseFold: boolean, foldDiacritics: boolean): string {
  let s = token.normalize(foldDiacritics ? 'NFKD' : 'NFKC');
  if (caseFold) {
    // After NFKD `İ` is `I` + U+0307 and the dot goes with the diacritics; after NFKC it is
    // one character, which toLowerCase would turn into `i` + U+0307.
    if (!foldDiacritics && s.includes('İ')) s = s.replaceAll('İ', 'I');
    s = s.toLowerCase().replace(FULL_FOLD, (ch) => FULL_FOLD_TO[ch] ?? ch);
  }
  if (foldDiacritics) {
    s = s
      .replace(DIACRITIC_MARKS, '')
      .replace(STROKED_LETTERS, (ch) => STROKED_BASE[ch] ?? ch)
      .normalize('NFC');
  }
  return s.replace(NOT_TERM_CHAR, '');
}

const POSSESSIVE = /['’][sS]$/;
const APOSTROPHES = /['’]/g;

/**
 * Removes the apostrophes of a token that the tokenizer joined (`don't` → `dont`,
 * `O’Reilly` → `OReilly`), after dropping an English possessive `'s` (`IETF's` → `IETF`), as
 * Lucene's EnglishPossessiveFilter does: both spellings of a word then meet in one term.
 */
export function stripApostrophes(token: string): string {
  return token.replace(POSSESSIVE, '').replace(APOSTROPHES, '');
}
