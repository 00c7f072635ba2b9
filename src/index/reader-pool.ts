import { GenerationReader } from './generation/generation-reader.js';
import type { Directory } from './store/directory.js';
import { FsDirectory } from './store/fs-directory.js';

/**
 * The open readers of an index's generations, one per generation however many points in
 * time include it: each point in time counts once on every reader it uses, and a reader is
 * closed when its count falls to zero (Lucene's reader pool).
 */
export class ReaderPool {
  private readonly readers = new Map<number, { reader: GenerationReader; references: number }>();

  constructor(
    private readonly dir: Directory,
    // Opened to share: search threads read the same memory (see GenerationReader.shared).
    private readonly open: (dir: Directory, generation: number) => GenerationReader = (d, g) =>
      GenerationReader.open(d, g, { share: d instanceof FsDirectory }),
  ) {}

  /** The generation's reader, opened (and verified) when nobody holds it yet; counts one holder more. */
  acquire(generation: number): GenerationReader {
    const known = this.readers.get(generation);
    if (known !== undefined) {
      known.references++;
      return known.reader;
    }
    const reader = this.open(this.dir, generation);
    this.readers.set(generation, { reader, references: 1 });
    return reader;
  }

  /** Counts one holder less; closes the reader when it was the last. */
  release(generation: number): void {
    const entry = this.readers.get(generation);
    if (entry !== undefined && --entry.references === 0) {
      entry.reader.close();
      this.readers.delete(generation);
    }
  }

  /** Generations with an open reader. */
  get openGenerations(): number[] {
    return [...this.readers.keys()];
  }

  /** Closes every reader, held or not (the index is closing). */
  closeAll(): void {
    for (const { reader } of this.readers.values()) reader.close();
    this.readers.clear();
  }
}
