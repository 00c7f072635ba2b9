import type { FreqRatioImpacts, PostingsIterator } from '../index/generation-view.js';

/** The ratio data is part of the generation contract (see `generation-view.ts`). */
export type { FreqRatioImpacts };

/** The iterator's ratio data, or null when it does not offer it. */
export function freqRatioImpacts(it: PostingsIterator): (PostingsIterator & FreqRatioImpacts) | null {
  const x = it as PostingsIterator & Partial<FreqRatioImpacts>;
  return typeof x.blockMaxFreqRatio === 'function' && typeof x.maxFreqRatio === 'number'
    ? (x as PostingsIterator & FreqRatioImpacts)
    : null;
}
