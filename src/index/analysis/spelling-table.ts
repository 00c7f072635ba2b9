import type { Analyzer } from './analyzer.js';

/** Tokens longer than this are not kept: rare, and mostly dropped as too long anyway. */
const MAX_SPELLING_LENGTH = 64;
/** Spellings a table keeps at most (about 30 MB of table and terms); on RFC text the most frequent 250,000 cover 99.4% of tokens. */
const MAX_SPELLINGS = 250_000;
/** Slots of a new table (a power of two); the table doubles to stay at most half full. */
const FIRST_SLOTS = 1 << 12;

/** One table per analyzer and thread, replaced by a new one when it is full (see {@link SpellingTable.for}). */
const current = new WeakMap<Analyzer, SpellingTable>();

/**
 * Spellings of tokens → their terms, for indexing: an open-addressing hash table keyed by the
 * characters a token has in the text (`Protocol`, `protocol` and `PROTOCOL` are three
 * spellings of one term). A token whose spelling is known costs a hash over its characters
 * and one comparison: no string is built, no normalisation runs. Only a new spelling asks the
 * analyzer for its term (`termOfToken`, which depends only on the spelling).
 *
 * The table lives across indexing buffers (words seen in the previous buffers are the words
 * of the next ones) and stops growing at `maxSpellings`: tokens it does not know then
 * take the slow path, and the next buffer starts a new table.
 */
export class SpellingTable {
  /** Term of each spelling (null: the analyzer drops the token), by spelling id. */
  readonly terms: (string | null)[] = [];
  // Slots: two ints each (hash, spelling id + 1; 0 = empty).
  private slots = new Int32Array(2 * FIRST_SLOTS);
  private slotMask = FIRST_SLOTS - 1;
  private starts = new Int32Array(1024);
  private lengths = new Int32Array(1024);
  /** Characters of every spelling, one after the other. */
  private chars = new Uint16Array(8192);
  private charsUsed = 0;

  /** Prefer {@link SpellingTable.for}: one table per analyzer and thread is shared by every buffer. */
  constructor(
    private readonly analyzer: Analyzer,
    private readonly maxSpellings = MAX_SPELLINGS,
  ) {}

  /**
   * The table of `analyzer` on this thread; a full table is replaced by a new one (buffers
   * that use the old one keep it: it never changes for them, it only stops growing).
   */
  static for(analyzer: Analyzer): SpellingTable {
    let table = current.get(analyzer);
    if (table === undefined || table.full) {
      table = new SpellingTable(analyzer);
      current.set(analyzer, table);
    }
    return table;
  }

  get full(): boolean {
    return this.terms.length >= this.maxSpellings;
  }

  /**
   * The spelling id of the token `text[start, end)` (see {@link Analyzer.termOfToken} for
   * `kind`), adding the spelling when it is new; -1 when the table does not hold it and cannot
   * take it (too long, or the table is full): the caller asks the analyzer then.
   */
  lookup(text: string, start: number, end: number, kind: number): number {
    const length = end - start;
    if (length > MAX_SPELLING_LENGTH) return -1;
    // FNV-1a over the UTF-16 units.
    let hash = 0x811c9dc5 | 0;
    for (let j = start; j < end; j++) hash = Math.imul(hash ^ text.charCodeAt(j), 0x01000193);
    const slots = this.slots;
    const mask = this.slotMask;
    let slot = (hash ^ (hash >>> 15)) & mask;
    for (;;) {
      const at = slot << 1;
      const id = slots[at + 1]! - 1;
      if (id < 0) return this.add(text, start, end, kind, hash, at);
      if (slots[at] === hash && this.lengths[id] === length && this.same(text, start, length, this.starts[id]!)) return id;
      slot = (slot + 1) & mask;
    }
  }

  private same(text: string, start: number, length: number, at: number): boolean {
    const chars = this.chars;
    for (let j = 0; j < length; j++) if (chars[at + j] !== text.charCodeAt(start + j)) return false;
    return true;
  }

  /** Adds a new spelling in the free slot at `at`; returns its id, or -1 when the table is full. */
  private add(text: string, start: number, end: number, kind: number, hash: number, at: number): number {
    const id = this.terms.length;
    if (id >= this.maxSpellings) return -1;
    const length = end - start;
    this.terms.push(this.analyzer.termOfToken(text, start, end, kind));
    if (id === this.lengths.length) {
      this.starts = grown(this.starts);
      this.lengths = grown(this.lengths);
    }
    if (this.charsUsed + length > this.chars.length) {
      const chars = new Uint16Array(2 * (this.charsUsed + length));
      chars.set(this.chars.subarray(0, this.charsUsed));
      this.chars = chars;
    }
    const chars = this.chars;
    let c = this.charsUsed;
    this.starts[id] = c;
    this.lengths[id] = length;
    for (let j = start; j < end; j++) chars[c++] = text.charCodeAt(j);
    this.charsUsed = c;
    if (2 * this.terms.length > this.slotMask + 1) this.rehash();
    else {
      this.slots[at] = hash;
      this.slots[at + 1] = id + 1;
    }
    return id;
  }

  /** Doubles the slots and re-inserts every spelling. */
  private rehash(): void {
    const capacity = 2 * (this.slotMask + 1);
    const slots = new Int32Array(2 * capacity);
    const mask = capacity - 1;
    const chars = this.chars;
    for (let id = 0; id < this.terms.length; id++) {
      const from = this.starts[id]!;
      const to = from + this.lengths[id]!;
      let hash = 0x811c9dc5 | 0;
      for (let j = from; j < to; j++) hash = Math.imul(hash ^ chars[j]!, 0x01000193);
      let slot = (hash ^ (hash >>> 15)) & mask;
      while (slots[(slot << 1) + 1] !== 0) slot = (slot + 1) & mask;
      slots[slot << 1] = hash;
      slots[(slot << 1) + 1] = id + 1;
    }
    this.slots = slots;
    this.slotMask = mask;
  }
}

function grown(array: Int32Array): Int32Array<ArrayBuffer> {
  const next = new Int32Array(array.length * 2);
  next.set(array);
  return next;
}
