import type { PostingsIterator } from '../index/generation-view.js';

/**
 * Optional block-max data a {@link PostingsIterator} may offer beyond the `GenerationView`
 * contract: the largest `freq / field length` of its documents.
 *
 * Why: `blockMaxFreq` and `blockMinLength` usually come from different documents (a long
 * document repeats a common term often, a short one has the smallest length), and their
 * combination overstates the best score of a block a lot for common terms: on real text,
 * block-max pruning of "the" or "protocol" skipped almost nothing with them alone. The ratio
 * says "no document has the term more densely than this", which caps frequency and shortness
 * together (a measured 3-5x fewer documents scored). Lucene solves the same problem by
 * storing every competitive (freq, norm) pair per block.
 *
 * Without it the executor uses ratio 1: a term cannot occur more often than the field has
 * tokens (positions count tokens), so freq <= length always holds.
 */
export interface FreqRatioImpacts {
  /** Largest freq / field length over the whole list (Infinity: unknown). */
  readonly maxFreqRatio: number;
  /** Largest freq / field length among documents of the current shallow block (Infinity: unknown). */
  blockMaxFreqRatio(): number;
}

/** The iterator's ratio data, or null when it does not offer it. */
export function freqRatioImpacts(it: PostingsIterator): (PostingsIterator & FreqRatioImpacts) | null {
  const x = it as PostingsIterator & Partial<FreqRatioImpacts>;
  return typeof x.blockMaxFreqRatio === 'function' && typeof x.maxFreqRatio === 'number'
    ? (x as PostingsIterator & FreqRatioImpacts)
    : null;
}
