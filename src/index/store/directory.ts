/**
 * The store knows bytes and file names, never generations (Lucene's `store` package,
 * tantivy's `Directory`). Everything above it writes through this contract:
 *
 * - A file is written once through an {@link IndexOutput} and never changed afterwards.
 *   Its bytes are durable only after {@link Directory.sync} named it; a crash before that
 *   may lose any part of it (tests simulate exactly that with `FaultyDirectory`).
 * - {@link Directory.rename} is atomic; it is durable only after {@link Directory.syncDirectory}.
 *   Publishing a manifest is therefore: write temp, sync it, rename, sync the directory.
 * - {@link Directory.deleteFile} of a missing file is not an error (cleanup is idempotent).
 * - Reads go through {@link IndexInput}: positional reads, so that many searchers can share
 *   one open file without seeking.
 */
export interface Directory {
  /** Absolute path of the folder, when it has one (worker threads reopen it by path). */
  readonly path: string;
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
