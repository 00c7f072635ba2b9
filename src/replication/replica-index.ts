import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open, rename, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { SearchError } from '../errors.js';
import { generationOfFile } from '../index/generation/generation-files.js';
import { GenerationReader } from '../index/generation/generation-reader.js';
import { KilledBits } from '../index/generation/killed-bits.js';
import { LiveGeneration } from '../index/generation/live-generation.js';
import type { Manifest } from '../index/manifest.js';
import { Searcher, type PointInTime } from '../index/searcher.js';
import { FsDirectory } from '../index/store/fs-directory.js';
import { checkListing, type ReplicatedFile, type ReplicationListing } from './listing.js';

const STATE_FILE = 'state.json';
const STATE_TEMP = 'state.json.tmp';
const GENERATIONS = 'generations';
const KILLED = 'killed';
const STAGING = 'staging';

/** What `state.json` holds: the listing this query processor publishes, and when it installed it. */
interface ReplicaState {
  listing: ReplicationListing;
  installedAt: string;
}

/** A published state, pinned so that its files stay on disk (a query processor serving its own query processors). */
export interface PinnedReplicaState {
  listing: ReplicationListing;
  /** Where a file of the listing lives on this server. */
  path(file: ReplicatedFile): string;
  release(): void;
}

/**
 * The index of a query processor (a collection in mode SLAVE): the states its master
 * published, installed one after another, each searched exactly as the master searched it.
 *
 * Folder layout (`data/{collection}/replica/`):
 * - `state.json`: the installed listing (the master's manifest and its files' checksums).
 *   Written to a temp file, fsynced, renamed, folder fsynced: installing a state is this
 *   one rename, so a crash leaves the old state or the new one, whole.
 * - `generations/g{N}-{key}/gN.*`: a generation's files under their own names (the readers
 *   open them so), in a folder named by the generation number and a hash of the files'
 *   checksums. After a restore on the admin a generation number may come back with other
 *   content: it gets another folder, and the state being served is never touched.
 * - `killed/{sha256 prefix}-gN_D.del`: killed bits, named by content for the same reason.
 * - `staging/{sha256}`: downloads in progress (see the puller); kept across restarts so that
 *   a transfer resumes where it stopped.
 *
 * Generation readers are shared between states (a new commit opens only its new
 * generation), point-in-time searchers are reference counted like the admin's, and a file
 * is deleted once no installed or pinned state, and no searcher, needs it any more.
 */
export class ReplicaIndex {
  readonly folder: string;
  private state: ReplicaState | null;
  private current: PointInTime;
  /** Listing of each point in time handed out (for pins). */
  private readonly listingOf = new WeakMap<PointInTime, ReplicationListing>();
  private readonly readers = new Map<string, { reader: GenerationReader; references: number }>();
  private readonly fileReferences = new Map<string, number>();
  private updater: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(listing: ReplicationListing) => void>();
  private closed = false;

  private constructor(folder: string, state: ReplicaState | null) {
    this.folder = folder;
    this.state = state;
    this.current = { manifestNumber: 0, generations: [], files: [], references: 1 };
  }

  /**
   * Opens the replica folder (created when missing): reads `state.json`, opens the readers
   * of its generations (verifying every file's checksum) and deletes installed files that
   * the state does not need (left by a crash between downloading and publishing).
   */
  static open(folder: string): ReplicaIndex {
    mkdirSync(join(folder, STAGING), { recursive: true });
    mkdirSync(join(folder, GENERATIONS), { recursive: true });
    mkdirSync(join(folder, KILLED), { recursive: true });
    rmSync(join(folder, STATE_TEMP), { force: true });
    const file = join(folder, STATE_FILE);
    let state: ReplicaState | null = null;
    if (existsSync(file)) {
      try {
        const parsed = JSON.parse(readFileSync(file, 'utf8')) as ReplicaState;
        state = { listing: checkListing(parsed.listing), installedAt: parsed.installedAt };
      } catch (error) {
        throw new SearchError('INDEX_CORRUPT', `${file} is damaged: ${(error as Error).message}`, {
          cause: error,
          details: { file },
        });
      }
    }
    const index = new ReplicaIndex(folder, state);
    if (state !== null) {
      index.current = index.openPointInTime(state.listing);
      index.listingOf.set(index.current, state.listing);
      for (const path of index.current.files) index.reference(path);
    }
    index.removeUnreferenced();
    return index;
  }

  /** The installed listing; null before the first sync. */
  get listing(): ReplicationListing | null {
    return this.state?.listing ?? null;
  }

  /** The installed manifest (the master's); null before the first sync. */
  get manifest(): Manifest | null {
    return this.state?.listing.manifest ?? null;
  }

