import { GenerationReader } from '../index/generation/generation-reader.js';
import { KilledBits } from '../index/generation/killed-bits.js';
import { LiveGeneration } from '../index/generation/live-generation.js';
import { readManifest, type Manifest } from '../index/manifest.js';
import { Searcher, type PointInTime } from '../index/searcher.js';
import { FsDirectory } from '../index/store/fs-directory.js';
import { ReplicaIndex } from '../replication/replica-index.js';
import type { CollectionMode } from './replication-settings.js';

/**
 * The last commit of a stopped collection's `live/` folder, opened for searches only: what a
 * collection with `push.run=false` serves. Nothing writes the folder while the collection
 * does not run (no journal, commits or merges), so the manifest read at open stays valid;
 * the readers are opened to share, as the running index's are, so searches run on the
 * search threads. Closed when the collection starts again.
 */
export class FrozenIndex {
  private readonly pointInTime: PointInTime;
  private closed = false;

  private constructor(
    readonly manifest: Manifest | null,
    generations: LiveGeneration[],
  ) {
    this.pointInTime = { manifestNumber: manifest?.number ?? 0, generations, files: [], references: 1 };
  }

  /** Opens the manifest in `folder` and its generations (an empty index when none was committed). */
  static open(folder: string): FrozenIndex {
    const dir = new FsDirectory(folder);
    const manifest = readManifest(dir);
    const generations: LiveGeneration[] = [];
    try {
      for (const entry of manifest?.generations ?? []) {
        const reader = GenerationReader.open(dir, entry.generation, { share: true });
        try {
          const killed =
            entry.killedFile === null ? null : KilledBits.read(dir, entry.killedFile, reader.maxDoc);
          generations.push(new LiveGeneration(reader, killed, entry.killedFile));
        } catch (error) {
          reader.close();
          throw error;
        }
      }
    } catch (error) {
      for (const generation of generations) generation.reader.close();
      throw error;
    }
    return new FrozenIndex(manifest, generations);
  }

  /** A searcher of the frozen state; release it. */
  acquireSearcher(): Searcher {
    this.pointInTime.references++;
    return new Searcher(this.pointInTime, (released) => this.release(released));
  }

  /** Closes the readers once no searcher holds them. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.release(this.pointInTime);
  }

  private release(pointInTime: PointInTime): void {
    if (--pointInTime.references > 0) return;
    for (const generation of pointInTime.generations) generation.reader.close();
  }
}

/**
 * What a collection with `push.run=false` searches: its last state, opened read-only at the
 * first search and kept until the collection runs again: an admin's last commit in live/
 * ({@link FrozenIndex}), a query processor's last installed state (its replica folder).
 */
export class FrozenState {
  private opened: { index: FrozenIndex | ReplicaIndex; manifest: Manifest | null } | undefined;

  /**
   * @param liveFolder an admin's `live/`.
   * @param replicaFolder a query processor's `data/{c}/replica/`.
   */
  constructor(
    private readonly liveFolder: string,
    private readonly replicaFolder: string,
  ) {}

  /** The manifest of the open state (null: nothing committed); undefined when none is open. */
  get manifest(): Manifest | null | undefined {
    return this.opened?.manifest;
  }

  /** A searcher of the frozen state, opening it (as `mode` says) when it is not open. */
  acquireSearcher(mode: CollectionMode): Searcher {
    if (this.opened === undefined) {
      if (mode === 'SLAVE') {
        const replica = ReplicaIndex.open(this.replicaFolder);
        this.opened = { index: replica, manifest: replica.manifest };
      } else {
        const index = FrozenIndex.open(this.liveFolder);
        this.opened = { index, manifest: index.manifest };
      }
    }
    return this.opened.index.acquireSearcher();
  }

  /** Closes the open state (searchers still held keep their readers until released). */
  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened === undefined) return;
    if (opened.index instanceof ReplicaIndex) await opened.index.close();
    else opened.index.close();
  }
}
