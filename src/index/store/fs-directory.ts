import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { open as openAsync } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  COPY_TEMP_SUFFIX,
  type Directory,
  type DirectoryDescription,
  type IndexInput,
  type IndexOutput,
} from './directory.js';

/** Bytes gathered before one write(2); big enough that a generation is written in few calls. */
const OUTPUT_BUFFER_BYTES = 1 << 20;

/**
 * A folder on the local file system. Writes are buffered and go to the page cache
 * synchronously (fast); durability comes only from the async {@link sync}, so that fsync
 * never blocks the event loop.
 */
export class FsDirectory implements Directory {
  readonly path: string;

  constructor(path: string) {
    this.path = resolve(path);
    mkdirSync(this.path, { recursive: true });
  }

  describe(): DirectoryDescription {
    return { kind: 'fs', path: this.path };
  }

  listAll(): string[] {
    return readdirSync(this.path).sort();
  }

  fileExists(name: string): boolean {
    return existsSync(this.resolveName(name));
  }

  fileLength(name: string): number {
    return statSync(this.resolveName(name)).size;
  }

  createOutput(name: string): IndexOutput {
    return new FsIndexOutput(name, openSync(this.resolveName(name), 'wx'));
  }

  openInput(name: string): IndexInput {
    const fd = openSync(this.resolveName(name), 'r');
    return new FsIndexInput(name, fd, statSync(this.resolveName(name)).size);
  }

  readFile(name: string): Uint8Array {
    return readFileSync(this.resolveName(name));
  }

  async sync(names: string[]): Promise<void> {
    await Promise.all(
      names.map(async (name) => {
        const handle = await openAsync(this.resolveName(name), 'r');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      }),
    );
  }

  async syncDirectory(): Promise<void> {
    const handle = await openAsync(this.path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  rename(from: string, to: string): void {
    renameSync(this.resolveName(from), this.resolveName(to));
  }

  deleteFile(name: string): void {
    try {
      unlinkSync(this.resolveName(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  linkTo(name: string, target: Directory): void {
    linkSync(this.resolveName(name), join(target.path, name));
  }

  copyFrom(source: Directory, name: string): void {
    const to = this.resolveName(name);
    const from = join(source.path, name);
    // A hard link of the same file (a snapshot of this folder): nothing to copy.
    if (existsSync(to)) {
      const [a, b] = [statSync(from), statSync(to)];
      if (a.ino === b.ino && a.dev === b.dev) return;
    }
    // Copied beside, made durable, then renamed over: the target may be a hard link shared with
    // a snapshot (which must not change), and a crash must leave either the old file or the new
    // one under the name, never none (the live manifest may still name it).
    const temp = `${to}${COPY_TEMP_SUFFIX}`;
    copyFileSync(from, temp);
    const fd = openSync(temp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, to);
  }

  /** Synchronous fsync of files, for worker threads that have nothing else to do meanwhile. */
  syncNow(names: string[]): void {
    for (const name of names) {
      const fd = openSync(this.resolveName(name), 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }

  private resolveName(name: string): string {
    if (name.includes('/') || name.includes('\\') || name === '..' || name === '.' || name === '') {
      throw new Error(`invalid index file name: ${JSON.stringify(name)}`);
    }
    return join(this.path, name);
  }
}

class FsIndexOutput implements IndexOutput {
  readonly name: string;
  private fd: number;
  private buffer = Buffer.allocUnsafe(OUTPUT_BUFFER_BYTES);
  private buffered = 0;
  private written = 0;

  constructor(name: string, fd: number) {
    this.name = name;
    this.fd = fd;
  }

  get position(): number {
    return this.written + this.buffered;
  }

  write(bytes: Uint8Array): void {
    if (bytes.length >= OUTPUT_BUFFER_BYTES) {
      this.flush();
      this.writeFully(bytes);
      return;
    }
    if (this.buffered + bytes.length > OUTPUT_BUFFER_BYTES) this.flush();
    this.buffer.set(bytes, this.buffered);
    this.buffered += bytes.length;
  }

  close(): void {
    if (this.fd < 0) return;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
      this.fd = -1;
    }
  }

  private flush(): void {
    if (this.buffered === 0) return;
    this.writeFully(this.buffer.subarray(0, this.buffered));
    this.buffered = 0;
  }

  private writeFully(bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) {
      offset += writeSync(this.fd, bytes, offset, bytes.length - offset);
    }
    this.written += bytes.length;
  }
}

class FsIndexInput implements IndexInput {
  readonly name: string;
  readonly length: number;
  private fd: number;

  constructor(name: string, fd: number, length: number) {
    this.name = name;
    this.fd = fd;
    this.length = length;
  }

  read(offset: number, length: number): Uint8Array {
    if (offset < 0 || offset + length > this.length) {
      throw new RangeError(`read past end of ${this.name}: ${offset}+${length} > ${this.length}`);
    }
    const out = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, out, done, length - done, offset + done);
      if (n === 0) throw new RangeError(`unexpected end of ${this.name} at ${offset + done}`);
      done += n;
    }
    return out;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
