/**
 * SQLite FTS5 (through better-sqlite3) as the peer our engine is measured against, set up the
 * way a careful user of FTS5 would for the same job:
 *
 * - One FTS5 table `pages(key UNINDEXED, title, text)` with `unicode61 remove_diacritics 2`
 *   (case folding and diacritic removal, like our default analyzer; no stemming, no stop words)
 *   and the default `detail=full`, which phrase queries need. FTS5 stores the columns too,
 *   as our engine stores documents.
 * - WAL journal and `synchronous=NORMAL` while loading: in WAL mode NORMAL syncs the WAL only
 *   at checkpoints, so a commit survives a crash of the process but not a power loss. That is
 *   the usual bulk-load setting, and charging FTS5 an fsync per batch would measure the disk
 *   rather than the index. {@link Fts5Peer.commitLatency} defaults to `synchronous=FULL`
 *   instead (fsync of the WAL on every commit), because our commits are durable when they
 *   return and the comparison must be like for like.
 * - Batched transactions (one per `batch` pages; 100 measured 25% slower than 1,000, 10,000 no
 *   faster) and a 64 MiB page cache (loading measured within noise of the default 2 MiB one).
 *   FTS5's merge settings (automerge, crisismerge, pgsz) stay at their defaults: changing them
 *   moved nothing beyond noise.
 * - Ranking: `bm25(pages, 0, 2.5, 1.0)`, the title weighted 2.5 against the text, like our
 *   BM25F title weight; the key column is unindexed and gets weight 0. The query orders by
 *   the bm25() expression: `ORDER BY rank` with the same weights configured measured about
 *   1.7x slower on "the".
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteUnavailable } from './sqlite-available.js';
import { dirSize } from './measure.js';
import type { BenchQuery } from './query-set.js';
import type { RfcPage } from './rfc-corpus.js';

/** The database file inside the peer's folder. */
const DB_FILE = 'fts5.db';

/** Weights of bm25(): key (unindexed), title, text. */
const BM25_WEIGHTS = '0.0, 2.5, 1.0';

/** Page cache size in KiB (SQLite reads a negative `cache_size` as KiB). */
const CACHE_KIB = 64 * 1024;

/** One result: the page key and its score (higher is better, i.e. the negated FTS5 bm25). */
export interface Fts5Hit {
  key: string;
  score: number;
}

/** What {@link Fts5Peer.index} did. */
export interface Fts5IndexStats {
  docs: number;
  /** Wall time including reading `pages` when it is a stream. */
  ms: number;
}

/** How {@link Fts5Peer.commitLatency} commits. */
export interface Fts5CommitOptions {
  /** `FULL` (default) fsyncs the WAL at the commit, like a durable commit of ours; `NORMAL` does not. */
  synchronous?: 'FULL' | 'NORMAL';
}

