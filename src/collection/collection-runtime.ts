import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SearchError } from '../errors.js';
import type { StoredRecord } from '../index/document.js';
import type { SchemaOptions } from '../index/schema.js';
import { SearchIndex, type IndexEvent } from '../index/search-index.js';
import type { Directory } from '../index/store/directory.js';
import { FsDirectory } from '../index/store/fs-directory.js';
import { FileJournal } from '../journal/file-journal.js';
import type { Journal } from '../journal/journal.js';
import { decodeChange, type ChangeRecord } from './change-record.js';
import type { CollectionSettings } from './collection-settings.js';
import { indexSchemaFor, recordedSchemaOf, sameSchema } from './index-schema.js';
import type { ManifestMarker } from './manifest-marker.js';
import type { PushLog } from './push-log.js';
import type { SearchHome } from './search-home.js';
// Evidence (anchor text, clicks) lives with the search side but is kept per collection; see CollectionEvidence.
import { CollectionEvidence } from './evidence/collection-evidence.js';
import { evidenceOptionsFrom } from './evidence/evidence-options.js';
import { changeFromStored } from './stored-document.js';

/** Opens a collection's journal: the file journal in its folder, or another {@link Journal}. */
export type JournalOpener = (folder: string, options: { firstSeq: number }) => Promise<Journal>;

/** The file journal (`live/journal/`): what a collection uses unless told otherwise. */
export const openFileJournal: JournalOpener = (folder, options) => FileJournal.open(folder, options);

/** What a running collection holds; gone (undefined) while it is stopped. */
export interface CollectionRuntime {
  index: SearchIndex;
  journal: Journal;
  settings: CollectionSettings;
  /** Highest journal sequence number applied to the index buffer. */
  appliedSeq: number;
  /** Changes made durable but not yet applied, waiting for their turn (seq order). */
  waiting: Map<number, () => void>;
  /**
   * Set while the index's staged changes are staged again from the journal (an indexing
   * thread was replaced, see ChangeStager.restage): changes wait in `waiting` and commits
   * wait for it. Stays rejected when the journal could not be read: commits are then refused
   * until the collection is started again.
   */
  restaging: Promise<void> | undefined;
  /** How many times staged changes were dropped and staged again (a RE_INDEX that saw one must run again). */
  restages: number;
  autoCommitTimer: NodeJS.Timeout | undefined;
  /** Commits started and not finished (API with wait=false, auto-commit, RE_INDEX, evidence). */
  commitsInFlight: Set<Promise<unknown>>;
  /** Vacuums started with wait=false: stop() lets them end before the collection counts as stopped. */
  vacuumsInFlight: Set<Promise<unknown>>;
  /** Keys changed by clients while a RE_INDEX runs: it must not overwrite them. */
  reindexTouched: Set<string> | undefined;
  /** Anchor-text and click evidence: told which keys commits change, consulted on every put. */
  evidence: CollectionEvidence;
  /**
   * How the index analyses text: what its documents were indexed with (recorded in each
   * manifest), not collection.cfg's `indexer_options` of the moment, which a RE_INDEX applies.
   */
  schema: SchemaOptions;
}

/** What {@link startRuntime} needs from the collection it starts. */
export interface RuntimeStart {
  collection: string;
  home: SearchHome;
  log: PushLog;
  /** Read again at every start: files edited by hand apply at a stop and start. */
  settings: CollectionSettings;
  marker: ManifestMarker;
  openJournal: JournalOpener;
  guardWrite: () => void;
  onIndexEvent: (event: IndexEvent) => void;
  /** Stages a change on the runtime (replay, evidence re-staging); logs what cannot be indexed. */
  applyChange: (runtime: CollectionRuntime, change: ChangeRecord, origin: 'replay' | 'evidence') => void;
  /** Commits what is staged on the runtime (the evidence job's commits). */
  commit: (runtime: CollectionRuntime) => Promise<void>;
  /** The index's directory over `live/` (tests: one that injects faults); a plain folder by default. */
  indexDirectory?: (folder: string) => Directory;
}

/**
 * Opens a collection's runtime: the index in `live/` (with the analysis its documents were
 * indexed with), the journal, the evidence store; then either replays the journal's changes
 * after the index's last commit, or, when live/ was restored from a snapshot, discards them.
 * Fails (closing what it opened) when any part cannot open.
 */
