import type { Directory, IndexInput, IndexOutput } from '../../src/index/store/directory.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';

/**
 * A directory wrapper that injects I/O errors (Lucene's MockDirectoryWrapper idea). Every
 * mutating call is one operation; `failAt(n)` makes operation n throw. In `crash` mode every
 * later operation throws too (the process is "dead"); then `crashed()` gives the directory a
 * restarted process would find (unsynced data dropped).
 */
export class FaultyDirectory implements Directory {
  readonly inner: MemoryDirectory;
  operations = 0;
  private failAtOperation = Infinity;
  private mode: 'error' | 'crash' = 'error';
  private dead = false;

  constructor(inner = new MemoryDirectory()) {
    this.inner = inner;
  }

  get path(): string {
    return this.inner.path;
  }

  failAt(operation: number, mode: 'error' | 'crash'): void {
    this.failAtOperation = operation;
    this.mode = mode;
  }

  /** Stops injecting errors (space is back, the disk is healthy again). */
  heal(): void {
    this.failAtOperation = Infinity;
    this.dead = false;
  }

  get isDead(): boolean {
    return this.dead;
  }

  crashed(random?: () => number): MemoryDirectory {
    return this.inner.crash(random);
  }

  private step(what: string): void {
    if (this.dead) throw new Error(`injected crash: process is dead (${what})`);
    this.operations++;
    if (this.operations >= this.failAtOperation) {
      if (this.mode === 'crash') this.dead = true;
      else this.failAtOperation = Infinity;
      const error = new Error(
        `injected I/O error at operation ${this.operations} (${what})`,
      ) as NodeJS.ErrnoException;
      error.code = 'EIO';
      throw error;
    }
  }

  listAll(): string[] {
    return this.inner.listAll();
  }
  fileExists(name: string): boolean {
    return this.inner.fileExists(name);
  }
  fileLength(name: string): number {
    return this.inner.fileLength(name);
  }
  createOutput(name: string): IndexOutput {
    this.step(`create ${name}`);
    const out = this.inner.createOutput(name);
    return {
      name,
      get position() {
        return out.position;
      },
      write: (bytes: Uint8Array) => {
        this.step(`write ${name}`);
        out.write(bytes);
      },
      close: () => {
        out.close();
      },
    };
  }
  openInput(name: string): IndexInput {
    return this.inner.openInput(name);
  }
  readFile(name: string): Uint8Array {
    return this.inner.readFile(name);
  }
  async sync(names: string[]): Promise<void> {
    this.step(`sync ${names.join(',')}`);
    await this.inner.sync(names);
  }
  async syncDirectory(): Promise<void> {
    this.step('sync directory');
    await this.inner.syncDirectory();
  }
  rename(from: string, to: string): void {
    this.step(`rename ${from} ${to}`);
    this.inner.rename(from, to);
  }
  deleteFile(name: string): void {
    this.step(`delete ${name}`);
    this.inner.deleteFile(name);
  }
  linkTo(name: string, target: Directory): void {
    this.step(`link ${name}`);
    this.inner.linkTo(name, target instanceof FaultyDirectory ? target.inner : target);
  }
  copyFrom(source: Directory, name: string): void {
    this.step(`copy ${name}`);
    this.inner.copyFrom(source, name);
  }
}
