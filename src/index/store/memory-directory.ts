import type { Directory, IndexInput, IndexOutput } from './directory.js';

interface Inode {
  chunks: Uint8Array[];
  length: number;
  /** Content that survives a crash (what the last sync saw). */
  synced: Uint8Array | null;
}

function contentOf(inode: Inode): Uint8Array {
  if (inode.chunks.length !== 1) {
    const all = new Uint8Array(inode.length);
    let at = 0;
    for (const chunk of inode.chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    inode.chunks = [all];
  }
  return inode.chunks[0] ?? new Uint8Array(0);
}

/**
 * A directory in memory that models what a crash keeps: file contents survive only up to
 * their last {@link sync}, names (creations, renames, deletions) only up to the last
 * {@link syncDirectory}. {@link crash} returns the directory a restarted process would see.
 * Used by the crash tests, and handy for tests that need no disk.
 */
export class MemoryDirectory implements Directory {
  readonly path: string;
  private entries = new Map<string, Inode>();
  private durableEntries = new Map<string, Inode>();

  constructor(path = 'memory:') {
    this.path = path;
  }

  listAll(): string[] {
    return [...this.entries.keys()].sort();
  }

  fileExists(name: string): boolean {
    return this.entries.has(name);
  }

  fileLength(name: string): number {
    return this.inode(name).length;
  }

  createOutput(name: string): IndexOutput {
    if (this.entries.has(name)) throw new Error(`file exists: ${name}`);
    const inode: Inode = { chunks: [], length: 0, synced: null };
    this.entries.set(name, inode);
    let open = true;
    return {
      name,
      get position() {
        return inode.length;
      },
      write(bytes: Uint8Array) {
        if (!open) throw new Error(`write after close: ${name}`);
        inode.chunks.push(new Uint8Array(bytes)); // a copy: the writer may reuse its buffer (a Buffer's slice() would not copy)
        inode.length += bytes.length;
      },
      close() {
        open = false;
      },
    };
  }

  openInput(name: string): IndexInput {
    const data = contentOf(this.inode(name));
    return {
      name,
      length: data.length,
      read(offset: number, length: number) {
        if (offset < 0 || offset + length > data.length) {
          throw new RangeError(`read past end of ${name}: ${offset}+${length} > ${data.length}`);
        }
        return data.slice(offset, offset + length);
      },
      close() {},
    };
  }

  readFile(name: string): Uint8Array {
    return new Uint8Array(contentOf(this.inode(name)));
  }

  async sync(names: string[]): Promise<void> {
    for (const name of names) {
      const inode = this.inode(name);
      inode.synced = new Uint8Array(contentOf(inode));
    }
  }

  async syncDirectory(): Promise<void> {
    this.durableEntries = new Map(this.entries);
  }

  rename(from: string, to: string): void {
    const inode = this.inode(from);
    this.entries.delete(from);
    this.entries.set(to, inode);
  }

  deleteFile(name: string): void {
    this.entries.delete(name);
  }

  linkTo(name: string, target: Directory): void {
    if (!(target instanceof MemoryDirectory))
      throw new Error('MemoryDirectory can only link to a MemoryDirectory');
    if (target.entries.has(name)) throw new Error(`file exists: ${name}`);
    target.entries.set(name, this.inode(name));
  }

  copyFrom(source: Directory, name: string): void {
    const bytes = source.readFile(name);
    this.entries.set(name, { chunks: [bytes], length: bytes.length, synced: null });
  }

  /**
   * What survives a crash now: durable names, each with its synced content. Unsynced data is
   * lost, except that `random` (when given) may keep an arbitrary prefix of it, as real
   * file systems sometimes do.
   */
  crash(random?: () => number): MemoryDirectory {
    const after = new MemoryDirectory(this.path);
    for (const [name, inode] of this.durableEntries) {
      let data = inode.synced ?? new Uint8Array(0);
      if (random !== undefined) {
        const current = contentOf(inode);
        if (current.length > data.length && random() < 0.5) {
          const keep = data.length + Math.floor(random() * (current.length - data.length + 1));
          data = current.slice(0, keep);
        }
      }
      const copy: Inode = {
        chunks: [new Uint8Array(data)],
        length: data.length,
        synced: new Uint8Array(data),
      };
      after.entries.set(name, copy);
      after.durableEntries.set(name, copy);
    }
    return after;
  }

  private inode(name: string): Inode {
    const inode = this.entries.get(name);
    if (inode === undefined) {
      const error = new Error(`no such file: ${name}`) as NodeJS.ErrnoException;
      error.code = 'ENOENT';
      throw error;
    }
    return inode;
  }
}
