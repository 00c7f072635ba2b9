/**
 * A running collection's runtime without a PushCollection around it: a real index in a
 * temporary home, the in-memory journal, and the collection's own stager and commits, so
 * that each part of the collection is tested directly, in the order the test chooses.
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { ChangeRecord } from '../../src/collection/change-record.js';
import { ChangeStager } from '../../src/collection/change-stager.js';
import { CollectionCommits } from '../../src/collection/collection-commits.js';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { CollectionVacuum } from '../../src/collection/collection-vacuum.js';
import {
  closeRuntime,
  startRuntime,
  type CollectionRuntime,
  type RuntimeStart,
} from '../../src/collection/collection-runtime.js';
import { GenerationLogWriter } from '../../src/collection/generation-logs.js';
import { ManifestMarker } from '../../src/collection/manifest-marker.js';
import { LOG_LINE_FORMAT, silentPushLog, type PushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { documentView } from '../../src/collection/stored-document.js';
import { MemoryJournalStore } from '../../src/journal/memory-journal.js';

/** A push log whose lines a test reads. */
export function capturedLog(): { log: PushLog; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino(LOG_LINE_FORMAT, {
    write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { log, lines };
}

/** A temporary home with a manager; `remove()` deletes it. */
export function temporaryHome(): { home: SearchHome; manager: CollectionManager; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'pushsearch-parts-'));
  const home = new SearchHome(root);
  return {
    home,
    manager: new CollectionManager(home, silentPushLog()),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface RuntimeFixture {
  home: SearchHome;
  manager: CollectionManager;
  collection: string;
  store: MemoryJournalStore;
  runtime: CollectionRuntime;
  stager: ChangeStager;
  commits: CollectionCommits;
  /** The push log the parts write to. */
  log: PushLog;
  /** push.log lines written by the stager, commits and the runtime. */
  lines: Record<string, unknown>[];
  /** False after {@link RuntimeFixture.retire}: the runtime is no longer the collection's. */
  current: boolean;
  retire(): void;
  /** Closes the runtime as a stop does ({@link closeRuntime}, again if a test closed it) and removes the home. */
  close(): Promise<void>;
}

let count = 0;

/**
 * A new push collection (collection.cfg plus `cfg` lines; auto-commit by time off unless a
 * line sets it) and its runtime, started over an in-memory journal.
 */
export async function openRuntime(
  cfg: string[] = [],
  options: Pick<RuntimeStart, 'indexDirectory'> = {},
): Promise<RuntimeFixture> {
  const { home, manager, remove } = temporaryHome();
  const collection = `c${++count}`;
  manager.create(collection, 'push');
  appendFileSync(
    home.collectionConfigFile(collection),
    ['push.auto-commit.timeout-seconds=0', ...cfg].join('\n') + '\n',
  );
  const settings = manager.settings.reload(collection);
  const { log, lines } = capturedLog();
  const store = new MemoryJournalStore();
  const marker = new ManifestMarker(home, collection, log);
  const fixture = { current: true } as RuntimeFixture;
  const stager = new ChangeStager(collection, log, () => fixture.current);
  const commits = new CollectionCommits({
    collection,
    log,
    marker,
    generationLogs: new GenerationLogWriter(home, collection, log),
    isCurrent: () => fixture.current,
    restage: (runtime) => stager.restage(runtime),
  });
  const runtime = await startRuntime({
    collection,
    home,
    log,
    settings,
    marker,
    openJournal: store.open,
    guardWrite: () => {},
    onIndexEvent: () => {},
    applyChange: (runtime, change, origin) => stager.apply(runtime, change, origin),
    commit: async (runtime) => {
      await commits.commit(runtime);
    },
    ...options,
  });
  return Object.assign(fixture, {
    home,
    manager,
    collection,
    store,
    runtime,
    stager,
    commits,
    log,
    lines,
    retire: () => {
      fixture.current = false;
    },
    close: async () => {
      fixture.current = false;
      await closeRuntime(runtime);
      remove();
    },
  });
}

/** A plain-text put change. */
export function putChange(key: string, text: string): Extract<ChangeRecord, { op: 'put' }> {
  return {
    op: 'put',
    key,
    content: Buffer.from(text),
    contentType: 'text/plain',
    metadata: {},
    receivedTime: '2026-01-01T00:00:00Z',
    filters: undefined,
  };
}

/** The collection's vacuums over the fixture's stager and commits, wired as PushCollection wires them. */
export function vacuumOf(fixture: RuntimeFixture): CollectionVacuum {
  return new CollectionVacuum({
    collection: fixture.collection,
    log: fixture.log,
    reloadSettings: () => fixture.manager.settings.reload(fixture.collection),
    stager: fixture.stager,
    commits: fixture.commits,
    isCurrent: () => fixture.current,
  });
}

/** Stages a client's put the way PushCollection does: journal first, then the index in journal order. */
export async function stagePut(fixture: RuntimeFixture, key: string, text: string): Promise<void> {
  const change = putChange(key, text);
  const doc = fixture.stager.documentFor(fixture.runtime, change);
  await fixture.stager.appendAndApply(fixture.runtime, change, doc.stored, () =>
    fixture.runtime.index.put(doc),
  );
}

/** The text a committed or staged document was pushed with, as the push API's GET reads it. */
export function storedText(fixture: RuntimeFixture, key: string): string | null {
  const staged = fixture.runtime.index.stagedDocument(key);
  const searcher = fixture.runtime.index.acquireSearcher();
  try {
    const record = staged ?? searcher.getDocument(key)?.record ?? null;
    if (record === null) return null;
    const content = documentView(key, record, staged === undefined).pushContent.content;
    return Buffer.from(content, 'base64').toString('utf8');
  } finally {
    searcher.release();
  }
}
