import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DocumentEvidence } from '../document-mapper.js';
import { canonicalizeKey } from '../key.js';
import type { PushLog } from '../push-log.js';
import { STORED } from '../stored-fields.js';
import type { StoredRecord } from '../../index/document.js';
import type { Searcher } from '../../index/searcher.js';
import { ANCHOR_FIELD, CLICK_FIELD, CLICK_SCORE_FIELD, EVIDENCE_STORED_FIELD } from './click-evidence.js';
import { anchorFieldValues, linksOfStored } from './anchor-text.js';
import { ClickLogFiles } from './click-log-files.js';
import { ClickStore, normalizeClickQuery, type ClickStoreData } from './click-store.js';
import { EvidenceFileError, readEvidenceFile, writeEvidenceFile } from './evidence-file.js';
import type { EvidenceOptions } from './evidence-options.js';
import { LinkGraph, type LinkGraphData } from './link-graph.js';

/**
 * What the evidence store needs from its collection. Re-indexed documents are staged in
 * the index without a journal record: evidence is derived data, recomputed after a crash.
 */
export interface EvidenceHost {
  /** A searcher of the committed index (released by the caller). */
  acquireSearcher(): Searcher;
  /** The staged state of a key: its record (put), null (delete), undefined (nothing staged). */
  stagedDocument(key: string): StoredRecord | null | undefined;
  /** Stages the document again from its stored record, filtered and mapped with today's evidence. */
  restage(key: string, record: StoredRecord): void;
  /** Resolves when the index can take more staged documents (indexing backpressure). */
  ready(): Promise<void>;
  /** Commits what is staged. */
  commit(): Promise<void>;
  /** Throws while writes are refused (upgrade preparation). */
  guardWrite(): void;
  /** Number of the index's last published manifest. */
  lastManifest(): number;
}

/** Result of bringing anchor text up to date. */
export interface EvidenceUpdate {
  /** Whether the link graph was rebuilt from every document (else: only changed ones were read). */
  rebuilt: boolean;
  /** Documents whose links were read. */
  documentsRead: number;
  /**
   * Of those, documents read back from the index (a rebuild's, and changed keys whose staged
   * record the store was not given: replayed changes, keys saved at the last stop); the
   * others took the links their change staged.
   */
  documentsReadBack: number;
  /** Documents indexed again with new evidence (and committed). */
  documentsUpdated: number;
}

/** Result of processing the click logs (the `click-logs` call's answer). */
export interface ClickProcessing {
  clicksProcessed: number;
  /** Lines that were not valid clicks (skipped). */
  badLines: number;
  documentsUpdated: number;
}

/** Counters for the state view and benchmarks. */
export interface EvidenceStats {
  linkSources: number;
  links: number;
  redirects: number;
  clickedDocuments: number;
  pendingDocuments: number;
  changedKeysWaiting: number;
  TotRebuilds: number;
  TotUpdates: number;
  TotDocumentsReindexed: number;
  TotClicksProcessed: number;
}

/** Queries kept in a document's `K` class, and repetitions of one query at most. */
export const MAX_CLICK_QUERIES = 30;
export const MAX_CLICK_QUERY_REPEAT = 5;
/** A query needs this much decayed weight to be indexed into `K` (two half-lives of one click). */
export const MIN_CLICK_QUERY_WEIGHT = 0.25;

const LINKS_FILE = 'links.json';
const CLICKS_FILE = 'clicks.json';
/**
 * Present while the store is open (a crash leaves it: the saved graph may miss committed
 * changes), and kept at a stop that leaves a rebuild to do, then holding
 * {@link LEFT_TO_DO} and the rebuild's reason.
 */
const OPEN_MARKER = 'OPEN';
const LEFT_TO_DO = 'rebuild left to do: ';
const LEFT_AT_STOP = 'a rebuild was left to do when the collection stopped';
const CLICKS_REFOLD_REASON = 'the click evidence is rebuilt';

