import { NO_MORE_DOCS, type GenerationView, type PostingsIterator } from '../../src/index/generation-view.js';
import type { TermProbes } from '../../src/index/generation/term-probes.js';
import { ArrayPostings, ArrayPostingsList } from '../../src/query/array-postings.js';

/**
 * A document of an in-memory generation. `fields` holds already-analysed terms in order;
 * a term's position is its index. An empty string stands for a removed stop word: it
 * counts in the field length and positions but is not indexed (so phrases keep gaps).
 */
export interface MemoryDocument {
  fields: Record<string, string[]>;
  numbers?: Record<string, number>;
}

export interface MemoryGenerationOptions {
  /** Generation number (default 1). */
  generation?: number;
  /** docIds killed after the generation was written. */
  killed?: Iterable<number>;
  /** Postings per block-max block (default 128; tests use small ones to exercise block code). */
  blockSize?: number;
  /**
   * Offer the optional freq/length ratio block data (`FreqRatioImpacts`) like the executor's
   * own lists (default true); false serves the bare `PostingsIterator` contract.
   */
  freqRatios?: boolean;
  /** Fields indexed without lengths (like keyword fields on disk): `fieldLengths` is null for them. */
  withoutLengths?: string[];
}

interface TermPostings {
  /** Without positions, and with them (both built once, iterators are cheap). */
  plain: ArrayPostingsList;
  withPositions: ArrayPostingsList;
}

/**
 * A {@link GenerationView} built from plain documents, for executor tests and the engine's
 * property tests. Its postings check the iterator contract (advance targets beyond docId(),
 * non-decreasing shallow targets) and throw on violations, so executor bugs surface here.
 */
export class MemoryGeneration implements GenerationView {
  readonly generation: number;
  readonly maxDoc: number;
  readonly killedCount: number;
  readonly blockSize: number;
  private readonly freqRatios: boolean;
  private readonly withoutLengths: Set<string>;
  private readonly killed: Uint8Array;
  private readonly lengths = new Map<string, Uint32Array>();
  private readonly postingsByField = new Map<string, Map<string, TermPostings>>();
  private readonly sortedTerms = new Map<string, string[]>();
  private readonly numbers = new Map<string, Float64Array>();

  constructor(docs: readonly MemoryDocument[], options: MemoryGenerationOptions = {}) {
    this.generation = options.generation ?? 1;
    this.maxDoc = docs.length;
    this.blockSize = options.blockSize ?? 128;
    this.freqRatios = options.freqRatios ?? true;
    this.withoutLengths = new Set(options.withoutLengths ?? []);
    this.killed = new Uint8Array(docs.length);
    let killedCount = 0;
    for (const d of options.killed ?? []) {
      if (!Number.isInteger(d) || d < 0 || d >= docs.length)
        throw new RangeError(`killed docId ${d} out of range`);
      if (this.killed[d] === 0) killedCount++;
      this.killed[d] = 1;
    }
    this.killedCount = killedCount;

    // Documents arrive in docId order, so each list is appended to: flat arrays, no per-posting objects.
    const build = new Map<
      string,
      Map<string, { docs: number[]; freqs: number[]; starts: number[]; positions: number[] }>
    >();
    docs.forEach((doc, docId) => {
      for (const [field, terms] of Object.entries(doc.fields)) {
        let lengths = this.lengths.get(field);
        if (lengths === undefined) {
          lengths = new Uint32Array(docs.length);
          this.lengths.set(field, lengths);
        }
        lengths[docId] = terms.length;
        let byTerm = build.get(field);
        if (byTerm === undefined) {
          byTerm = new Map();
          build.set(field, byTerm);
        }
        terms.forEach((term, pos) => {
          if (term === '') return;
          let p = byTerm.get(term);
          if (p === undefined) {
            p = { docs: [], freqs: [], starts: [0], positions: [] };
            byTerm.set(term, p);
          }
          // The last entries of freqs and starts are the current document's, counted up.
          if (p.docs.at(-1) !== docId) {
            p.docs.push(docId);
            p.freqs.push(0);
            p.starts.push(p.positions.length);
          }
          p.freqs.push((p.freqs.pop() ?? 0) + 1);
          p.positions.push(pos);
          p.starts.push((p.starts.pop() ?? 0) + 1);
        });
      }
      for (const [field, value] of Object.entries(doc.numbers ?? {})) {
        let values = this.numbers.get(field);
        if (values === undefined) {
          values = new Float64Array(docs.length).fill(NaN);
          this.numbers.set(field, values);
        }
        values[docId] = value;
      }
    });
    for (const [field, byTerm] of build) {
      const out = new Map<string, TermPostings>();
      // Without lengths the lists have no length data either (as on disk).
      const lengths = this.withoutLengths.has(field) ? null : this.lengths.get(field)!;
      for (const [term, p] of byTerm) {
        const docIds = Int32Array.from(p.docs);
        const freqs = Int32Array.from(p.freqs);
        const positions = { starts: Int32Array.from(p.starts), data: Int32Array.from(p.positions) };
        out.set(term, {
          plain: new ArrayPostingsList(docIds, freqs, lengths, this.blockSize),
          withPositions: new ArrayPostingsList(docIds, freqs, lengths, this.blockSize, positions),
        });
      }
      this.postingsByField.set(field, out);
      this.sortedTerms.set(field, [...out.keys()].sort());
    }
  }

