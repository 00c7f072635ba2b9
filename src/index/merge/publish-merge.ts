import type { GenerationMeta } from '../generation/generation-files.js';
import { KilledBits } from '../generation/killed-bits.js';
import type { LiveGeneration } from '../generation/live-generation.js';
import { computeDocMaps } from '../generation/merge-generations.js';
import type { KilledUpdate, LiveManifest } from '../live-manifest.js';
import {
  ManifestMaybePublishedError,
  publishManifest,
  type Manifest,
  type ManifestGeneration,
} from '../manifest.js';

/**
 * Publishes a merge result (run on the serial updater, like a commit): the merged generation
 * takes the place of its first input in a new manifest, the other inputs leave it, and the
 * keys of merged documents move to the result. The merge read the inputs as they were when it
 * was chosen; documents that commits killed while it ran are killed in the result too, so no
 * deleted or replaced document comes back. A result whose every document was killed meanwhile
 * is not published; its files are deleted.
 *
 * On failure the live manifest stays as it was and the killed bits written for the result are
 * deleted (unless the new manifest may have been published); the caller deletes the result.
 *
 * @param sources the merged generations, as the merge read them
 * @param killedAtStart their killed bits then (the documents the merge dropped)
 * @param meta the merged generation, written (not yet synced)
 */
export async function publishMerge(
  state: LiveManifest,
  sources: LiveGeneration[],
  killedAtStart: (KilledBits | null)[],
  meta: GenerationMeta,
): Promise<void> {
  const inputSet = new Set(sources.map((s) => s.generation));
  const docMaps = computeDocMaps(sources.map((s, i) => ({ maxDoc: s.maxDoc, killed: killedAtStart[i]! })));
  // Documents killed by commits that ran during the merge are killed in the result too.
  const carried: number[] = [];
  sources.forEach((source, i) => {
    const live = state.liveGeneration(source.generation);
    const before = killedAtStart[i]!;
    const map = docMaps[i]!;
    // A source no longer live was dropped by a commit that killed its last document (the
    // commit decided that before this merge was chosen from the manifest it replaced).
    const killedNow = live === undefined ? () => true : (doc: number) => live.killed?.has(doc) === true;
    for (let doc = 0; doc < source.maxDoc; doc++) {
      if (killedNow(doc) && (before === null || !before.has(doc))) carried.push(map[doc]!);
    }
  });
  const next: Manifest = { ...state.manifest, number: state.manifest.number + 1 };
  let killedEntry: KilledUpdate | undefined;
  const written: string[] = [];
  let releaseReader = () => {};
  try {
    if (carried.length > 0) {
      const bits = new KilledBits(meta.docCount).with(carried);
      const file = state.writeKilled(next, meta.generation, bits);
      written.push(file);
      killedEntry = { bits, file };
    }
    const merged: ManifestGeneration = {
      generation: meta.generation,
      docCount: meta.docCount,
      killedCount: killedEntry?.bits.count ?? 0,
      killedFile: killedEntry?.file ?? null,
      files: meta.files,
      sizeBytes: meta.sizeBytes,
    };
    const generations: ManifestGeneration[] = [];
    let placed = false;
    for (const g of state.manifest.generations) {
      if (!inputSet.has(g.generation)) generations.push(g);
      else if (!placed) {
        placed = true;
        if (merged.docCount > merged.killedCount) generations.push(merged);
      }
    }
    next.generations = generations;
    next.nextGeneration = state.nextGenerationNumber;
    const needed = generations.includes(merged);
    if (needed) releaseReader = state.openReaders([meta.generation]);
    await publishManifest(state.dir, next, written);
    // Everything merged was killed meanwhile: the result is not needed.
    if (!needed) state.files.deleteUnreferencedGeneration(meta.generation);
  } catch (error) {
    releaseReader();
    if (!(error instanceof ManifestMaybePublishedError))
      for (const file of written) state.files.deleteQuietly(file);
    throw error;
  }
  // Keys of merged documents now live in the merged generation.
  state.keys.remap(new Map(sources.map((s, i) => [s.generation, docMaps[i]!])), meta.generation);
  state.install(
    next,
    new Map<number, KilledUpdate>(killedEntry === undefined ? [] : [[meta.generation, killedEntry]]),
  );
  releaseReader();
}