/** Why a start finds the open marker: a stop that left a rebuild to do, else a crash. */
function markerReason(text: string): string {
  if (!text.startsWith(LEFT_TO_DO)) return 'the collection did not stop cleanly';
  const reason = text.slice(LEFT_TO_DO.length).trim();
  // Stopped again before the rebuild ran: the reason is already in this form.
  return reason.startsWith(LEFT_AT_STOP) ? reason : `${LEFT_AT_STOP} (${reason})`;
}

/** What a committed version of a document says about its links: a redirect, or its stored links (undefined: none, or deleted). */
interface LinkSource {
  redirect: string | undefined;
  storedLinks: unknown;
}

/** Keys changed, each with its link source, or UNKNOWN_SOURCE when it must be read back from the index. */
type ChangedKeys = Map<string, LinkSource>;

/** The link source of a key whose committed version the store was not given. */
const UNKNOWN_SOURCE: LinkSource = Object.freeze({ redirect: undefined, storedLinks: undefined });

/** The link source of a stored record (null: the document is deleted). */
function linkSourceOf(record: StoredRecord | null): LinkSource {
  if (record === null) return { redirect: undefined, storedLinks: undefined };
  const redirect = record[STORED.redirect];
  if (typeof redirect === 'string') return { redirect, storedLinks: undefined };
  return { redirect: undefined, storedLinks: record[STORED.links] };
}

const FILE_VERSION = 1;
/** Documents handled between two yields to the event loop (client requests run in between). */
const BATCH = 256;
const DAY_MS = 86_400_000;

interface LinksFileBody extends LinkGraphData {
  manifest: number;
  /** Committed keys whose links are not yet in the graph. */
  changed: string[];
  /** Documents whose evidence changed and that are not yet re-indexed. */
  pending: string[];
}

interface ClicksFileBody extends ClickStoreData {
  /** Pending click log → byte offset up to which its clicks are counted in these weights. */
  consumed: [string, number][];
  pending: string[];
}

/**
 * The ranking evidence of one push collection: anchor text (from the links between its
 * documents, redirects followed) and click evidence (from its click logs, decayed with age).
 *
 * **Files** (`data/{collection}/evidence/`, format in `evidence-file.ts`, written atomically):
 * `links.json` (the link graph, saved when the collection stops), `clicks.json` (decayed click
 * weights and which click-log lines they count, saved every time logs are processed), and
 * `OPEN` (present while the collection runs). Everything here is derived data: snapshots do
 * not include it, and it is recomputed (the link graph from every document, click weights
 * from the retained processed logs) whenever it cannot be trusted: after a crash (`OPEN`
 * left behind), a restore from a snapshot, a RE_INDEX, an unreadable file, or when the index
 * changed behind its back (a different manifest than when it was saved).
 *
 * **When it runs**: never on the PUT path. The collection tells it which keys each commit
 * changed, with the stored record each change staged (its links and redirect, so that the
 * update need not read the document back); `updateDelayMs` after a commit (commits in
 * between share the run) one job puts those documents' links into the graph (reading back
 * only keys whose record it was not given: replayed or saved ones), finds the targets whose
 * anchor text changed, stages them again
 * with the new `k` field and commits (unless a client has changes staged: those are never
 * made searchable by this commit; the documents then go live with the client's next commit).
 * Click logs are processed every `clickIntervalMs` and on demand. Jobs run one at a time, yield to the event loop every {@link BATCH} documents,
 * and re-index only documents whose evidence fingerprint differs from the one they were
 * indexed with. Every put consults the store ({@link documentEvidence}), so a client that
 * pushes a document again keeps its evidence.
 */
