/**
 * What the comparative benchmark (`bench/compare.ts`) asks of each search library it runs:
 * index a stream of RFC pages, take one more page in the built index, answer the benchmark
 * queries with the top k keys, and say how big its persisted form is. Each library has its
 * own module beside this one that sets it up the way its documentation shows.
 */
import type { BenchQuery, QueryClass } from '../query-set.js';
import type { RfcPage } from '../rfc-corpus.js';

/** The libraries the comparison knows, in the order it reports them (ours first). */
export const PEER_NAMES = ['ours', 'fts5', 'minisearch', 'orama', 'flexsearch'] as const;

/** One of {@link PEER_NAMES}. */
export type PeerName = (typeof PEER_NAMES)[number];

/** Whether `name` is one of {@link PEER_NAMES}. */
export function isPeerName(name: string): name is PeerName {
  return (PEER_NAMES as readonly string[]).includes(name);
}

/** A measurement a peer cannot give, and why (printed as "n/a" with the reason in the notes). */
export interface NotApplicable {
  na: string;
}

/** The persisted size of an index: bytes, and what was measured. */
export interface PersistedSize {
  bytes: number;
  /** E.g. "index folder" or "JSON.stringify(miniSearch)". */
  what: string;
}

/** How a peer is built, for the report's notes. */
export interface PeerSetup {
  /** A line or two: options, ranking, what it stores. */
  description: string;
  /** Query classes it has no documented way to answer, with the reason. */
  unsupported: Partial<Record<QueryClass, string>>;
  /** True when a query word also matches longer words that start with it (Orama's default). */
  prefixMatching: boolean;
  /** True when the index lives in memory only (the process holds all of it). */
  inMemory: boolean;
}

/** Options every peer is created with. */
export interface PeerOptions {
  /** A folder the peer may use (disk-based peers keep their index here). */
  dir: string;
  /** Stem English words (ours only; no peer stems by default, so the default is off). */
  stem: boolean;
}

/** A search library under test, built and queried in one process. */
export interface BenchPeer extends PeerSetup {
  readonly name: PeerName;
  /** Indexes every page of the stream; the index answers queries on all of them when this resolves. */
  indexAll(batches: AsyncIterable<readonly RfcPage[]>): Promise<void>;
  /** Waits for background work (our merges) so that it does not run during timed queries. */
  settle(): Promise<void>;
  /** Adds one page to the built index and makes it searchable (for us: put, commit, new searcher). */
  change(page: RfcPage): Promise<void>;
  /** The keys of the top `k` pages for the query, best first. Synchronous, so that it can be timed. */
  search(query: BenchQuery, k: number): string[];
  /** The size of the index as persisted (files, or the library's documented export). */
  persistedSize(): Promise<PersistedSize | NotApplicable>;
  close(): Promise<void>;
}
