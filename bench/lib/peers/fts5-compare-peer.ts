/**
 * SQLite FTS5 in the comparison: the {@link Fts5Peer} of the engine benchmark (its module
 * comment gives the settings) behind the {@link BenchPeer} interface.
 */
import { Fts5Peer } from '../fts5-peer.js';
import type { BenchQuery } from '../query-set.js';
import type { RfcPage } from '../rfc-corpus.js';
import type { BenchPeer, PeerOptions, PersistedSize } from './peer.js';

/** Pages per transaction while loading (what `fts5-peer.ts` measured as the best batch). */
const BATCH = 1000;

async function* pagesOf(batches: AsyncIterable<readonly RfcPage[]>): AsyncGenerator<RfcPage> {
  for await (const batch of batches) yield* batch;
}

/** SQLite FTS5 (better-sqlite3) behind the {@link BenchPeer} interface. */
export class Fts5ComparePeer implements BenchPeer {
  readonly name = 'fts5';
  readonly description =
    "better-sqlite3, one FTS5 table (key UNINDEXED, title, text), tokenizer 'unicode61 remove_diacritics 2' (no stemming), " +
    `WAL, a transaction per ${BATCH.toLocaleString('en-US')} pages; bm25() with title weight 2.5; a change is one INSERT committed with synchronous=FULL.`;
  readonly unsupported = {};
  readonly prefixMatching = false;
  readonly inMemory = false;

  private constructor(private readonly peer: Fts5Peer) {}

  /** A new, empty database in `options.dir`. */
  static create(options: PeerOptions): Fts5ComparePeer {
    return new Fts5ComparePeer(Fts5Peer.create(options.dir));
  }

  async indexAll(batches: AsyncIterable<readonly RfcPage[]>): Promise<void> {
    await this.peer.index(pagesOf(batches), BATCH);
  }

  settle(): Promise<void> {
    return Promise.resolve();
  }

  change(page: RfcPage): Promise<void> {
    // Durable, like our commit: the default synchronous=FULL of commitLatency.
    this.peer.commitLatency([page]);
    return Promise.resolve();
  }

  search(query: BenchQuery, k: number): string[] {
    return this.peer.search(query, k).map((hit) => hit.key);
  }

  persistedSize(): Promise<PersistedSize> {
    // The WAL copied into the database first, so that the size is the index alone.
    this.peer.checkpoint();
    return Promise.resolve({
      bytes: this.peer.diskBytes(),
      what: 'database file after a WAL checkpoint (title and text stored)',
    });
  }

  close(): Promise<void> {
    this.peer.close();
    return Promise.resolve();
  }
}
