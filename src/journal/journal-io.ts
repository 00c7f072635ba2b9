import { fstatSync } from 'node:fs';
import { mkdir, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';

/**
 * The file operations the file journal uses, and nothing more, so that tests can wrap them
 * to inject I/O errors (ENOSPC, EIO) and to simulate a power loss that drops everything not
 * yet synced (Lucene's `MockDirectoryWrapper` idea). All of them are asynchronous: disk work
 * runs in the libuv pool and the event loop never waits on a disk.
 *
 * Durability contract, as on POSIX: bytes written to a file survive a crash only after
 * {@link JournalFile.datasync} returned; a created, renamed or deleted name survives only
 * after {@link JournalIo.syncFolder} of its folder returned.
 */
export interface JournalIo {
  /** Creates the folder (and parents) when missing. */
  makeFolder(path: string): Promise<void>;
  listFolder(path: string): Promise<string[]>;
  /** `'read'` opens for reading, `'write'` for positional reads and writes, `'create'` creates a new file (fails if it exists). */
  openFile(path: string, mode: 'read' | 'write' | 'create'): Promise<JournalFile>;
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; a missing file is not an error. */
  deleteFile(path: string): Promise<void>;
  /** Makes creations, renames and deletions in the folder durable. */
  syncFolder(path: string): Promise<void>;
}

/** An open file with positional reads and writes (no shared cursor). */
export interface JournalFile {
  /** Reads up to `length` bytes at `position` into `buffer` at `offset`; returns the count read (0 at the end). */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  /** Writes up to `length` bytes; returns the count written (may be short). */
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  /** fdatasync: the file's bytes and length are durable once this resolves. */
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  size(): Promise<number>;
  /**
   * False once the file has no name left (deleted while open): bytes written to it then reach
   * no file a restart reads. A status call on the open file, no disk read.
   */
  isLinked(): boolean;
  close(): Promise<void>;
}

class NodeJournalFile implements JournalFile {
  constructor(private readonly handle: FileHandle) {}

  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return (await this.handle.read(buffer, offset, length, position)).bytesRead;
  }

  async write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return (await this.handle.write(buffer, offset, length, position)).bytesWritten;
  }

  datasync(): Promise<void> {
    return this.handle.datasync();
  }

  truncate(length: number): Promise<void> {
    return this.handle.truncate(length);
  }

  async size(): Promise<number> {
    return (await this.handle.stat()).size;
  }

  isLinked(): boolean {
    return fstatSync(this.handle.fd).nlink > 0;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** The real file system through `node:fs/promises`. */
export const nodeJournalIo: JournalIo = {
  async makeFolder(path) {
    await mkdir(path, { recursive: true });
  },
  listFolder(path) {
    return readdir(path);
  },
  async openFile(path, mode) {
    // 'r+' rather than 'a': appends on Linux ignore the position, and the journal must be
    // able to rewrite from its last durable length after a failed write.
    const flags = mode === 'read' ? 'r' : mode === 'write' ? 'r+' : 'wx';
    return new NodeJournalFile(await open(path, flags));
  },
  rename(from, to) {
    return rename(from, to);
  },
  async deleteFile(path) {
    try {
      await unlink(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  },
  async syncFolder(path) {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};