  isKilled(docId: number): boolean {
    return this.killed[docId] === 1;
  }

  fieldLengths(field: string): Uint32Array | null {
    if (this.withoutLengths.has(field)) return null;
    // "null when no document has it": a field present only as an empty list still counts.
    return this.lengths.get(field) ?? null;
  }

  fieldStats(field: string): { sumLength: number; docCount: number } {
    const lengths = this.lengths.get(field);
    let sumLength = 0;
    let docCount = 0;
    if (lengths !== undefined) {
      for (const l of lengths) {
        if (!this.withoutLengths.has(field)) sumLength += l;
        if (l > 0) docCount++;
      }
    }
    return { sumLength, docCount };
  }

  docFreq(field: string, term: string): number {
    return this.postingsByField.get(field)?.get(term)?.plain.docs.length ?? 0;
  }

  probeDocFreq(field: string, term: string): number {
    return this.docFreq(field, term);
  }

  probeDocFreqs(field: string, probes: TermProbes, out: Int32Array): void {
    probes.terms.forEach((term, t) => (out[t] += this.docFreq(field, term)));
  }

  postings(field: string, term: string, withPositions: boolean): PostingsIterator | null {
    const p = this.postingsByField.get(field)?.get(term);
    if (p === undefined) return null;
    const it = new CheckedPostings(withPositions ? p.withPositions : p.plain);
    return this.freqRatios ? it : new ContractOnlyPostings(it);
  }

  termsWithPrefix(field: string, prefix: string, limit: number): string[] {
    const terms = this.sortedTerms.get(field);
    if (terms === undefined) return [];
    let lo = 0;
    let hi = terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((terms[mid] ?? '') < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (const term of terms.slice(lo)) {
      if (out.length >= limit || !term.startsWith(prefix)) break;
      out.push(term);
    }
    return out;
  }

  numericValues(field: string): Float64Array | null {
    return this.numbers.get(field) ?? null;
  }
}

/** Postings that enforce the {@link PostingsIterator} contract. */
class CheckedPostings extends ArrayPostings {
  private lastShallowTarget = -1;
  private positionsReadFor = -1;

  override nextDoc(): number {
    if (this.docId() === NO_MORE_DOCS) throw new Error('nextDoc() called on an exhausted iterator');
    return super.nextDoc();
  }

  override advance(target: number): number {
    if (target <= this.docId()) throw new Error(`advance(${target}) must be beyond docId() ${this.docId()}`);
    return super.advance(target);
  }

  override advanceShallow(target: number): number {
    if (target < this.lastShallowTarget) {
      throw new Error(
        `advanceShallow(${target}) after advanceShallow(${this.lastShallowTarget}): targets must not decrease`,
      );
    }
    this.lastShallowTarget = target;
    return super.advanceShallow(target);
  }

  /**
   * At most once per document: the on-disk reader decodes positions as it goes, so a second
   * call in the same document would not return them again.
   */
  override positions(): Int32Array {
    const d = this.docId();
    if (d === this.positionsReadFor) throw new Error(`positions() called twice on document ${d}`);
    this.positionsReadFor = d;
    return super.positions();
  }

  override freq(): number {
    const d = this.docId();
    if (d < 0 || d === NO_MORE_DOCS) throw new Error('freq() called while not positioned on a document');
    return super.freq();
  }
}

/** Hides everything but the {@link PostingsIterator} contract. */
class ContractOnlyPostings implements PostingsIterator {
  readonly docFreq: number;
  readonly maxFreq: number;
  readonly minLength: number;

  constructor(private readonly inner: PostingsIterator) {
    this.docFreq = inner.docFreq;
    this.maxFreq = inner.maxFreq;
    this.minLength = inner.minLength;
  }

  docId(): number {
    return this.inner.docId();
  }

  nextDoc(): number {
    return this.inner.nextDoc();
  }

  advance(target: number): number {
    return this.inner.advance(target);
  }

  freq(): number {
    return this.inner.freq();
  }

  positions(): Int32Array {
    return this.inner.positions();
  }

  advanceShallow(target: number): number {
    return this.inner.advanceShallow(target);
  }

  blockMaxFreq(): number {
    return this.inner.blockMaxFreq();
  }

  blockMinLength(): number {
    return this.inner.blockMinLength();
  }
}