  get installedAt(): string | null {
    return this.state?.installedAt ?? null;
  }

  /** Folder of downloads in progress. */
  get stagingFolder(): string {
    return join(this.folder, STAGING);
  }

  /** Where a file of `listing` is installed on this server. */
  pathOf(listing: ReplicationListing, file: ReplicatedFile): string {
    if (file.name.endsWith('.del'))
      return join(this.folder, KILLED, `${file.sha256.slice(0, 16)}-${file.name}`);
    const generation = generationOfFile(file.name);
    if (generation === undefined)
      throw new SearchError('SYNC_LISTING_INVALID', `the master listed ${file.name}, which is no index file`);
    return join(this.folder, GENERATIONS, `g${generation}-${generationKey(listing, generation)}`, file.name);
  }

  /** True when the file is installed (whole: files are renamed into place only once verified). */
  hasFile(listing: ReplicationListing, file: ReplicatedFile): boolean {
    try {
      return statSync(this.pathOf(listing, file)).size === file.size;
    } catch {
      return false;
    }
  }

  /** A point-in-time searcher of the installed state (empty before the first sync). Release it. */
  acquireSearcher(): Searcher {
    this.ensureOpen();
    const pointInTime = this.current;
    pointInTime.references++;
    return new Searcher(pointInTime, (released) => this.releasePointInTime(released));
  }

  /** Pins the installed state for serving it to another query processor; null before the first sync. */
  pin(): PinnedReplicaState | null {
    this.ensureOpen();
    const pointInTime = this.current;
    const listing = this.listingOf.get(pointInTime);
    if (listing === undefined) return null;
    pointInTime.references++;
    let released = false;
    return {
      listing,
      path: (file) => this.pathOf(listing, file),
      release: () => {
        if (released) return;
        released = true;
        this.releasePointInTime(pointInTime);
      },
    };
  }

