/**
 * Character classes of the tokenizer. The scanner in `create-analyzer.ts` reads text one
 * UTF-16 unit at a time; ASCII is classified by a 128-entry table and everything else by a
 * 64 Ki-entry table that is filled lazily from Unicode property regexes (each BMP code
 * point is classified at most once per process), so the per-character cost stays a table
 * read while the rules remain those of the Unicode character database.
 *
 * Classes are bit flags so a token can OR together what it has seen.
 */

/** A letter (`\p{L}`, plus numbers that are not decimal digits: `²`, `Ⅻ`, `½`). */
export const LETTER = 1;
/** A decimal digit (`\p{Nd}`, any script). */
export const DIGIT = 2;
/** An ASCII upper-case letter (always together with LETTER): the ASCII path lower-cases only then. */
export const UPPER = 4;
/**
 * A combining mark (`\p{M}`) or an invisible format character that belongs inside words
 * (soft hyphen, ZWJ, ZWNJ, word joiner, BOM): continues a token, never starts one.
 */
export const MARK = 8;
/**
 * A letter, number or mark of a script written without spaces between words (Han, Hiragana,
 * Katakana, Thai, Lao, Khmer, Myanmar): runs of these go to `Intl.Segmenter`.
 */
export const NO_SPACE = 16;
/** `’` (U+2019), the typographic apostrophe; the ASCII `'` is recognised by its code. */
export const APOSTROPHE = 32;
/** Set on the class of an astral code point: the character takes two UTF-16 units. */
export const WIDE = 64;
/** Anything else: spaces, punctuation, symbols, emoji, unpaired surrogates. */
export const OTHER = 0;

const UNKNOWN = 255;
/** Marks a high surrogate in the BMP table: the class depends on the code point it starts. */
const HIGH_SURROGATE = 254;

/** Classes of the 128 ASCII characters: letters, digits, and OTHER for everything else. */
export const ASCII_CLASS: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let c = 48; c <= 57; c++) table[c] = DIGIT;
  for (let c = 65; c <= 90; c++) table[c] = LETTER | UPPER;
  for (let c = 97; c <= 122; c++) table[c] = LETTER;
  return table;
})();

const bmpClass = new Uint8Array(65536).fill(UNKNOWN);
bmpClass.set(ASCII_CLASS, 0);
for (let c = 0xd800; c <= 0xdbff; c++) bmpClass[c] = HIGH_SURROGATE;
// Low surrogates only reach the table when unpaired.
for (let c = 0xdc00; c <= 0xdfff; c++) bmpClass[c] = OTHER;
const astralClass = new Map<number, number>();

const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;
const DECIMAL_DIGIT = /^\p{Nd}$/u;
const COMBINING_MARK = /^\p{M}$/u;
// Script_Extensions rather than Script, so that the Katakana-Hiragana prolonged sound mark
// (Script=Common) and iteration marks stay inside the run they belong to.
const NO_SPACE_SCRIPT =
  /^[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]$/u;

function computeClass(cp: number): number {
  if (cp === 0x2019) return APOSTROPHE;
  if (cp === 0xad || cp === 0x200c || cp === 0x200d || cp === 0x2060 || cp === 0xfeff) return MARK;
  const ch = String.fromCodePoint(cp);
  if (!WORD_CHAR.test(ch)) return OTHER;
  if (NO_SPACE_SCRIPT.test(ch)) return NO_SPACE;
  if (COMBINING_MARK.test(ch)) return MARK;
  return DECIMAL_DIGIT.test(ch) ? DIGIT : LETTER;
}

/**
 * The class of the character that starts at `text[i]`, whose UTF-16 unit `c` (≥ 128) the
 * caller already read. The result has WIDE set when the character is a surrogate pair.
 */
export function nonAsciiClass(text: string, i: number, c: number): number {
  // A code unit is below 65536, the table's length; past it a code point is computed.
  const k = bmpClass[c] ?? UNKNOWN;
  if (k < HIGH_SURROGATE) return k;
  if (k === UNKNOWN) {
    const computed = computeClass(c);
    bmpClass[c] = computed;
    return computed;
  }
  const low = text.charCodeAt(i + 1);
  // Written so that NaN (a high surrogate at the end of the text) is unpaired too.
  if (!(low >= 0xdc00 && low <= 0xdfff)) return OTHER;
  const cp = ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  let astral = astralClass.get(cp);
  if (astral === undefined) {
    astral = computeClass(cp) | WIDE;
    // Bounded: astral text is mostly emoji and rare Han, but an adversarial document could
    // walk the whole plane; the map is a cache, so forgetting is safe.
    if (astralClass.size >= 65536) astralClass.clear();
    astralClass.set(cp, astral);
  }
  return astral;
}
