/**
 * The merge policy is a pure function (tantivy's `merge_policy.rs`): given the live
 * generations and those already being merged, it says which merges to run next. It never
 * touches files, so it is tested on its own with plain numbers.
 */
export interface MergePolicyOptions {
  /** A tier holding this many generations is merged. */
  mergeFactor: number;
  /** Most generations merged at once. */
  maxMergeAtOnce: number;
  /** Generations below this many live documents all count as the smallest tier. */
  floorDocs: number;
  /** A generation with at least this percentage of killed documents is rewritten on its own. */
  killedPercentageForReindex: number;
  /** The index refuses commits at this many generations; the policy merges harder well before. */
  maxGenerations: number;
}

export const DEFAULT_MERGE_POLICY: MergePolicyOptions = {
  mergeFactor: 10,
  maxMergeAtOnce: 10,
  floorDocs: 1000,
  killedPercentageForReindex: 50,
  maxGenerations: 64,
};

export interface MergeCandidate {
  generation: number;
  docCount: number;
  killedCount: number;
}

/** Each merge is a list of generation numbers; no generation appears twice. */
export function findMerges(
  generations: readonly MergeCandidate[],
  merging: ReadonlySet<number>,
  options: MergePolicyOptions,
): number[][] {
  const merges: number[][] = [];
  const taken = new Set(merging);
  const eligible = generations.filter((g) => !taken.has(g.generation) && g.docCount > 0);

  // Mostly-killed generations first: rewriting them frees the most memory and disk.
  for (const g of eligible) {
    if ((100 * g.killedCount) / g.docCount >= options.killedPercentageForReindex) {
      merges.push([g.generation]);
      taken.add(g.generation);
    }
  }

  const live = (g: MergeCandidate) => g.docCount - g.killedCount;
  const tierOf = (g: MergeCandidate) =>
    Math.floor(
      Math.log(Math.max(live(g), options.floorDocs) / options.floorDocs) / Math.log(options.mergeFactor) +
        1e-9,
    );
  const tiers = new Map<number, MergeCandidate[]>();
  for (const g of eligible) {
    if (taken.has(g.generation)) continue;
    const tier = tierOf(g);
    const list = tiers.get(tier);
    if (list === undefined) tiers.set(tier, [g]);
    else list.push(g);
  }
  for (const tier of [...tiers.keys()].sort((a, b) => a - b)) {
    const list = tiers.get(tier)!.sort((a, b) => live(a) - live(b));
    while (list.length >= options.mergeFactor) {
      const merge = list.splice(0, options.maxMergeAtOnce).map((g) => g.generation);
      merges.push(merge);
      for (const generation of merge) taken.add(generation);
    }
  }

  // Under pressure (many generations, e.g. after merges failed for a while): merge the
  // smallest ones regardless of tiers, so the limit is not reached.
  const remaining = eligible.filter((g) => !taken.has(g.generation)).sort((a, b) => live(a) - live(b));
  const pressureAt = Math.max(2, Math.floor(options.maxGenerations * 0.5));
  if (
    generations.length - merges.reduce((n, m) => n + m.length - 1, 0) > pressureAt &&
    remaining.length >= 2
  ) {
    merges.push(remaining.slice(0, options.maxMergeAtOnce).map((g) => g.generation));
  }
  return merges;
}
