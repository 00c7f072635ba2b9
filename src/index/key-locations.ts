import { NO_MORE_DOCS } from './generation-view.js';
import type { LiveGeneration } from './generation/live-generation.js';

/** Where a key's live document is: generation · 2^31 + docId (one number, no object per key). */
export type Location = number;
const DOC_BITS = 2 ** 31;

/** The location of a document. */
export const locationOf = (generation: number, docId: number): Location => generation * DOC_BITS + docId;
/** The generation of a location. */
export const generationOfLocation = (location: Location): number => Math.floor(location / DOC_BITS);
/** The docId of a location. */
export const docOfLocation = (location: Location): number => location % DOC_BITS;

/**
 * Key → location of its live document, over the published manifest: what a commit needs to
 * kill the document a put replaces or a delete removes, without a dictionary lookup per key.
 */
export class KeyLocations {
  private readonly keys = new Map<string, Location>();

  get(key: string): Location | undefined {
    return this.keys.get(key);
  }

  set(key: string, location: Location): void {
    this.keys.set(key, location);
  }

  delete(key: string): void {
    this.keys.delete(key);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Adds the live documents of a generation (read from its `$key` postings). */
  addGeneration(generation: LiveGeneration): void {
    for (const [key, info] of generation.reader.terms('$key')) {
      const postings = generation.reader.postingsOf(info, false);
      for (let doc = postings.nextDoc(); doc !== NO_MORE_DOCS; doc = postings.nextDoc()) {
        if (!generation.isKilled(doc)) this.keys.set(key, locationOf(generation.generation, doc));
      }
    }
  }

  /**
   * Moves the keys of merged generations to the merge's result: `docMaps` maps each input
   * generation's docIds to the result's (killed documents map nowhere and keep no key).
   */
  remap(docMaps: Map<number, ArrayLike<number>>, into: number): void {
    for (const [key, location] of this.keys) {
      const map = docMaps.get(generationOfLocation(location));
      if (map !== undefined) this.keys.set(key, locationOf(into, map[docOfLocation(location)]!));
    }
  }
}
