import { isMainThread } from 'node:worker_threads';
import type { DirectoryDescription, IndexOutput } from '../../src/index/store/directory.js';
import { FsDirectory } from '../../src/index/store/fs-directory.js';

interface Options {
  path: string;
  /** Two Int32s: 1 while files created by worker threads hang (0 otherwise), and how many threads are held. */
  gate: SharedArrayBuffer;
}

/**
 * A real folder whose file creations in worker threads can be made to hang, as on a disk that
 * stops answering: while {@link hang} is on, an indexing (or merge) thread that creates a
 * file blocks there, alive and silent, until {@link release}. The main thread is never held.
 * Described to worker threads as a `module` directory, so that they share the gate.
 */
export class StuckFsDirectory extends FsDirectory {
  private readonly gate: Int32Array;

  constructor(private readonly options: Options) {
    super(options.path);
    this.gate = new Int32Array(options.gate);
  }

  static create(path: string): StuckFsDirectory {
    return new StuckFsDirectory({ path, gate: new SharedArrayBuffer(8) });
  }

  override describe(): DirectoryDescription {
    return { kind: 'module', url: import.meta.url, options: this.options };
  }

  /** From now on, worker threads that create a file block there. */
  hang(): void {
    Atomics.store(this.gate, 0, 1);
  }

  /** Lets blocked worker threads go on (and later ones pass). */
  release(): void {
    Atomics.store(this.gate, 0, 0);
    Atomics.notify(this.gate, 0);
  }

  /** Worker threads held at this moment. */
  get held(): number {
    return Atomics.load(this.gate, 1);
  }

  override createOutput(name: string): IndexOutput {
    if (!isMainThread && Atomics.load(this.gate, 0) === 1) {
      Atomics.add(this.gate, 1, 1);
      while (Atomics.load(this.gate, 0) === 1) Atomics.wait(this.gate, 0, 1);
      Atomics.sub(this.gate, 1, 1);
    }
    return super.createOutput(name);
  }
}

/**
 * Worker side of {@link StuckFsDirectory.describe} (see openDescribedDirectory), which imports
 * this module by URL.
 * @public
 */
export function openDirectory(options: Options): StuckFsDirectory {
  return new StuckFsDirectory(options);
}