/** Quotes one term as an FTS5 string, so that no word (AND, NEAR, a `-` or `:`) is read as syntax. */
function quote(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/**
 * The FTS5 MATCH expression of a benchmark query: `"a" AND "b"`, `"a" OR "b"`, the phrase
 * `"a b c"`, or one quoted term. Every term is quoted, so the query is never a syntax error.
 */
export function toFts5Match(query: BenchQuery): string {
  if (query.terms.length === 0) throw new Error(`a ${query.class} query needs at least one term`);
  switch (query.class) {
    case 'phrase':
      return quote(query.terms.join(' '));
    case 'or':
      return query.terms.map(quote).join(' OR ');
    case 'and':
    case 'single':
    case 'single-common':
      return query.terms.map(quote).join(' AND ');
  }
}

/** An FTS5 index of RFC pages in one folder (see the module comment for its settings). */
export class Fts5Peer {
  readonly folder: string;
  private readonly db: Database.Database;
  private readonly insertStatement: Database.Statement<[string, string, string]>;
  private readonly searchStatement: Database.Statement<[string, number], Fts5Hit>;
  private readonly countStatement: Database.Statement<[string], { n: number }>;
  private readonly countUpToStatement: Database.Statement<[string, number], { n: number }>;
  private readonly insertMany: (pages: readonly RfcPage[]) => void;

  private constructor(folder: string, db: Database.Database) {
    this.folder = folder;
    this.db = db;
    this.insertStatement = db.prepare('INSERT INTO pages(key, title, text) VALUES (?, ?, ?)');
    this.searchStatement = db.prepare(
      `SELECT key, -bm25(pages, ${BM25_WEIGHTS}) AS score FROM pages WHERE pages MATCH ? ` +
        `ORDER BY bm25(pages, ${BM25_WEIGHTS}) LIMIT ?`,
    );
    this.countStatement = db.prepare('SELECT count(*) AS n FROM pages WHERE pages MATCH ?');
    // The LIMIT inside stops FTS5's scan at the limit-th match.
    this.countUpToStatement = db.prepare(
      'SELECT count(*) AS n FROM (SELECT rowid FROM pages WHERE pages MATCH ? LIMIT ?)',
    );
    this.insertMany = db.transaction((pages: readonly RfcPage[]) => {
      for (const page of pages) this.insertStatement.run(page.key, page.title, page.text);
    });
  }

  /** The index an earlier {@link create} built in `folder` (benchmarks that build once and reuse it). */
  static open(folder: string): Fts5Peer {
    const db = new Database(join(folder, DB_FILE), { fileMustExist: true });
    db.pragma(`cache_size = -${CACHE_KIB}`);
    return new Fts5Peer(folder, db);
  }

  /**
   * A new, empty index in `folder` (created if needed). An index already there (`fts5.db` and
   * its WAL) is deleted first: benchmarks start from scratch.
   */
  static create(folder: string): Fts5Peer {
    const unavailable = sqliteUnavailable();
    if (unavailable !== undefined) throw new Error(`the FTS5 peer cannot run: ${unavailable}`);
    mkdirSync(folder, { recursive: true });
    for (const suffix of ['', '-wal', '-shm', '-journal'])
      rmSync(join(folder, DB_FILE + suffix), { force: true });
    const db = new Database(join(folder, DB_FILE));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`cache_size = -${CACHE_KIB}`);
    db.exec(
      `CREATE VIRTUAL TABLE pages USING fts5(key UNINDEXED, title, text, ` +
        `tokenize = 'unicode61 remove_diacritics 2')`,
    );
    return new Fts5Peer(folder, db);
  }

  /**
   * Adds the pages (a stream or an array), one transaction per `batch` pages. Keys are not
   * checked for uniqueness (FTS5 has no unique constraint): pass new pages only.
   */
  async index(pages: AsyncIterable<RfcPage> | Iterable<RfcPage>, batch = 1000): Promise<Fts5IndexStats> {
    if (!(batch >= 1)) throw new RangeError(`batch must be at least 1, got ${batch}`);
    const start = performance.now();
    let docs = 0;
    let pending: RfcPage[] = [];
    const add = (page: RfcPage): void => {
      pending.push(page);
      if (pending.length >= batch) {
        this.insertMany(pending);
        docs += pending.length;
        pending = [];
      }
    };
    if (Symbol.asyncIterator in pages) {
      for await (const page of pages) add(page);
    } else {
      for (const page of pages) add(page);
    }
    if (pending.length > 0) {
      this.insertMany(pending);
      docs += pending.length;
    }
    return { docs, ms: performance.now() - start };
  }

  /** The top `k` pages for the query by weighted bm25, best first. */
  search(query: BenchQuery, k = 10): Fts5Hit[] {
    return this.searchStatement.all(toFts5Match(query), k);
  }

  /** {@link search} with an FTS5 MATCH expression of the caller's (operators FTS5 has and the query set lacks). */
  searchMatch(match: string, k = 10): Fts5Hit[] {
    return this.searchStatement.all(match, k);
  }

  /** {@link countUpTo} with an FTS5 MATCH expression. */
  countMatchUpTo(match: string, limit: number): number {
    return this.countUpToStatement.get(match, limit)?.n ?? 0;
  }

  /** How many pages match the query (all of them, not only the top k). */
  count(query: BenchQuery): number {
    return this.countStatement.get(toFts5Match(query))?.n ?? 0;
  }

  /** How many pages match the query, counting no further than `limit` (what an engine that counts exactly up to a threshold does). */
  countUpTo(query: BenchQuery, limit: number): number {
    return this.countUpToStatement.get(toFts5Match(query), limit)?.n ?? 0;
  }

  /**
   * Milliseconds to insert `pages` into the index as it is and commit them in one transaction
   * (the cost of a commit of new documents into a large index). The pages must have keys not
   * yet in the index. Durable (`synchronous=FULL`) unless told otherwise; the bulk-load setting
   * is restored afterwards.
   */
  commitLatency(pages: readonly RfcPage[], options: Fts5CommitOptions = {}): number {
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    try {
      const start = performance.now();
      this.insertMany(pages);
      return performance.now() - start;
    } finally {
      this.db.pragma('synchronous = NORMAL');
    }
  }

  /** Merges all of FTS5's b-trees into one (its `optimize` command), as after a full merge. */
  optimize(): void {
    this.db.exec(`INSERT INTO pages(pages) VALUES ('optimize')`);
  }

  /** Copies the WAL into the database file and empties it, so that {@link diskBytes} is the index alone. */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Number of pages in the index. */
  docCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM pages').get() as { n: number }).n;
  }

  /** Bytes on disk of the peer's folder: database, WAL and shared-memory files. */
  diskBytes(): number {
    return dirSize(this.folder);
  }

  /** Closes the database (the files stay). */
  close(): void {
    this.db.close();
  }
}
