import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Directory, IndexInput, IndexOutput } from './directory.js';
import { FsDirectory } from './fs-directory.js';

/**
 * Index bytes that every thread of the process reads without a copy of its own: files read
 * whole into `SharedArrayBuffer`s. The thread that opens a generation reads its files through
 * a {@link SharingDirectory}, which keeps what it read; search threads then read the same
 * memory through a {@link SharedBytesDirectory} (handing a `SharedArrayBuffer` to another
 * thread copies nothing). Memory stays as long as any thread keeps a view of it.
 */

/** Reads a whole file into shared memory. */
export function readFileShared(dir: Directory, name: string): Uint8Array {
  if (!(dir instanceof FsDirectory)) {
    const bytes = dir.readFile(name);
    const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
    shared.set(bytes);
    return shared;
  }
  const fd = openSync(`${dir.path}/${name}`, 'r');
  try {
    const length = fstatSync(fd).size;
    const shared = new Uint8Array(new SharedArrayBuffer(length));
    let done = 0;
    while (done < length) {
      const n = readSync(fd, shared, done, length - done, done);
      if (n === 0) throw new RangeError(`unexpected end of ${name} at ${done}`);
      done += n;
    }
    return shared;
  } finally {
    closeSync(fd);
  }
}

/** A whole file in memory: reads are views, not copies. */
export function bytesInput(name: string, bytes: Uint8Array): IndexInput {
  return {
    name,
    length: bytes.length,
    read(offset: number, length: number) {
      if (offset < 0 || offset + length > bytes.length) {
        throw new RangeError(`read past end of ${name}: ${offset}+${length} > ${bytes.length}`);
      }
      return bytes.subarray(offset, offset + length);
    },
    close() {},
  };
}

/**
 * Reads through another directory, holding the files `shared(name)` accepts in shared
 * memory (every read of them is a view of it) and remembering them by name for
 * {@link sharedFiles}. Other files are read as the inner directory reads them (positional
 * reads). Read-only: writes go to the inner directory.
 */
export class SharingDirectory implements Directory {
  private readonly held = new Map<string, Uint8Array>();

  constructor(
    private readonly inner: Directory,
    private readonly shared: (name: string) => boolean,
  ) {}

  get path(): string {
    return this.inner.path;
  }

  /** The files read into shared memory so far, by name. */
  sharedFiles(): Map<string, Uint8Array> {
    return new Map(this.held);
  }

  private bytesOf(name: string): Uint8Array {
    let bytes = this.held.get(name);
    if (bytes === undefined) {
      bytes = readFileShared(this.inner, name);
      this.held.set(name, bytes);
    }
    return bytes;
  }

  listAll(): string[] {
    return this.inner.listAll();
  }
  fileExists(name: string): boolean {
    return this.held.has(name) || this.inner.fileExists(name);
  }
  fileLength(name: string): number {
    return this.held.get(name)?.length ?? this.inner.fileLength(name);
  }
  createOutput(name: string): IndexOutput {
    return this.inner.createOutput(name);
  }
  openInput(name: string): IndexInput {
    return this.shared(name) ? bytesInput(name, this.bytesOf(name)) : this.inner.openInput(name);
  }
  readFile(name: string): Uint8Array {
    return this.shared(name) ? this.bytesOf(name) : this.inner.readFile(name);
  }
  sync(names: string[]): Promise<void> {
    return this.inner.sync(names);
  }
  syncDirectory(): Promise<void> {
    return this.inner.syncDirectory();
  }
  rename(from: string, to: string): void {
    this.inner.rename(from, to);
  }
  deleteFile(name: string): void {
    this.inner.deleteFile(name);
  }
  linkTo(name: string, target: Directory): void {
    this.inner.linkTo(name, target);
  }
  copyFrom(source: Directory, name: string): void {
    this.inner.copyFrom(source, name);
  }
}

/**
 * A search thread's read-only view of an index folder: the files another thread shared are
 * read from that memory; the rest (stored records) from the folder by positional reads, each
 * thread with its own file handle. Never writes.
 */
export class SharedBytesDirectory implements Directory {
  constructor(
    readonly path: string,
    private readonly files: ReadonlyMap<string, Uint8Array>,
  ) {}

  listAll(): string[] {
    return [...this.files.keys()].sort();
  }
  fileExists(name: string): boolean {
    return this.files.has(name) || existsSync(join(this.path, name));
  }
  fileLength(name: string): number {
    return this.files.get(name)?.length ?? statSync(join(this.path, name)).size;
  }
  createOutput(name: string): IndexOutput {
    throw new Error(`read-only: cannot create ${name}`);
  }
  openInput(name: string): IndexInput {
    const bytes = this.files.get(name);
    return bytes !== undefined ? bytesInput(name, bytes) : preadInput(join(this.path, name), name);
  }
  readFile(name: string): Uint8Array {
    return this.files.get(name) ?? readFileSync(join(this.path, name));
  }
  sync(): Promise<void> {
    return Promise.reject(new Error('read-only directory'));
  }
  syncDirectory(): Promise<void> {
    return Promise.reject(new Error('read-only directory'));
  }
  rename(from: string): void {
    throw new Error(`read-only: cannot rename ${from}`);
  }
  deleteFile(name: string): void {
    throw new Error(`read-only: cannot delete ${name}`);
  }
  linkTo(name: string): void {
    throw new Error(`read-only: cannot link ${name}`);
  }
  copyFrom(_source: Directory, name: string): void {
    throw new Error(`read-only: cannot copy ${name}`);
  }
}

/** Positional reads of a file through a handle of the calling thread's own. */
function preadInput(path: string, name: string): IndexInput {
  let fd = openSync(path, 'r');
  const length = fstatSync(fd).size;
  return {
    name,
    length,
    read(offset: number, count: number) {
      if (offset < 0 || offset + count > length)
        throw new RangeError(`read past end of ${name}: ${offset}+${count} > ${length}`);
      const out = Buffer.allocUnsafe(count);
      let done = 0;
      while (done < count) {
        const n = readSync(fd, out, done, count - done, offset + done);
        if (n === 0) throw new RangeError(`unexpected end of ${name} at ${offset + done}`);
        done += n;
      }
      return out;
    },
    close() {
      if (fd >= 0) closeSync(fd);
      fd = -1;
    },
  };
}