  /** Called after every install (also for the master side's long polls). */
  onInstall(listener: (listing: ReplicationListing) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Installs a listing whose every file is in place ({@link pathOf}, checksums verified by
   * the caller): opens the new generations (their codec checksums verified again),
   * publishes `state.json` atomically, then switches searchers to it. Throws, leaving the
   * installed state as it was, when a file is missing or unreadable.
   */
  install(listing: ReplicationListing): Promise<void> {
    return this.serial(async () => {
      this.ensureOpen();
      if (this.state?.listing.id === listing.id) return;
      for (const file of listing.files) {
        if (!this.hasFile(listing, file))
          throw new SearchError('SYNC_FILE_MISSING', `cannot install: ${file.name} is not in place`);
      }
      const next = this.openPointInTime(listing);
      // Referenced before the first await: a searcher of an older state that shares a file
      // and is released meanwhile must not delete it under the state being installed.
      for (const path of next.files) this.reference(path);
      try {
        // The renamed-in files' directory entries, then the state that names them.
        const folders = new Set(listing.files.map((file) => dirname(this.pathOf(listing, file))));
        await Promise.all([...folders].map((folder) => syncFolder(folder)));
        await Promise.all([
          syncFolder(join(this.folder, GENERATIONS)),
          syncFolder(join(this.folder, KILLED)),
        ]);
        const state: ReplicaState = { listing, installedAt: new Date().toISOString() };
        await writeDurably(join(this.folder, STATE_TEMP), JSON.stringify(state));
        await rename(join(this.folder, STATE_TEMP), join(this.folder, STATE_FILE));
        await syncFolder(this.folder);
        this.state = state;
      } catch (error) {
        this.releasePointInTime(next);
        throw error;
      }
      const previous = this.current;
      this.listingOf.set(next, listing);
      this.current = next;
      this.releasePointInTime(previous);
      this.removeEmptyGenerationFolders();
      for (const listener of this.listeners) {
        try {
          listener(listing);
        } catch {
          // A listener's failure must not undo an install.
        }
      }
    });
  }

  /** Closes the readers once no searcher holds them; nothing is deleted afterwards. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.serial(async () => undefined);
    this.closed = true;
    this.releasePointInTime(this.current);
  }

  // ---------------------------------------------------------------------------------------

  /** Builds a point in time (references 1) over a listing's installed files, sharing open readers. */
  private openPointInTime(listing: ReplicationListing): PointInTime {
    const byName = new Map(listing.files.map((file) => [file.name, file]));
    const generations: LiveGeneration[] = [];
    const opened: string[] = [];
    try {
      for (const entry of listing.manifest.generations) {
        const genFile = byName.get(`g${entry.generation}.gen`);
        if (genFile === undefined)
          throw new SearchError('SYNC_LISTING_INVALID', `the listing lacks g${entry.generation}.gen`);
        const folder = dirname(this.pathOf(listing, genFile));
        const reader = this.acquireReader(folder, entry.generation);
        opened.push(folder);
        let killed: KilledBits | null = null;
        if (entry.killedFile !== null) {
          const file = byName.get(entry.killedFile)!;
          const path = this.pathOf(listing, file);
          killed = KilledBits.read(
            new FsDirectory(dirname(path)),
            path.slice(dirname(path).length + 1),
            reader.maxDoc,
          );
        }
        generations.push(new LiveGeneration(reader, killed, entry.killedFile));
      }
    } catch (error) {
      for (const folder of opened) this.releaseReader(folder);
      throw error;
    }
    return {
      manifestNumber: listing.manifest.number,
      generations,
      files: listing.files.map((file) => this.pathOf(listing, file)),
      references: 1,
    };
  }

  private acquireReader(folder: string, generation: number): GenerationReader {
    const known = this.readers.get(folder);
    if (known !== undefined) {
      known.references++;
      return known.reader;
    }
    // Opened to share: the search threads read the same memory (see GenerationReader.shared).
    const reader = GenerationReader.open(new FsDirectory(folder), generation, { share: true });
    readerFolders.set(reader, folder);
    this.readers.set(folder, { reader, references: 1 });
    return reader;
  }

  private releaseReader(folder: string): void {
    const entry = this.readers.get(folder);
    if (entry !== undefined && --entry.references === 0) {
      entry.reader.close();
      this.readers.delete(folder);
    }
  }

  private reference(path: string): void {
    this.fileReferences.set(path, (this.fileReferences.get(path) ?? 0) + 1);
  }

  private releasePointInTime(pointInTime: PointInTime): void {
    if (--pointInTime.references > 0) return;
    for (const generation of pointInTime.generations) this.releaseReader(readerFolder(generation));
    for (const path of pointInTime.files) {
      const count = (this.fileReferences.get(path) ?? 0) - 1;
      if (count > 0) this.fileReferences.set(path, count);
      else {
        this.fileReferences.delete(path);
        if (!this.closed) removeQuietly(path);
      }
    }
  }

  /** Deletes installed files and folders no reference needs (crash leftovers). */
  private removeUnreferenced(): void {
    const keepFolders = new Set([...this.fileReferences.keys()].map((path) => dirname(path)));
    for (const name of readdirSync(join(this.folder, GENERATIONS))) {
      const folder = join(this.folder, GENERATIONS, name);
      if (!keepFolders.has(folder)) {
        rmSync(folder, { recursive: true, force: true });
        continue;
      }
      for (const file of readdirSync(folder)) {
        if (!this.fileReferences.has(join(folder, file))) rmSync(join(folder, file), { force: true });
      }
    }
    for (const name of readdirSync(join(this.folder, KILLED))) {
      const path = join(this.folder, KILLED, name);
      if (!this.fileReferences.has(path)) rmSync(path, { force: true });
    }
  }

  /**
   * Generation folders whose files were all deleted. Only here, in the updater: the puller
   * creates folders and renames files into them between installs, never during one.
   */
  private removeEmptyGenerationFolders(): void {
    const root = join(this.folder, GENERATIONS);
    for (const name of readdirSync(root)) {
      const folder = join(root, name);
      try {
        if (readdirSync(folder).length === 0) rmSync(folder, { recursive: true });
      } catch {
        // Gone already, or not empty after all.
      }
    }
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.updater.then(work, work);
    this.updater = run.catch(() => undefined);
    return run;
  }

  private ensureOpen(): void {
    if (this.closed) throw new SearchError('INDEX_CLOSED', 'the replica index is closed');
  }
}

/** The folder each reader was opened from (readers do not keep it themselves). */
const readerFolders = new WeakMap<GenerationReader, string>();

function readerFolder(generation: LiveGeneration): string {
  return readerFolders.get(generation.reader)!;
}

/** Short hash of one generation's files (killed bits excluded): names its folder. */
function generationKey(listing: ReplicationListing, generation: number): string {
  const hash = createHash('sha256');
  const files = listing.files
    .filter((file) => !file.name.endsWith('.del') && generationOfFile(file.name) === generation)
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const file of files) hash.update(`${file.name} ${file.sha256}\n`);
  return hash.digest('hex').slice(0, 16);
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Left for the next open's removeUnreferenced().
  }
}

async function writeDurably(path: string, text: string): Promise<void> {
  await writeFile(path, text);
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync of a folder: makes renames into it durable. */
export async function syncFolder(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
