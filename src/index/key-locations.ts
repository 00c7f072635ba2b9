import { NO_MORE_DOCS } from './generation-view.js';
import type { LiveGeneration } from './generation/live-generation.js';
import type { TermInfo } from './generation/term-dictionary-reader.js';

/** Where a key's live document is: generation · 2^31 + docId (one number, no object per key). */
export type Location = number;
const DOC_BITS = 2 ** 31;

/** The location of a document. */
export const locationOf = (generation: number, docId: number): Location => generation * DOC_BITS + docId;
/** The generation of a location. */
export const generationOfLocation = (location: Location): number => Math.floor(location / DOC_BITS);
/** The docId of a location. */
export const docOfLocation = (location: Location): number => location % DOC_BITS;

/** Time one slice of a background build may hold the event loop, in ms. */
const SLICE_MS = 5;
/** Keys added between two looks at the clock. */
const KEYS_PER_CLOCK_LOOK = 256;

/**
 * Key → location of its live document, over the published manifest: what a commit needs to
 * kill the document a put replaces or a delete removes, without a dictionary lookup per key.
 *
 * Searches never read it, so at open it is built later ({@link addLater}), in the background
 * once the collection runs ({@link buildInBackground}): on the RFC collection (209,738 keys)
 * the build takes ~0.4 s of the event loop, which the first search after a restart waited
 * for. Every method finishes a build still going first (at once, in one piece), so a commit
 * or a merge sees every key whenever it comes.
 */
export class KeyLocations {
  private readonly keys = new Map<string, Location>();
  /** Generations still to add, oldest first; the first one may be part done (`terms`). */
  private readonly pending: { generation: LiveGeneration; terms: Iterator<[string, TermInfo]> }[] = [];
  private slice: NodeJS.Immediate | undefined;

  get(key: string): Location | undefined {
    this.finishBuild();
    return this.keys.get(key);
  }

  set(key: string, location: Location): void {
    this.finishBuild();
    this.keys.set(key, location);
  }

  delete(key: string): void {
    this.finishBuild();
    this.keys.delete(key);
  }

  get size(): number {
    this.finishBuild();
    return this.keys.size;
  }

  /** Whether a background build is still going. */
  get building(): boolean {
    return this.pending.length > 0;
  }

  /**
   * Adds the live documents of these generations (read from their `$key` postings) when the
   * keys are first asked for, or in the background once {@link buildInBackground} is called.
   * The generations' readers must stay open until the build ends or is {@link stopBuild stopped}.
   */
  addLater(generations: readonly LiveGeneration[]): void {
    for (const generation of generations)
      this.pending.push({ generation, terms: generation.reader.terms('$key')[Symbol.iterator]() });
  }

  /** Builds what {@link addLater} left, in slices of at most {@link SLICE_MS} on the event loop. */
  buildInBackground(): void {
    this.scheduleSlice();
  }

  /** Drops what a background build had left to do (the readers are closing). */
  stopBuild(): void {
    this.pending.length = 0;
    if (this.slice !== undefined) clearImmediate(this.slice);
    this.slice = undefined;
  }

  /**
   * Moves the keys of merged generations to the merge's result: `docMaps` maps each input
   * generation's docIds to the result's (killed documents map nowhere and keep no key).
   */
  remap(docMaps: Map<number, ArrayLike<number>>, into: number): void {
    this.finishBuild();
    for (const [key, location] of this.keys) {
      const map = docMaps.get(generationOfLocation(location));
      if (map !== undefined) this.keys.set(key, locationOf(into, map[docOfLocation(location)]!));
    }
  }

  /** Ends a background build still going, at once (the generations it reads may be closed next). */
  finishBuild(): void {
    if (this.pending.length === 0) return;
    this.buildUntil(Infinity);
    this.stopBuild();
  }

  private scheduleSlice(): void {
    if (this.slice !== undefined || this.pending.length === 0) return;
    this.slice = setImmediate(() => {
      this.slice = undefined;
      this.buildUntil(performance.now() + SLICE_MS);
      this.scheduleSlice();
    });
    // A build left undone must not keep a process alive that has nothing else to do.
    this.slice.unref();
  }

  /** Adds pending generations' keys until `deadline` (`performance.now()`) or the end. */
  private buildUntil(deadline: number): void {
    while (this.pending.length > 0) {
      const { generation, terms } = this.pending[0]!;
      if (!this.addTerms(generation, terms, deadline)) return;
      this.pending.shift();
    }
  }

  /** Adds the keys `terms` has left of `generation`; false when `deadline` came first. */
  private addTerms(
    generation: LiveGeneration,
    terms: Iterator<[string, TermInfo]>,
    deadline: number,
  ): boolean {
    for (let added = 1; ; added++) {
      const next = terms.next();
      if (next.done === true) return true;
      const [key, info] = next.value;
      const postings = generation.reader.postingsOf(info, false);
      for (let doc = postings.nextDoc(); doc !== NO_MORE_DOCS; doc = postings.nextDoc()) {
        if (!generation.isKilled(doc)) this.keys.set(key, locationOf(generation.generation, doc));
      }
      if (added % KEYS_PER_CLOCK_LOOK === 0 && performance.now() >= deadline) return false;
    }
  }
}
