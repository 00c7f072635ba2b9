/**
 * What one run of one peer measured (a child process of `bench/compare.ts` reports it in
 * parts, so that a crash late in the run keeps what was measured before), and how a run that
 * did not finish failed.
 */
import type { QueryClass } from '../query-set.js';
import type { HitCheck } from './check-hits.js';
import type { NotApplicable, PeerName, PeerSetup, PersistedSize } from './peer.js';

/** Latency of one query class over all its queries and runs, in milliseconds. */
export interface ClassLatency {
  median: number;
  /** Nearest-rank 99th percentile of every sample of the class. */
  p99: number;
  samples: number;
}

/** The steps of a run, in order; a failure names the step it happened in. */
export type RunPhase = 'starting' | 'indexing' | 'settling' | 'change' | 'queries' | 'export' | 'closing';

/** Everything a finished run measured. */
export interface PeerRun {
  peer: PeerName;
  setup: PeerSetup;
  /** Pages indexed (the corpus or its first `--limit` pages). */
  docs: number;
  /** Wall time to index them, reading the corpus included, until they are searchable. */
  indexMs: number;
  /** Wall time of background work after indexing (our merges); 0 for the others. */
  settleMs: number;
  /** RSS after indexing, after a full GC, index open. */
  rssAfterIndexBytes: number;
  /** Per round: adding one page to the built index until a query finds it. */
  changeMs: number[];
  /** Per round: whether that query found the new page in its top 10. */
  changeFound: boolean[];
  queries: Record<QueryClass, ClassLatency | NotApplicable>;
  /** Query label (`queryLabel`) → the keys of its top 10 (from the first timed run). */
  topKeys: Record<string, string[]>;
  /** RSS after the queries, after a full GC. */
  rssServingBytes: number;
  persisted: PersistedSize | NotApplicable;
  /** Added by the parent: whether the top-10 hits have the query words (`check-hits.ts`). */
  hitCheck?: HitCheck;
  /** Runs this is the median of (`median-run.ts`); absent: 1. */
  runs?: number;
}

/** How a run ended early. */
export interface RunFailure {
  phase: RunPhase;
  /** Pages indexed when it failed (the last progress the child reported). */
  atDocs: number;
  /** The heap limit was reached (V8's "heap out of memory"), or the system killed the process. */
  outOfMemory: boolean;
  /** One line: the error, signal or timeout. */
  reason: string;
}

/** One child process: the size asked for, what it reported, and how it failed if it did. */
export interface PeerAttempt {
  peer: PeerName;
  /** `--limit` given to the child; undefined: the whole corpus. */
  limit: number | undefined;
  run: Partial<PeerRun>;
  failure?: RunFailure;
  wallMs: number;
}

/** Whether a partial run has every measurement that the report's main rows need. */
export function isComplete(run: Partial<PeerRun>): run is PeerRun {
  return (
    run.docs !== undefined &&
    run.indexMs !== undefined &&
    run.queries !== undefined &&
    run.rssServingBytes !== undefined &&
    run.changeMs !== undefined
  );
}
