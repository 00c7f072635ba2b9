/**
 * The store knows bytes and file names, never generations (Lucene's `store` package,
 * tantivy's `Directory`). Everything above it writes through this contract:
 *
 * - A file is written once through an {@link IndexOutput} and never changed afterwards.
 *   Its bytes are durable only after {@link Directory.sync} named it; a crash before that
 *   may lose or garble any part of it (tests simulate exactly that: `FaultyDirectory` in memory,
 *   `FaultyFsDirectory` on disk, in every thread; see test/support/).
 * - {@link Directory.rename} is atomic; it is durable only after {@link Directory.syncDirectory}.
 *   Publishing a manifest is therefore: write temp, sync it, rename, sync the directory.
 * - {@link Directory.deleteFile} of a missing file is not an error (cleanup is idempotent).
 * - Reads go through {@link IndexInput}: positional reads, so that many searchers can share
 *   one open file without seeking.
 */
export interface Directory {
  /** Absolute path of the folder, when it has one. */
  readonly path: string;
  /**
   * How a worker thread rebuilds this directory (indexing and merge workers write through
   * it); absent when it cannot be shared with another thread (in memory): the index then
   * indexes and merges on the calling thread.
   */
  describe?(): DirectoryDescription;
  listAll(): string[];
  fileExists(name: string): boolean;
  fileLength(name: string): number;
  createOutput(name: string): IndexOutput;
  openInput(name: string): IndexInput;
  /** Reads a whole (small) file. */
  readFile(name: string): Uint8Array;
  /** Makes the named files' contents durable (async: fsync runs off the event loop). */
  sync(names: string[]): Promise<void>;
  /** Makes renames, creations and deletions in this folder durable. */
  syncDirectory(): Promise<void>;
  rename(from: string, to: string): void;
  deleteFile(name: string): void;
  /** Hard-links `name` into `target` under the same name (snapshots). */
  linkTo(name: string, target: Directory): void;
  /**
   * Copies `name` of `source` into this folder, replacing a file of that name (restore). A
   * crash leaves the old file or the new one under the name, and at worst a file ending in
   * {@link COPY_TEMP_SUFFIX}, which the index removes at open.
   */
  copyFrom(source: Directory, name: string): void;
}

/** Suffix of a file being copied in by {@link Directory.copyFrom}. */
export const COPY_TEMP_SUFFIX = '.copying';

/** Sequential writer of one new file. */
export interface IndexOutput {
  readonly name: string;
  /** Bytes written so far. */
  readonly position: number;
  write(bytes: Uint8Array): void;
  close(): void;
}

/** Positional reader of one file. Thread-compatible: no shared cursor. */
export interface IndexInput {
  readonly name: string;
  readonly length: number;
  /** Reads `length` bytes at `offset` into a new array. */
  read(offset: number, length: number): Uint8Array;
  close(): void;
}

/**
 * How a worker thread rebuilds the directory of the thread that started it: a Directory
 * object cannot cross the thread boundary, a plain description can (structured clone).
 *
 * - `fs`: a folder, opened as an {@link FsDirectory} (production).
 * - `module`: the directory is built by `openDirectory(options)` exported by the ES module at
 *   `url`. This is how tests put worker threads under the same fault injection as the main
 *   thread (test/support/faulty-fs-directory.ts): the production path never loads that
 *   module, so it pays nothing for it; `options` carries what the threads share (paths,
 *   `SharedArrayBuffer`s).
 */
export type DirectoryDescription =
  { kind: 'fs'; path: string } | { kind: 'module'; url: string; options: unknown };

/** What a worker writes through: a directory whose fsync may block (nobody waits on a worker's event loop). */
export interface WorkerDirectory extends Directory {
  /** Synchronous fsync of files. */
  syncNow(names: string[]): void;
}
