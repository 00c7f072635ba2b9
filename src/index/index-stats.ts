/**
 * The engine's statistics in one object (bleve/scorch style): `Tot*` are counters since
 * the index was opened, `Cur*` are gauges of now. The admin UI and /metrics show them.
 * A type rather than an interface: the state answer's `stats` schema is an open object, and
 * only object types are assignable to its index signature.
 */
export type IndexStats = {
  TotDocumentsPut: number;
  TotDocumentsDeleted: number;
  TotCommits: number;
  TotCommitFailures: number;
  TotFlushes: number;
  TotMergesDone: number;
  TotMergesFailed: number;
  TotSnapshots: number;
  /** Live documents of the last published manifest. */
  CurDocuments: number;
  /** Killed documents still in generations (until merges drop them). */
  CurKilled: number;
  CurGenerations: number;
  CurBytesOnDisk: number;
  CurMergesRunning: number;
  CurStagedChanges: number;
  CurManifest: number;
  LastCommitTime: string | null;
  LastMergeError: string | null;
};

export function emptyStats(): IndexStats {
  return {
    TotDocumentsPut: 0,
    TotDocumentsDeleted: 0,
    TotCommits: 0,
    TotCommitFailures: 0,
    TotFlushes: 0,
    TotMergesDone: 0,
    TotMergesFailed: 0,
    TotSnapshots: 0,
    CurDocuments: 0,
    CurKilled: 0,
    CurGenerations: 0,
    CurBytesOnDisk: 0,
    CurMergesRunning: 0,
    CurStagedChanges: 0,
    CurManifest: 0,
    LastCommitTime: null,
    LastMergeError: null,
  };
}
