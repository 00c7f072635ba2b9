import { spellingHash, type Analyzer } from './analyzer.js';

/** Tokens longer than this are not kept: rare, and mostly dropped as too long anyway. */
const MAX_SPELLING_LENGTH = 64;
/**
 * Spellings a table keeps at most (about 20 MB of slots, characters and terms). On RFC text
 * the most frequent 250,000 spellings are 99.4% of the tokens.
 */
const MAX_SPELLINGS = 250_000;
/** Slots of a new table (a power of two); the table doubles to stay at most half full. */
const FIRST_SLOTS = 1 << 12;
/** Ints per slot: hash, term id + 2 (0: empty slot, 1: a dropped token), first character, length. */
const SLOT = 4;

/** What {@link SpellingTable.lookup} answers for a token the analyzer drops (a stop word, a token too long). */
export const DROPPED = -1;
/** What {@link SpellingTable.lookup} answers for a spelling it does not hold and cannot add. */
export const UNKNOWN = -2;

/** One table per analyzer and thread, replaced by a new one when it is full (see {@link SpellingTable.for}). */
const current = new WeakMap<Analyzer, SpellingTable>();

/**
 * Spellings of tokens → their terms, for indexing: an open-addressing hash table keyed by the
 * characters a token has in the text (`Protocol`, `protocol` and `PROTOCOL` are three
 * spellings of one term). A token whose spelling is known costs a hash over its characters
 * and one comparison: no string is built, no normalisation runs. Only a new spelling asks the
 * analyzer for its term (`termOfToken`, which depends only on the spelling). Terms are
 * numbered (the same term from several spellings has one number), so that an indexing buffer
 * can map a token to its own term ids with an array instead of a Map.
 *
 * The table lives across indexing buffers (words seen in the previous buffers are the words
 * of the next ones) and stops growing at `maxSpellings`: tokens it does not know then take
 * the slow path, and the next buffer starts a new table.
 */
export class SpellingTable {
  /** Terms by id. */
  readonly terms: string[] = [];
  /**
   * Term → id, open addressing: two ints a slot (hash of the term, id + 1). Cheaper than a
   * Map for hundreds of thousands of new terms: no hash computed by the runtime, no entries.
   */
  private termSlots = new Int32Array(2 * FIRST_SLOTS);
  private termMask = FIRST_SLOTS - 1;
  private spellings = 0;
  private slots = new Int32Array(SLOT * FIRST_SLOTS);
  private slotMask = FIRST_SLOTS - 1;
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
    return this.spellings >= this.maxSpellings;
  }

  /** The id of `term` if the table holds it. */
  termId(term: string): number | undefined {
    const hash = spellingHash(term);
    const slots = this.termSlots;
    const mask = this.termMask;
    for (let slot = (hash ^ (hash >>> 15)) & mask; ; slot = (slot + 1) & mask) {
      const id = slots[2 * slot + 1]! - 1;
      if (id < 0) return undefined;
      if (slots[2 * slot] === hash && this.terms[id] === term) return id;
    }
  }

  /** The id of `term`, added when new. */
  private termIdOrAdd(term: string): number {
    const hash = spellingHash(term);
    const slots = this.termSlots;
    const mask = this.termMask;
    let slot = (hash ^ (hash >>> 15)) & mask;
    for (; ; slot = (slot + 1) & mask) {
      const id = slots[2 * slot + 1]! - 1;
      if (id < 0) break;
      if (slots[2 * slot] === hash && this.terms[id] === term) return id;
    }
    const id = this.terms.length;
    this.terms.push(term);
    if (2 * this.terms.length > mask + 1) this.rehashTerms();
    else {
      slots[2 * slot] = hash;
      slots[2 * slot + 1] = id + 1;
    }
    return id;
  }

  /** Doubles the term slots and re-inserts every term. */
  private rehashTerms(): void {
    const capacity = 2 * (this.termMask + 1);
    const slots = new Int32Array(2 * capacity);
    const mask = capacity - 1;
    for (let id = 0; id < this.terms.length; id++) {
      const hash = spellingHash(this.terms[id]!);
      let slot = (hash ^ (hash >>> 15)) & mask;
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = hash;
      slots[2 * slot + 1] = id + 1;
    }
    this.termSlots = slots;
    this.termMask = mask;
  }

  /**
   * The term id of the token `text[start, end)` (see {@link Analyzer.termOfToken} for
   * `kind`; `hash` is its {@link spellingHash}, which the analyzer computes while scanning),
   * adding its spelling when it is new; {@link DROPPED} when the analyzer drops the
   * token; {@link UNKNOWN} when the table does not hold the spelling and cannot take it (too
   * long, or the table is full): the caller asks the analyzer then.
   */
  lookup(text: string, start: number, end: number, kind: number, hash: number): number {
    const length = end - start;
    if (length > MAX_SPELLING_LENGTH) return UNKNOWN;
    const slots = this.slots;
    const mask = this.slotMask;
    let slot = (hash ^ (hash >>> 15)) & mask;
    for (;;) {
      const at = slot * SLOT;
      const entry = slots[at + 1]!;
      if (entry === 0) return this.add(text, start, end, kind, hash, at);
      if (slots[at] === hash && slots[at + 3] === length && this.same(text, start, length, slots[at + 2]!))
        return entry - 2;
      slot = (slot + 1) & mask;
    }
  }

  private same(text: string, start: number, length: number, at: number): boolean {
    const chars = this.chars;
    for (let j = 0; j < length; j++) if (chars[at + j] !== text.charCodeAt(start + j)) return false;
    return true;
  }

  /** Adds a new spelling in the free slot at `at`; returns its term id, DROPPED, or UNKNOWN when the table is full. */
  private add(text: string, start: number, end: number, kind: number, hash: number, at: number): number {
    if (this.spellings >= this.maxSpellings) return UNKNOWN;
    const term = this.analyzer.termOfToken(text, start, end, kind);
    const id = term === null ? DROPPED : this.termIdOrAdd(term);
    const length = end - start;
    if (this.charsUsed + length > this.chars.length) {
      const chars = new Uint16Array(2 * (this.charsUsed + length));
      chars.set(this.chars.subarray(0, this.charsUsed));
      this.chars = chars;
    }
    const chars = this.chars;
    const first = this.charsUsed;
    for (let j = start; j < end; j++) chars[this.charsUsed++] = text.charCodeAt(j);
    this.spellings++;
    let slots = this.slots;
    if (2 * this.spellings > this.slotMask + 1) {
      this.rehash();
      slots = this.slots;
      let slot = (hash ^ (hash >>> 15)) & this.slotMask;
      while (slots[slot * SLOT + 1] !== 0) slot = (slot + 1) & this.slotMask;
      at = slot * SLOT;
    }
    slots[at] = hash;
    slots[at + 1] = id + 2;
    slots[at + 2] = first;
    slots[at + 3] = length;
    return id;
  }

  /** Doubles the slots and moves every spelling (the slots hold all a lookup needs). */
  private rehash(): void {
    const old = this.slots;
    const capacity = 2 * (this.slotMask + 1);
    const slots = new Int32Array(SLOT * capacity);
    const mask = capacity - 1;
    for (let from = 0; from < old.length; from += SLOT) {
      if (old[from + 1] === 0) continue;
      const hash = old[from]!;
      let slot = (hash ^ (hash >>> 15)) & mask;
      while (slots[slot * SLOT + 1] !== 0) slot = (slot + 1) & mask;
      slots.set(old.subarray(from, from + SLOT), slot * SLOT);
    }
    this.slots = slots;
    this.slotMask = mask;
  }
}
