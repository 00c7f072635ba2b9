import { KEY_FIELD, type StoredRecord } from './document.js';
import { NO_MORE_DOCS } from './generation-view.js';
import type { LiveGeneration } from './generation/live-generation.js';

/**
 * The generations of one manifest, shared by every searcher opened on it. Reference
 * counted: its files stay on disk until the last holder lets go.
 */
export interface PointInTime {
  readonly manifestNumber: number;
  readonly generations: readonly LiveGeneration[];
  /** Every file this point in time needs (manifest excluded). */
  readonly files: readonly string[];
  references: number;
}

/** A stored document found by key. */
export interface FoundDocument {
  key: string;
  record: StoredRecord;
  generationIndex: number;
  docId: number;
}

/**
 * A point-in-time view of the index: what one manifest contained. Commits and merges that
 * happen later never change what it sees. Call {@link release} when done, so that files
 * of replaced generations can be deleted.
 */
export class Searcher {
  private released = false;

  constructor(
    private readonly pointInTime: PointInTime,
    private readonly onRelease: (pointInTime: PointInTime) => void,
  ) {}

  get manifestNumber(): number {
    return this.pointInTime.manifestNumber;
  }

  /** Oldest first. The query executor runs over these. */
  get generations(): readonly LiveGeneration[] {
    return this.pointInTime.generations;
  }

  /** Live (not killed) documents. */
  get documentCount(): number {
    let count = 0;
    for (const generation of this.generations) count += generation.liveCount;
    return count;
  }

  /** The live document with this key, or null. */
  getDocument(key: string): FoundDocument | null {
    const generations = this.generations;
    for (let g = generations.length - 1; g >= 0; g--) {
      const generation = generations[g]!;
      const postings = generation.postings(KEY_FIELD, key, false);
      if (postings === null) continue;
      for (let doc = postings.nextDoc(); doc !== NO_MORE_DOCS; doc = postings.nextDoc()) {
        if (!generation.isKilled(doc)) {
          return { key, record: generation.reader.stored(doc), generationIndex: g, docId: doc };
        }
      }
    }
    return null;
  }

  /** A document's stored record (with `fields` and `maxChars`, see GenerationReader.stored). */
  stored(
    generationIndex: number,
    docId: number,
    fields?: ReadonlySet<string>,
    maxChars?: ReadonlyMap<string, number>,
  ): StoredRecord {
    const generation = this.generations[generationIndex];
    if (generation === undefined) throw new RangeError(`no generation at index ${generationIndex}`);
    return generation.reader.stored(docId, fields, maxChars);
  }

  /** Every live document, oldest generation first (re-indexing, exports). */
  *liveDocuments(): Generator<{ key: string; record: StoredRecord }> {
    for (const generation of this.generations) {
      for (let doc = 0; doc < generation.maxDoc; doc++) {
        if (generation.isKilled(doc)) continue;
        const record = generation.reader.stored(doc);
        yield { key: record[KEY_FIELD] as string, record };
      }
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease(this.pointInTime);
  }
}