export class CollectionEvidence {
  private graph = new LinkGraph();
  private clicks: ClickStore;
  private readonly files: ClickLogFiles;
  /** Keys changed by clients since the last commit started, with what each change staged. */
  private staged: ChangedKeys = new Map();
  /** Keys of commits in flight, by batch: client changes, and documents the store staged again. */
  private readonly committing = new Map<number, { client: ChangedKeys; restaged: Set<string> }>();
  /** Documents the store staged again (not journaled) that no commit has taken yet: still pending. */
  private restaged = new Set<string>();
  /** Keys committed whose links are not yet in the graph, with what their committed change staged. */
  private readonly changed: ChangedKeys = new Map();
  /** Documents whose evidence may differ from what they were indexed with. */
  private readonly pending = new Set<string>();
  /** Pending click log → offset counted. */
  private readonly consumed = new Map<string, number>();
  /** Set when the link graph must be rebuilt from every document (the reason). */
  private rebuildReason: string | undefined;
  /** Set when the click weights must be rebuilt from the processed logs. */
  private refoldClicks = false;
  private chain: Promise<unknown> = Promise.resolve();
  private updateTimer: NodeJS.Timeout | undefined;
  private clickTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private started = false;
  private nextBatch = 0;
  private readonly counters = {
    TotRebuilds: 0,
    TotUpdates: 0,
    TotDocumentsReindexed: 0,
    TotClicksProcessed: 0,
  };

  private constructor(
    private readonly folder: string,
    clickFolder: string,
    private readonly collection: string,
    private readonly host: EvidenceHost,
    private readonly log: PushLog,
    private readonly options: EvidenceOptions,
  ) {
    this.files = new ClickLogFiles(clickFolder);
    this.clicks = new ClickStore(options.halfLifeDays);
  }

  /**
   * Loads the store of a collection whose index is open (before its journal is replayed, so
   * that replayed documents get their evidence). Never throws for bad evidence files: they
   * are set aside and rebuilt.
   */
  static open(params: {
    folder: string;
    clickFolder: string;
    collection: string;
    host: EvidenceHost;
    log: PushLog;
    options: EvidenceOptions;
  }): CollectionEvidence {
    const store = new CollectionEvidence(
      params.folder,
      params.clickFolder,
      params.collection,
      params.host,
      params.log,
      params.options,
    );
    store.load();
    return store;
  }

  // ---------------------------------------------------------------------------------------
  // What the collection calls

  /** The evidence to index with a document now; undefined when it has none. */
  documentEvidence(key: string): DocumentEvidence | undefined {
    const anchors = anchorFieldValues(this.graph.anchorsFor(key));
    const clicked = this.clicks.evidenceFor(key);
    const queries: string[] = [];
    let score = 0;
    if (clicked !== undefined) {
      for (const { query, weight } of clicked.queries) {
        if (query === '' || weight < MIN_CLICK_QUERY_WEIGHT) continue;
        const repeat = Math.min(MAX_CLICK_QUERY_REPEAT, Math.max(1, Math.round(weight)));
        for (let i = 0; i < repeat; i++) queries.push(query);
        if (queries.length >= MAX_CLICK_QUERIES * MAX_CLICK_QUERY_REPEAT) break;
      }
      score = quantizeClickScore(clicked.total);
    }
    if (anchors.length === 0 && queries.length === 0 && score === 0) return undefined;
    const fields: Record<string, string[]> = {};
    const numbers: Record<string, number> = {};
    if (anchors.length > 0) fields[ANCHOR_FIELD] = anchors;
    if (queries.length > 0) fields[CLICK_FIELD] = queries;
    if (score > 0) numbers[CLICK_SCORE_FIELD] = score;
    const fingerprint = createHash('sha1')
      .update(JSON.stringify([anchors, queries, score]))
      .digest('base64url')
      .slice(0, 16);
    return { fields, numbers, stored: { [EVIDENCE_STORED_FIELD]: fingerprint } };
  }

  /**
   * A client change to `key` was staged (put, delete, redirect; also replayed ones).
   * `record`: the stored record it staged (null for a delete), whose links and redirect the
   * update then takes as they are; undefined when the caller does not have it (the update
   * reads the committed document back).
   */
  noteChanged(key: string, record?: StoredRecord | null): void {
    // A key staged again replaces its earlier version: the staged map holds the newest one.
    this.staged.set(key, record === undefined ? UNKNOWN_SOURCE : linkSourceOf(record));
  }

