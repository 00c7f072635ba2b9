import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { killedFile } from './generation/generation-files.js';
import { KilledBits } from './generation/killed-bits.js';
import { LiveGeneration } from './generation/live-generation.js';
import { MANIFEST_FILE, manifestFiles, type Manifest } from './manifest.js';
import type { PointInTime } from './searcher.js';
import type { Directory } from './store/directory.js';
import { FileDeleter } from './file-deleter.js';
import { KeyLocations } from './key-locations.js';
import { ReaderPool } from './reader-pool.js';

/** New killed bits of a generation, and the file they were written to. */
export interface KilledUpdate {
  bits: KilledBits;
  file: string;
}

/**
 * The last published manifest and what this process holds for it (tantivy's segment
 * register): the current point in time with its open readers and file references, where each
 * key's live document is, and the numbers to hand out next. Commits and merges compute a new
 * manifest, publish it, then {@link install} it here; only the serial updater calls
 * `install`, so it never sees two publishes at once.
 */
export class LiveManifest {
  /** Key → location of its live document in the current manifest. */
  readonly keys = new KeyLocations();
  /** Counts the holders of every file; deletes what nobody holds. */
  readonly files: FileDeleter;
  private readonly readers: ReaderPool;
  private published: Manifest;
  private pointInTime: PointInTime;
  /**
   * The next generation number to hand out (flushes and merges). Kept apart from the manifest
   * object: a manifest being published is a copy made before its awaits, and numbers handed
   * out meanwhile must not be handed out again once that copy becomes current.
   */
  private nextGeneration: number;

  constructor(
    readonly dir: Directory,
    manifest: Manifest,
  ) {
    this.files = new FileDeleter(dir);
    this.readers = new ReaderPool(dir);
    this.published = manifest;
    this.nextGeneration = manifest.nextGeneration;
    this.pointInTime = { manifestNumber: manifest.number, generations: [], files: [], references: 1 };
  }

  /** The last published manifest. Never changed in place except by the number allocators below. */
  get manifest(): Manifest {
    return this.published;
  }

  /** The point in time of the last published manifest (new searchers share it). */
  get current(): PointInTime {
    return this.pointInTime;
  }

  /** A generation number nobody had (a flush or a merge result). */
  allocateGeneration(): number {
    return this.nextGeneration++;
  }

  /** The number the next allocated generation will get (recorded in a manifest being published). */
  get nextGenerationNumber(): number {
    return this.nextGeneration;
  }

  /**
   * Opens readers for the manifest read at open and leaves the key map to build later. When a
   * reader cannot be opened (a damaged file), the ones already open are closed and the error
   * is thrown.
   */
  async load(): Promise<void> {
    const generations: LiveGeneration[] = [];
    try {
      for (const entry of this.published.generations) {
        // A generation at a time: opening one reads and checks all its files (the largest of
        // the RFC collection: ~0.3 s), and the event loop answers others in between.
        if (generations.length > 0) await setImmediatePromise();
        const reader = this.readers.acquire(entry.generation);
        const killed =
          entry.killedFile === null ? null : KilledBits.read(this.dir, entry.killedFile, reader.maxDoc);
        generations.push(new LiveGeneration(reader, killed, entry.killedFile));
      }
    } catch (error) {
      this.readers.closeAll();
      throw error;
    }
    // Later: searches do not need the keys (see KeyLocations).
    this.keys.addLater(generations);
    const files = manifestFiles(this.published).filter((name) => name !== MANIFEST_FILE);
    this.pointInTime = { manifestNumber: this.published.number, generations, files, references: 1 };
    this.files.incRef(files);
  }

  /** Deletes generation files and temp files that the manifest does not name (crash leftovers). */
  async removeLeftovers(): Promise<void> {
    const highest = await this.files.removeLeftovers(this.published);
    // Never reuse a generation number seen on disk (a restored snapshot may be older).
    this.nextGeneration = Math.max(this.nextGeneration, highest + 1);
    this.published.nextGeneration = this.nextGeneration;
  }

  /** The live generation numbered `generation` in the current point in time. */
  liveGeneration(generation: number): LiveGeneration | undefined {
    return this.pointInTime.generations.find((g) => g.generation === generation);
  }

  /** Counts one more holder of the current point in time; give it back with {@link release}. */
  acquire(): PointInTime {
    const pointInTime = this.pointInTime;
    pointInTime.references++;
    return pointInTime;
  }

  /** Counts one holder less; the last one closes its readers and lets its files go. */
  release(pointInTime: PointInTime): void {
    if (--pointInTime.references > 0) return;
    for (const generation of pointInTime.generations) this.readers.release(generation.generation);
    this.files.decRef(pointInTime.files);
  }

  /**
   * Writes new killed bits of `generation` for the manifest `next` being built, under a
   * delete generation number never used before: numbers are not reused even after a failed
   * publish, whose files may still be on disk (and needed, when the publish did happen).
   */
  writeKilled(next: Manifest, generation: number, bits: KilledBits): string {
    const file = killedFile(generation, this.published.nextDeleteGeneration++);
    next.nextDeleteGeneration = this.published.nextDeleteGeneration;
    bits.write(this.dir, file);
    return file;
  }

  /**
   * Opens (and verifies) the readers of generations about to be published, and returns what
   * releases them. Opened before the manifest is published, not after: a read that fails then
   * fails the publish while nothing is published yet. Failing once the new manifest is on disk
   * would leave this instance on the old one, and the next commit would publish a manifest
   * without the generation (its documents gone, their replaced versions back).
   */
  openReaders(generations: number[]): () => void {
    const opened: number[] = [];
    const release = () => {
      for (const generation of opened.splice(0)) this.readers.release(generation);
    };
    try {
      for (const generation of generations) {
        this.readers.acquire(generation);
        opened.push(generation);
      }
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /**
   * Makes a just-published manifest current: a new point in time (generations without new
   * killed bits are shared with the previous one), file references moved from the previous
   * point in time, whose files go once its last searcher is released.
   */
  install(next: Manifest, killedUpdates: ReadonlyMap<number, KilledUpdate>): void {
    // Its generations' readers may close with the point in time this replaces.
    this.keys.finishBuild();
    const previous = this.pointInTime;
    // Every point in time counts once on each reader it uses (acquire opens or counts).
    const generations = next.generations.map((entry) => {
      const update = killedUpdates.get(entry.generation);
      const existing = previous.generations.find((g) => g.generation === entry.generation);
      const reader = this.readers.acquire(entry.generation);
      if (existing !== undefined && update === undefined) return existing;
      return new LiveGeneration(reader, update?.bits ?? null, update?.file ?? null);
    });
    const files = manifestFiles(next).filter((name) => name !== MANIFEST_FILE);
    this.files.incRef(files);
    this.published = next;
    this.pointInTime = { manifestNumber: next.number, generations, files, references: 1 };
    this.release(previous);
  }

  /** Closes every reader and deletes nothing more (the index closed; the folder may be reopened). */
  close(): void {
    this.keys.stopBuild();
    this.readers.closeAll();
    this.files.release();
  }
}
