import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

/**
 * SHA-256 of immutable index files, computed once per file. A file is known by its path,
 * inode, size and modification time: a generation number reused after a restore is another
 * inode, so its checksum is computed again. Reads stream through the hash (no whole-file
 * buffer), off the event loop except for the hashing itself.
 */
export class FileChecksums {
  private readonly known = new Map<string, { identity: string; sha256: Promise<string> }>();

  async sha256(path: string): Promise<{ sha256: string; size: number }> {
    const info = await stat(path);
    const identity = `${info.ino}:${info.size}:${info.mtimeMs}`;
    let entry = this.known.get(path);
    if (entry === undefined || entry.identity !== identity) {
      entry = { identity, sha256: hashFile(path) };
      this.known.set(path, entry);
      entry.sha256.catch(() => this.known.delete(path));
    }
    return { sha256: await entry.sha256, size: info.size };
  }

  /** Drops entries of paths not in `keep` (files the index deleted). */
  retain(keep: ReadonlySet<string>): void {
    for (const path of this.known.keys()) if (!keep.has(path)) this.known.delete(path);
  }
}

/** SHA-256 (hex) of a whole file, streamed. */
export function hashFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path, { highWaterMark: 1 << 20 })
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