  /** Called right before the index commits: the keys staged so far are in that commit. */
  beforeCommit(): number {
    const batch = ++this.nextBatch;
    this.committing.set(batch, { client: this.staged, restaged: this.restaged });
    this.staged = new Map();
    this.restaged = new Set();
    return batch;
  }

  /** Called when that commit ended: its keys are now committed (or, if it failed, still staged). */
  afterCommit(batch: number, committed: boolean): void {
    const keys = this.committing.get(batch);
    this.committing.delete(batch);
    if (keys === undefined) return;
    // A failed commit leaves its changes staged for the next one.
    for (const key of keys.restaged) {
      if (committed) this.pending.delete(key);
      else this.restaged.add(key);
    }
    if (keys.client.size === 0) return;
    if (committed) {
      // Batches commit in order: a later batch's version of a key replaces an earlier one.
      for (const [key, source] of keys.client) this.changed.set(key, source);
    } else {
      // A version staged since then is newer than the failed batch's one.
      for (const [key, source] of keys.client) if (!this.staged.has(key)) this.staged.set(key, source);
    }
    if (committed) this.scheduleUpdate(this.options.updateDelayMs);
  }

  /** The link graph cannot be trusted any more (restore, RE_INDEX): rebuild it from every document soon. */
  invalidate(reason: string): void {
    this.rebuildReason ??= reason;
    this.scheduleUpdate(0);
  }

