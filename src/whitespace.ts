/**
 * JavaScript's `\s`, one UTF-16 unit at a time: the loops that collapse white space (document
 * filters, summaries) test characters without a regular expression.
 */

/** `\s` outside ASCII: Unicode's Zs, the two line separators and the BOM. */
export function isWideSpace(c: number): boolean {
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Exactly JavaScript's `\s`. */
export function isJsSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return c >= 0xa0 && isWideSpace(c);
}
