import type { IndexStats } from '../index/index-stats.js';
import type { CollectionFailure, CollectionState } from './collection-lifecycle.js';
import type { RoleView } from './collection-role.js';
import type { CollectionRuntime } from './collection-runtime.js';
import type { VacuumProgress } from './collection-vacuum.js';
import type { ReplicaRuntime } from './replica-runtime.js';
import type { CollectionMode } from './replication-settings.js';

/** The state call's answer (`GET .../state`), also read by /ready and /metrics. */
export interface CollectionStateView {
  collection: string;
  state: CollectionState;
  /** DEFAULT (accepts changes) or SLAVE (a query processor); absent when the configuration does not parse. */
  mode?: CollectionMode;
  /** A query processor's master (`push.replication.master-url`). */
  master?: string;
  /** Why the collection is FAILED, or why it does not run (push.run=false). */
  reason?: string;
  file?: string;
  documents?: number;
  stagedChanges?: number;
  generations?: number;
  lastCommitTime?: string | null;
  mergesRunning?: number;
  vacuum?: VacuumProgress;
  stats?: IndexStats & { JournalAppends: number; JournalFsyncs: number; JournalLastFsyncMs: number };
}

/** What a collection is made of at the moment of a state call. */
export interface StateParts {
  collection: string;
  state: CollectionState;
  failure: CollectionFailure | undefined;
  role: RoleView;
  runtime: CollectionRuntime | undefined;
  replicaRuntime: ReplicaRuntime | undefined;
  vacuum: VacuumProgress | undefined;
}

/**
 * The state call's answer from a collection's parts: its role, the reason it FAILED, and
 * while RUNNING the counts of what it serves: an admin's index statistics and journal
 * counters, or a query processor's installed state.
 */
export function collectionStateView(parts: StateParts): CollectionStateView {
  const { state } = parts;
  const view: CollectionStateView = { collection: parts.collection, state, ...parts.role };
  if (parts.failure !== undefined) {
    view.reason = parts.failure.reason;
    if (parts.failure.file !== undefined) view.file = parts.failure.file;
  }
  const replica = parts.replicaRuntime?.replica;
  if (replica !== undefined && state === 'RUNNING') {
    const manifest = replica.manifest;
    view.documents = manifest?.generations.reduce((n, g) => n + g.docCount - g.killedCount, 0) ?? 0;
    view.generations = manifest?.generations.length ?? 0;
    view.lastCommitTime = manifest?.lastCommitTime ?? null;
  }
  const runtime = parts.runtime;
  if (runtime !== undefined && state === 'RUNNING') {
    const stats = runtime.index.stats();
    view.documents = stats.CurDocuments;
    view.stagedChanges = stats.CurStagedChanges;
    view.generations = stats.CurGenerations;
    view.lastCommitTime = stats.LastCommitTime;
    view.mergesRunning = stats.CurMergesRunning;
    view.stats = {
      ...stats,
      JournalAppends: runtime.journal.stats.appends,
      JournalFsyncs: runtime.journal.stats.fsyncs,
      JournalLastFsyncMs: runtime.journal.stats.lastFsyncMs,
    };
  }
  if (parts.vacuum !== undefined) view.vacuum = parts.vacuum;
  return view;
}