  /** Starts the timers (click logs; pending work left from the last run). */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    if (this.options.clickIntervalMs > 0) {
      this.clickTimer = setInterval(() => {
        this.processClickLogs().catch((error: Error) => this.logError('click log processing failed', error));
      }, this.options.clickIntervalMs);
      this.clickTimer.unref();
    }
    if (this.refoldClicks) {
      this.processClickLogs().catch((error: Error) => this.logError('click log processing failed', error));
    }
    if (this.rebuildReason !== undefined || this.changed.size > 0 || this.pending.size > 0)
      this.scheduleUpdate(0);
  }

  /** Brings anchor text up to date now (and re-indexes what is pending); resolves when committed. */
  updateNow(): Promise<EvidenceUpdate> {
    return this.enqueue(() => this.update());
  }

  /**
   * Processes the click logs now: rotates `clicks.log`, adds its clicks (decayed by their
   * age at `now`) to the weights, saves them, re-indexes the documents whose click evidence
   * changed and commits. `now` replaces the clock (tests, simulations).
   */
  processClickLogs(options: { now?: number } = {}): Promise<ClickProcessing> {
    return this.enqueue(() => this.foldClickLogs(options.now ?? this.options.now()));
  }

  /** Stops the timers, lets the running job stop at its next step, saves the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.updateTimer !== undefined) clearTimeout(this.updateTimer);
    if (this.clickTimer !== undefined) clearInterval(this.clickTimer);
    await this.chain;
    // Keys of changes still staged are in the journal: replay reports them again.
    try {
      const body: LinksFileBody = {
        manifest: this.host.lastManifest(),
        ...this.graph.toData(),
        changed: [...this.changed.keys()],
        pending: [...this.pending],
      };
      await writeEvidenceFile(join(this.folder, LINKS_FILE), 'links', FILE_VERSION, body);
      // Weights still to be rebuilt are not saved: an empty file would hide that they were lost.
      if (!this.refoldClicks) await this.saveClicks();
      // A rebuild still to do is remembered by leaving the marker, with its reason: the next start rebuilds.
      const leftToDo = this.rebuildReason ?? (this.refoldClicks ? CLICKS_REFOLD_REASON : undefined);
      const marker = join(this.folder, OPEN_MARKER);
      if (leftToDo === undefined) rmSync(marker, { force: true });
      else writeFileSync(marker, `${LEFT_TO_DO}${leftToDo}\n`);
    } catch (error) {
      this.logError('cannot save the evidence store; it is rebuilt at the next start', error as Error);
    }
  }

  stats(): EvidenceStats {
    return {
      linkSources: this.graph.sourceCount,
      links: this.graph.linkCount,
      redirects: this.graph.redirectCount,
      clickedDocuments: this.clicks.size,
      pendingDocuments: this.pending.size,
      changedKeysWaiting: this.changed.size,
      ...this.counters,
    };
  }

  // ---------------------------------------------------------------------------------------
  // Jobs

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const run = this.chain.then(job);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private scheduleUpdate(delayMs: number): void {
    if (this.closed || !this.started || this.updateTimer !== undefined) return;
    this.updateTimer = setTimeout(() => {
      this.updateTimer = undefined;
      this.updateNow().catch((error: Error) => this.logError('anchor text update failed', error));
    }, delayMs);
    this.updateTimer.unref();
  }

  private async update(): Promise<EvidenceUpdate> {
    if (this.closed) return { rebuilt: false, documentsRead: 0, documentsReadBack: 0, documentsUpdated: 0 };
    this.counters.TotUpdates++;
    if (this.rebuildReason !== undefined) return this.rebuild();
    const keys = [...this.changed];
    this.changed.clear();
    let i = 0;
    let readBack = 0;
    try {
      while (i < keys.length) {
        if (this.closed) break;
        const searcher = this.host.acquireSearcher();
        try {
          for (const end = Math.min(keys.length, i + BATCH); i < end; i++) {
            const [key, source] = keys[i]!;
            if (source === UNKNOWN_SOURCE) {
              readBack++;
              this.applySource(key, linkSourceOf(searcher.getDocument(key)?.record ?? null));
            } else {
              this.applySource(key, source);
            }
          }
        } finally {
          searcher.release();
        }
        await yieldToEventLoop();
      }
    } finally {
      // Keys not reached go back, unless a later commit has brought a newer version of one.
      for (; i < keys.length; i++)
        if (!this.changed.has(keys[i]![0])) this.changed.set(keys[i]![0], keys[i]![1]);
    }
    return {
      rebuilt: false,
      documentsRead: keys.length,
      documentsReadBack: readBack,
      documentsUpdated: await this.reindexPending(),
    };
  }

  /** Puts the committed state of one changed key into the graph; the targets whose anchor text changed become pending. */
  private applySource(key: string, source: LinkSource): void {
    const affected = [
      ...this.graph.setRedirect(key, source.redirect),
      ...this.graph.setLinks(
        key,
        source.storedLinks === undefined ? [] : linksOfStored(key, source.storedLinks),
      ),
    ];
    for (const target of affected) this.pending.add(target);
  }

  /** Rebuilds the graph from every committed document, then checks every document's evidence. */
  private async rebuild(): Promise<EvidenceUpdate> {
    const reason = this.rebuildReason!;
    this.rebuildReason = undefined;
    this.counters.TotRebuilds++;
    // Keys committed before the searcher below are covered by the scan.
    const covered = [...this.changed.keys()];
    this.changed.clear();
    const graph = new LinkGraph();
    const documents: string[] = [];
    const searcher = this.host.acquireSearcher();
    try {
      let n = 0;
      for (const { key, record } of searcher.liveDocuments()) {
        if (this.closed) {
          this.rebuildReason = reason;
          for (const key of covered) this.changed.set(key, UNKNOWN_SOURCE);
          return { rebuilt: false, documentsRead: n, documentsReadBack: n, documentsUpdated: 0 };
        }
        const source = linkSourceOf(record);
        if (source.redirect !== undefined) graph.setRedirect(key, source.redirect);
        else {
          graph.setLinks(key, linksOfStored(key, source.storedLinks));
          documents.push(key);
        }
        if (++n % BATCH === 0) await yieldToEventLoop();
      }
    } finally {
      searcher.release();
    }
    this.graph = graph;
    for (const key of documents) this.pending.add(key);
    this.log.info(
      { collection: this.collection, reason, documents: documents.length },
      'anchor text rebuilt',
    );
    return {
      rebuilt: true,
      documentsRead: documents.length,
      documentsReadBack: documents.length,
      documentsUpdated: await this.reindexPending(),
    };
  }

  /**
   * Stages again every pending document whose evidence differs from the fingerprint it was
   * indexed with, then commits. The current version of each is read right before it is
   * staged (in the same synchronous step), so a client's newer version is never overwritten
   * by an older one: a staged client put is re-mapped itself, a staged delete is left alone.
   *
   * The commit happens only when no client change is staged: evidence never makes a
   * client's staged changes searchable before the client (or its auto-commit) commits them.
   * Otherwise the re-indexed documents go live with that next commit; until then they stay
   * pending (they are not journaled: after a stop they are staged again).
   */
  private async reindexPending(): Promise<number> {
    if (this.pending.size === 0 || this.closed) return 0;
    this.host.guardWrite();
    const keys = [...this.pending];
    const done: string[] = [];
    let restaged = 0;
    let i = 0;
    while (i < keys.length && !this.closed) {
      const searcher = this.host.acquireSearcher();
      try {
        for (const end = Math.min(keys.length, i + BATCH); i < end; i++) {
          const key = keys[i]!;
          const staged = this.host.stagedDocument(key);
          const record = staged === undefined ? (searcher.getDocument(key)?.record ?? null) : staged;
          if (record !== null && typeof record[STORED.redirect] !== 'string') {
            const expected = this.documentEvidence(key)?.stored[EVIDENCE_STORED_FIELD];
            if (record[EVIDENCE_STORED_FIELD] !== expected) {
              this.host.restage(key, record);
              this.restaged.add(key);
              restaged++;
            }
          }
          done.push(key);
        }
      } finally {
        searcher.release();
      }
      await yieldToEventLoop();
      await this.host.ready();
    }
    for (const key of done) if (!this.restaged.has(key)) this.pending.delete(key);
    this.counters.TotDocumentsReindexed += restaged;
    if (restaged > 0 && this.staged.size === 0) await this.host.commit();
    return restaged;
  }

  private async foldClickLogs(now: number): Promise<ClickProcessing> {
    if (this.closed) return { clicksProcessed: 0, badLines: 0, documentsUpdated: 0 };
    this.files.rotate(now);
    const emptied = this.clicks.advance(now);
    let clicksProcessed = 0;
    let badLines = 0;
    const fold = (clicks: { time: number; query: string; url: string }[]) => {
      for (const click of clicks) {
        const key = this.clickKey(click.url);
        if (key === undefined) {
          badLines++;
          continue;
        }
        this.clicks.add(key, normalizeClickQuery(click.query), click.time);
        clicksProcessed++;
      }
    };
    if (this.refoldClicks) {
      // The weights were lost: every retained processed log counts again (the weights they held are gone).
      for (const name of this.files.processed()) {
        const read = this.files.readProcessed(name);
        fold(read.clicks);
        badLines += read.bad;
      }
    }
    const finished: string[] = [];
    for (const name of this.files.pending()) {
      const read = this.files.readPending(name, this.consumed.get(name) ?? 0);
      fold(read.clicks);
      badLines += read.bad;
      this.consumed.set(name, read.endOffset);
      if (now - ClickLogFiles.rotatedAt(name) >= this.options.rotationGraceMs) finished.push(name);
    }
    for (const key of this.clicks.keys()) this.pending.add(key);
    for (const key of emptied) this.pending.add(key);
    // The weights and the offsets they count go to disk in one atomic write: a crash before
    // it loses nothing (the lines are read again), after it counts nothing twice.
    await this.saveClicks();
    this.refoldClicks = false;
    for (const name of finished) {
      this.files.finish(name);
      this.consumed.delete(name);
    }
    this.files.pruneProcessed(now - this.options.retentionDays * DAY_MS);
    this.counters.TotClicksProcessed += clicksProcessed;
    return { clicksProcessed, badLines, documentsUpdated: await this.reindexPending() };
  }

  /** The document a clicked URL counts for (redirects followed); undefined when it is no valid key. */
  private clickKey(url: string): string | undefined {
    try {
      return this.graph.resolve(canonicalizeKey(url));
    } catch {
      return undefined;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Files

  private load(): void {
    mkdirSync(this.folder, { recursive: true });
    const marker = join(this.folder, OPEN_MARKER);
    const manifest = this.host.lastManifest();
    const links = this.readFile<LinksFileBody>(LINKS_FILE, 'links');
    if (links === null) this.rebuildReason = 'the saved link evidence was unusable';
    if (links !== undefined && links !== null) {
      try {
        this.graph = LinkGraph.fromData(links);
        for (const key of links.changed) this.changed.set(key, UNKNOWN_SOURCE);
        for (const key of links.pending) this.pending.add(key);
        if (links.manifest !== manifest)
          this.rebuildReason = `the index changed since the evidence was saved (manifest ${links.manifest}, now ${manifest})`;
      } catch (error) {
        this.setAside(LINKS_FILE, error as Error);
        this.graph = new LinkGraph();
        this.rebuildReason = 'the saved link evidence was unusable';
      }
    }
    if (
      this.rebuildReason === undefined &&
      this.graph.sourceCount === 0 &&
      links === undefined &&
      manifest > 0
    ) {
      this.rebuildReason = 'no saved link evidence';
    }
    if (existsSync(marker)) this.rebuildReason ??= markerReason(readFileSync(marker, 'utf8'));

    const clicks = this.readFile<ClicksFileBody>(CLICKS_FILE, 'clicks');
    // Processed logs exist only once weights were saved: without readable weights, they are lost.
    if (clicks === null || (clicks === undefined && this.files.processed().length > 0))
      this.refoldClicks = true;
    if (clicks !== undefined && clicks !== null) {
      try {
        this.clicks = ClickStore.fromData(clicks, this.options.halfLifeDays);
        const pendingLogs = new Set(this.files.pending());
        for (const [name, offset] of clicks.consumed)
          if (pendingLogs.has(name)) this.consumed.set(name, offset);
        for (const key of clicks.pending) this.pending.add(key);
      } catch (error) {
        this.setAside(CLICKS_FILE, error as Error);
        this.clicks = new ClickStore(this.options.halfLifeDays);
        this.refoldClicks = true;
      }
    }
    // Lost click weights: documents may carry click evidence nobody knows about any more.
    if (this.refoldClicks) this.rebuildReason ??= CLICKS_REFOLD_REASON;
    writeFileSync(marker, `${new Date().toISOString()}\n`);
  }

  /** The body of a file; undefined when absent; null when unusable (set aside and logged). */
  private readFile<T>(name: string, kind: string): T | undefined | null {
    try {
      return readEvidenceFile(join(this.folder, name), kind, FILE_VERSION) as T | undefined;
    } catch (error) {
      this.setAside(name, error as Error);
      return null;
    }
  }

  private setAside(name: string, error: Error): void {
    this.logError(
      error instanceof EvidenceFileError
        ? error.message
        : `evidence file ${name} is unusable: ${error.message}`,
      error,
    );
    try {
      renameSync(join(this.folder, name), join(this.folder, `${name}.bad-${Date.now()}`));
    } catch {
      // Already gone: nothing to keep.
    }
  }

  private async saveClicks(): Promise<void> {
    const body: ClicksFileBody = {
      ...this.clicks.toData(),
      consumed: [...this.consumed],
      pending: [...this.pending],
    };
    await writeEvidenceFile(join(this.folder, CLICKS_FILE), 'clicks', FILE_VERSION, body);
  }

  private logError(message: string, error: Error): void {
    // Writes are refused on purpose while the installation prepares for an upgrade: the work waits.
    if ((error as { code?: string }).code === 'UPGRADE_PREPARING') return;
    this.log.error(
      {
        collection: this.collection,
        err: { message: error.message, code: (error as { code?: string }).code },
      },
      message,
    );
  }
}

/**
 * The `$clicks` value indexed for a decayed click total: rounded to steps of 0.1 in
 * `log1p` (the scale ranking uses), so that ageing re-indexes a document only when its
 * boost moved by a visible step, not on every hourly run.
 */
export function quantizeClickScore(total: number): number {
  if (!(total > 0)) return 0;
  const step = Math.round(Math.log1p(total) * 10) / 10;
  return Math.round(Math.expm1(step) * 1000) / 1000;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
