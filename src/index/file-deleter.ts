import { generationOfFile } from './generation/generation-files.js';
import { isManifestTemp, MANIFEST_FILE, manifestFiles, type Manifest } from './manifest.js';
import { COPY_TEMP_SUFFIX, type Directory } from './store/directory.js';

/**
 * Decides when an index file may be deleted (Lucene's IndexFileDeleter, tantivy's managed
 * directory): every point in time counts once on each file it needs, and a file is deleted
 * when its count falls to zero. Files no manifest names (a crash mid-commit or mid-merge) are
 * removed at open by {@link removeLeftovers}.
 *
 * After {@link release} it deletes nothing more: the folder may then belong to a reopened
 * index, and leftovers are that index's business.
 */
export class FileDeleter {
  private readonly references = new Map<string, number>();
  private released = false;

  constructor(private readonly dir: Directory) {}

  /** Counts one more holder of each file (the manifest file itself is never counted). */
  incRef(files: readonly string[]): void {
    for (const file of files) {
      if (file === MANIFEST_FILE) continue;
      this.references.set(file, (this.references.get(file) ?? 0) + 1);
    }
  }

  /** Counts one holder less of each file; deletes the files nobody holds any more. */
  decRef(files: readonly string[]): void {
    if (this.released) return;
    for (const file of files) {
      if (file === MANIFEST_FILE) continue;
      const count = (this.references.get(file) ?? 0) - 1;
      if (count > 0) this.references.set(file, count);
      else {
        this.references.delete(file);
        this.deleteQuietly(file);
      }
    }
  }

  /** True while some point in time holds the file. */
  isReferenced(file: string): boolean {
    return this.references.has(file);
  }

  /** Holders of a file (0 when none); for tests and statistics. */
  referenceCount(file: string): number {
    return this.references.get(file) ?? 0;
  }

  /** Deletes the files of a generation that nothing holds (a failed or unneeded merge result, a failed flush). */
  deleteUnreferencedGeneration(generation: number): void {
    if (this.released) return;
    for (const name of this.dir.listAll()) {
      if (generationOfFile(name) === generation && !this.references.has(name)) this.deleteQuietly(name);
    }
  }

  /**
   * Deletes generation files and temporary files that `manifest` does not name (crash
   * leftovers). Returns the highest generation number seen on disk, so that the caller never
   * hands out a number a file already had (a restored snapshot may be older than its folder).
   */
  async removeLeftovers(manifest: Manifest): Promise<number> {
    const needed = new Set(manifestFiles(manifest));
    let highest = 0;
    let removed = false;
    for (const name of this.dir.listAll()) {
      const generation = generationOfFile(name);
      if (generation !== undefined) highest = Math.max(highest, generation);
      const temporary = isManifestTemp(name) || name.endsWith(COPY_TEMP_SUFFIX);
      if ((generation !== undefined || temporary) && !needed.has(name)) {
        this.dir.deleteFile(name);
        removed = true;
      }
    }
    if (removed) await this.dir.syncDirectory();
    return highest;
  }

  /** Deletes one file; cleanup never fails the operation it follows (a file left behind goes at the next open). */
  deleteQuietly(name: string): void {
    if (this.released) return;
    try {
      this.dir.deleteFile(name);
    } catch {
      // Left for removeLeftovers().
    }
  }

  /** From now on nothing is deleted (the index closed; the folder may be reopened). */
  release(): void {
    this.released = true;
  }
}