export async function startRuntime(start: RuntimeStart): Promise<CollectionRuntime> {
  const { collection, home, log, settings } = start;
  let index: SearchIndex | undefined;
  let journal: Journal | undefined;
  try {
    const live = home.liveFolder(collection);
    mkdirSync(live, { recursive: true });
    index = await SearchIndex.open({
      directory: start.indexDirectory?.(live) ?? new FsDirectory(live),
      schema: indexSchemaFor(settings),
      maxGenerations: settings.config.maxGenerations,
      killedPercentageForReindex: settings.config.killedPercentageForReindex,
      mergeThreads: settings.config.workerThreadCount,
      indexThreads: settings.config.workerThreadCount,
      indexingTimeoutMs: settings.config.indexingTimeoutMs,
      keepStagedDocuments: true,
      createSnapshotOnMergeFailure: settings.config.createSnapshotOnMergeFailure,
      snapshotFolder: (name) => new FsDirectory(home.snapshotFolder(collection, name)),
      onEvent: start.onIndexEvent,
    });
    // The documents were indexed under the recorded analysis: queries and replayed changes
    // must use it too, until a RE_INDEX applies a changed indexer_options.
    const configured = indexSchemaFor(settings);
    const schema = recordedSchemaOf(index) ?? configured;
    if (!sameSchema(schema, configured)) {
      index.useSchema(schema);
      log.warn(
        { collection, indexed: schema, configured },
        'indexer_options differ from the analysis the index was built with; a RE_INDEX vacuum applies them',
      );
    }
    const journalFolder = home.journalFolder(collection);
    journal = await start.openJournal(journalFolder, { firstSeq: index.lastCommit.journalSeq + 1 });
    const openedIndex = index;
    // The host's restage and commit run only after the runtime below exists.
    const owner: { runtime?: CollectionRuntime } = {};
    // Opened before the replay below, so that replayed documents are mapped with their evidence.
    const evidence = CollectionEvidence.open({
      folder: join(home.collectionDataFolder(collection), 'evidence'),
      clickFolder: home.clickLogFolder(collection),
      collection,
      log,
      options: evidenceOptionsFrom(settings.config.extra, (message) => log.warn({ collection }, message)),
      host: {
        acquireSearcher: () => openedIndex.acquireSearcher(),
        stagedDocument: (key) => openedIndex.stagedDocument(key),
        lastManifest: () => openedIndex.lastCommit.manifest,
        guardWrite: start.guardWrite,
        ready: () => openedIndex.ready(),
        restage: (key: string, record: StoredRecord) =>
          start.applyChange(owner.runtime!, changeFromStored(key, record), 'evidence'),
        commit: () => start.commit(owner.runtime!),
      },
    });
    const runtime: CollectionRuntime = {
      index,
      journal,
      settings,
      appliedSeq: index.lastCommit.journalSeq,
      waiting: new Map(),
      restaging: undefined,
      restages: 0,
      autoCommitTimer: undefined,
      commitsInFlight: new Set(),
      vacuumsInFlight: new Set(),
      reindexTouched: undefined,
      evidence,
      schema,
    };
    owner.runtime = runtime;
    if (start.marker.isBehind(index.lastCommit.manifest)) {
      // A snapshot was copied over live/: the journal's changes belong to the replaced index.
      log.warn(
        { collection, manifest: index.lastCommit.manifest },
        'live index restored from a snapshot; staged changes discarded',
      );
      // Snapshots hold no evidence files: recompute anchor text for the restored documents.
      evidence.invalidate('the live index was restored from a snapshot');
      await index.commit({ journalSeq: journal.lastSeq });
      await journal.releaseThrough(journal.lastSeq);
      runtime.appliedSeq = journal.lastSeq;
    } else if (journal.lastSeq < index.lastCommit.journalSeq) {
      throw new SearchError(
        'JOURNAL_BEHIND',
        `the journal in ${journalFolder} ends before the index's last commit`,
      );
    } else {
      await journal.replay(index.lastCommit.journalSeq, (seq, payload) => {
        const change = decodeChange(payload);
        start.applyChange(runtime, change, 'replay');
        evidence.noteChanged(change.key);
        runtime.appliedSeq = seq;
      });
    }
    start.marker.write(index.lastCommit.manifest);
    // Now, not while opening: the first search after a start waits for the opening only.
    index.buildKeysInBackground();
    return runtime;
  } catch (error) {
    await index?.close().catch(() => undefined);
    await journal?.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Closes a runtime that is no longer its collection's (a stop): its auto-commit timer, then
 * the commits in flight let finish (what they commit stays), the evidence store (its job
 * may commit too), the index (running merges aborted, a MERGE vacuum among them), the
 * vacuums started without waiting, and last the journal. Nothing of it touches the
 * collection's folder once this resolves.
 */
export async function closeRuntime(runtime: CollectionRuntime): Promise<void> {
  if (runtime.autoCommitTimer !== undefined) clearTimeout(runtime.autoCommitTimer);
  await settleAll(runtime.commitsInFlight);
  // Evidence: stops its timers, waits for its job (which may commit), saves its files.
  await runtime.evidence.close();
  // Aborts running merges (a MERGE vacuum among them) and waits for them.
  await runtime.index.close();
  await settleAll(runtime.vacuumsInFlight);
  await runtime.journal.close();
}

/** Waits until every promise of a set (which may grow meanwhile) has settled. */
async function settleAll(work: Set<Promise<unknown>>): Promise<void> {
  while (work.size > 0) await Promise.allSettled([...work]);
}
