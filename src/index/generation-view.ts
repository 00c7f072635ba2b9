import type { TermProbes } from './generation/term-probes.js';

/**
 * What one generation offers to the query executor (`src/query/`). The on-disk reader
 * (`generation/generation-reader.ts`) implements it; tests may implement it in memory.
 *
 * docIds are dense per generation: 0 .. maxDoc-1. Killed documents stay in postings until a
 * merge drops them; the executor must skip them with {@link GenerationView.isKilled}.
 */
export const NO_MORE_DOCS = 2147483647;

export interface PostingsIterator {
  /** Documents in this list (killed ones included). */
  readonly docFreq: number;
  /** Largest term frequency in the whole list. */
  readonly maxFreq: number;
  /** Smallest field length among documents of the whole list. */
  readonly minLength: number;
  /** Current document: -1 before the first move, NO_MORE_DOCS after the last. */
  docId(): number;
  nextDoc(): number;
  /** Moves to the first document >= target; target must be > docId(). */
  advance(target: number): number;
  /** Term frequency in the current document. */
  freq(): number;
  /**
   * Positions in the current document, ascending. Only for iterators opened with positions.
   * May be called more than once per document; the array is valid until the iterator moves.
   */
  positions(): Int32Array;
  /**
   * Block-max support. Makes the block containing `target` (or the first block after it)
   * the current *shallow* block without moving docId(); returns the last docId of that block
   * (NO_MORE_DOCS when there is none). `target` must not decrease between calls.
   */
  advanceShallow(target: number): number;
  /** Largest freq among documents of the current shallow block. */
  blockMaxFreq(): number;
  /** Smallest field length among documents of the current shallow block. */
  blockMinLength(): number;
}

/**
 * Optional block-max data beyond {@link PostingsIterator}: the largest `freq / field length`
 * of the documents. `blockMaxFreq` and `blockMinLength` usually come from different
 * documents, and together they overstate a block's best score for common terms; the ratio
 * caps frequency and shortness together. Values round up (they are upper bounds).
 * Contract: freq <= field length always holds (lengths count indexed tokens).
 */
export interface FreqRatioImpacts {
  /** Largest freq / field length over the whole list (Infinity: unknown). */
  readonly maxFreqRatio: number;
  /** Largest freq / field length among documents of the current shallow block (Infinity: unknown). */
  blockMaxFreqRatio(): number;
}

/**
 * Optional on postings iterators: the current block's bounds and a scan through it by
 * frequency. A phrase whose results are full dismisses most documents of its rarest term on
 * that term's frequency alone (see `PhraseScorer`); within one block the frequency it needs
 * is the same for every document, so the scan tests an integer instead of a score.
 */
export interface BlockFreqScan {
  /** Last docId of the block holding the current document (a bound for a list's last block). */
  currentBlockLastDoc(): number;
  /** Smallest field length among documents of that block. */
  currentBlockMinLength(): number;
  /** Largest freq / field length in that block (Infinity: unknown). */
  currentBlockMaxFreqRatio(): number;
  /**
   * The next document of the current block whose freq is at least `minFreq`. Past the
   * block's last one, the first document of the next block whatever its freq (the needed
   * frequency may differ there), or NO_MORE_DOCS.
   */
  nextDocInBlockWithFreq(minFreq: number): number;
}

export interface GenerationView {
  /** Generation number (unique, increasing with age: a higher number is newer). */
  readonly generation: number;
  readonly maxDoc: number;
  /** True when the document was deleted or replaced after this generation was written. */
  isKilled(docId: number): boolean;
  /** Number of killed documents. */
  readonly killedCount: number;
  /** Per-document token counts of a field (0 where absent); null when no document has it. */
  fieldLengths(field: string): Uint32Array | null;
  /** Sum of the field's lengths over all documents, and how many documents have the field. */
  fieldStats(field: string): { sumLength: number; docCount: number };
  docFreq(field: string, term: string): number;
  /**
   * {@link docFreq} of a term asked once and most likely absent ("did you mean" probing the
   * edits of a word): read without being remembered, so it neither costs a cache entry nor
   * pushes out the terms queries ask again.
   */
  probeDocFreq(field: string, term: string): number;
  /**
   * Adds the {@link probeDocFreq} of each of `probes`' terms to `out` (at the term's index):
   * many terms asked once, looked up together (a word's edits: one pass over the dictionary).
   */
  probeDocFreqs(field: string, probes: TermProbes, out: Int32Array): void;
  /** Null when the term does not occur in the field. */
  postings(field: string, term: string, withPositions: boolean): PostingsIterator | null;
  /** Terms of the field starting with `prefix`, in term order, at most `limit`. */
  termsWithPrefix(field: string, prefix: string, limit: number): string[];
  /** Values of a numeric class per document (NaN where absent); null when absent everywhere. */
  numericValues(field: string): Float64Array | null;
}
