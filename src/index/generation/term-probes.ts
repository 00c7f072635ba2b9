import { termHash } from './term-filter.js';

const encoder = new TextEncoder();

/**
 * Terms to look up together in one pass over each generation's dictionary ("did you mean"
 * probing every edit of a word): distinct, in the dictionary's order (UTF-16 code units), each
 * encoded once as UTF-8 for all the generations it is looked up in.
 */
export class TermProbes {
  /** The distinct terms, sorted. */
  readonly terms: readonly string[];
  /** Where each of {@link terms} is in the input: `terms[slotOf[i]]` is the input's i-th term. */
  readonly slotOf: Int32Array;
  /** The UTF-8 bytes of all terms, one after another: term t is `bytes[starts[t], starts[t + 1])`. */
  readonly bytes: Uint8Array;
  readonly starts: Int32Array;
  /**
   * 1 where a term's UTF-8 bytes order it among all terms as UTF-16 does (it has no character
   * at or above U+E000, where the two orders part); 0 where they may not, or where UTF-8 cannot
   * hold the term (a lone surrogate): such a term is looked up alone.
   */
  readonly inByteOrder: Uint8Array;
  /** {@link termHash} of each term's bytes (for the generations' term filters). */
  readonly hashes: Int32Array;

  constructor(input: readonly string[]) {
    const order = Array.from(input.keys()).sort((a, b) =>
      input[a]! < input[b]! ? -1 : input[a]! > input[b]! ? 1 : 0,
    );
    const terms: string[] = [];
    const slotOf = new Int32Array(input.length);
    let room = 0;
    for (const i of order) {
      const term = input[i]!;
      if (terms.length === 0 || terms[terms.length - 1] !== term) {
        terms.push(term);
        room += term.length * 3;
      }
      slotOf[i] = terms.length - 1;
    }
    const bytes = new Uint8Array(room);
    const starts = new Int32Array(terms.length + 1);
    const inByteOrder = new Uint8Array(terms.length);
    const hashes = new Int32Array(terms.length);
    let at = 0;
    terms.forEach((term, t) => {
      starts[t] = at;
      at += encoder.encodeInto(term, bytes.subarray(at)).written;
      hashes[t] = termHash(bytes, starts[t]!, at);
      if (hasLoneSurrogate(term)) return;
      // 0xee leads U+E000..U+EFFF, 0xef up to U+FFFF, 0xf0 and above past U+FFFF.
      for (let b = starts[t]!; b < at; b++) if (bytes[b]! >= 0xee) return;
      inByteOrder[t] = 1;
    });
    starts[terms.length] = at;
    this.terms = terms;
    this.slotOf = slotOf;
    this.bytes = bytes;
    this.starts = starts;
    this.inByteOrder = inByteOrder;
    this.hashes = hashes;
  }
}

/** Whether `text` holds a surrogate that is not half of a pair (`String.isWellFormed`, ES2024). */
export function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if ((unit & 0xf800) !== 0xd800) continue;
    if (unit >= 0xdc00) return true;
    const next = text.charCodeAt(i + 1);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
    i++;
  }
  return false;
}
