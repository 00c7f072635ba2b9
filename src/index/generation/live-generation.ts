import type { GenerationView, PostingsIterator } from '../generation-view.js';
import type { GenerationReader } from './generation-reader.js';
import type { KilledBits } from './killed-bits.js';
import type { TermProbes } from './term-probes.js';

/** A generation as one manifest sees it: its files plus that manifest's killed bits. */
export class LiveGeneration implements GenerationView {
  readonly generation: number;
  readonly maxDoc: number;

  constructor(
    readonly reader: GenerationReader,
    readonly killed: KilledBits | null,
    /** Name of the `.del` file holding `killed`, null when nothing is killed. */
    readonly killedFileName: string | null,
  ) {
    this.generation = reader.generation;
    this.maxDoc = reader.maxDoc;
  }

  get killedCount(): number {
    return this.killed?.count ?? 0;
  }

  get liveCount(): number {
    return this.maxDoc - this.killedCount;
  }

  isKilled(docId: number): boolean {
    return this.killed !== null && this.killed.has(docId);
  }

  fieldLengths(field: string): Uint32Array | null {
    return this.reader.fieldLengths(field);
  }

  fieldStats(field: string): { sumLength: number; docCount: number } {
    const meta = this.reader.fieldMetaOf(field);
    return meta === undefined
      ? { sumLength: 0, docCount: 0 }
      : { sumLength: meta.sumLength, docCount: meta.docCount };
  }

  docFreq(field: string, term: string): number {
    return this.reader.termInfo(field, term)?.docFreq ?? 0;
  }

  probeDocFreq(field: string, term: string): number {
    return this.reader.probeDocFreq(field, term);
  }

  probeDocFreqs(field: string, probes: TermProbes, out: Int32Array): void {
    this.reader.probeDocFreqs(field, probes, out);
  }

  postings(field: string, term: string, withPositions: boolean): PostingsIterator | null {
    return this.reader.postings(field, term, withPositions);
  }

  termsWithPrefix(field: string, prefix: string, limit: number): string[] {
    return this.reader.termsWithPrefix(field, prefix, limit);
  }

  numericValues(field: string): Float64Array | null {
    return this.reader.numericValues(field);
  }
}
