import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { CollectionManager } from '../collection/collection-manager.js';
import {
  collectionTypeOf,
  metaMembersOf,
  type CollectionSettings,
} from '../collection/collection-settings.js';
import { indexSchemaFor } from '../collection/index-schema.js';
import { Schema, type SchemaOptions } from '../index/schema.js';
import type { Searcher } from '../index/searcher.js';
import type { Explanation } from '../query/explain-query.js';
import { runSearch, type SearchMember, type SearchParams, type SearchView } from './run-search.js';
import type { SearchResponse } from './result-packet.js';
import { ClickTrackingUrls, signUrl } from './click-tracking-url.js';
import {
  SearchThreadPool,
  type OpenedView,
  type SearchAnswer,
  type SearchPoolEvent,
  type SearchTiming,
} from './threads/search-thread-pool.js';
import type { AnswerForm } from './threads/search-messages.js';
import { searchResponseBytes } from './packet-json.js';
import { DEFAULT_MAX_PREFIX_TERMS, nowEpochMs, WorkBudget } from '../query/work-budget.js';

export type { FacetView, SearchResponse, SearchResult } from './result-packet.js';
export type { SearchTiming } from './threads/search-thread-pool.js';
export { facetDefinitions, type FacetSelection, type SearchParams } from './run-search.js';

/** A packet's JSON bytes (`/s/search.json`) and where the query's time went. */
export interface TimedJson {
  json: Uint8Array;
  timing: SearchTiming;
}

/** How queries are run (`search.*` of global.cfg). */
export interface SearchServiceOptions {
  /** Search threads (`search.thread-count`); 0 or absent: queries run on the event loop. */
  threads?: number;
  /** `search.timeout-ms`: a query's budget, waiting included. Default 2000. */
  timeoutMs?: number;
  /** `search.max-prefix-terms`. Default 256. */
  maxPrefixTerms?: number;
  /** `search.queue-size`: queries that may wait for a busy thread. Default 64. */
  queueSize?: number;
  /** Observes the thread pool (tests). */
  onPoolEvent?: (event: SearchPoolEvent) => void;
}

/** Default of `search.timeout-ms`. */
export const DEFAULT_TIMEOUT_MS = 2000;
/** Default of `search.queue-size`. */
export const DEFAULT_QUEUE_SIZE = 64;

/** Distinct schemas kept resolved (one per analysis in use: a handful per installation). */
const SCHEMA_CACHE_ENTRIES = 64;

/**
 * The query processor behind `/s/search.json` and `/s/search.html`: opens a view of the
 * collection (searchers of itself or of every member of a meta collection, the collection's
 * cached settings, the schema queries are analysed with) and runs the search over it
 * (`run-search.ts`: parsing, filters, scoring on one scale, query-independent evidence,
 * summaries, facets, "did you mean").
 */
export class SearchService {
  private readonly secret: Buffer;
  private readonly clickUrls: ClickTrackingUrls;
  /** Resolved schemas (analyzers and their caches) by their options: built once, not per query. */
  private readonly schemas = new Map<string, Schema>();
  private readonly schemasByObject = new WeakMap<SchemaOptions, Schema>();
  private readonly pool: SearchThreadPool | null;
  private readonly timeoutMs: number;
  private readonly maxPrefixTerms: number;

  constructor(
    private readonly manager: CollectionManager,
    options: SearchServiceOptions = {},
  ) {
    this.secret = loadOrCreateSecret(join(manager.home.confFolder, 'redirect-secret'));
    this.clickUrls = new ClickTrackingUrls(this.secret);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxPrefixTerms = options.maxPrefixTerms ?? DEFAULT_MAX_PREFIX_TERMS;
    const threads = options.threads ?? 0;
    this.pool =
      threads > 0
        ? new SearchThreadPool({
            threads,
            queueSize: options.queueSize ?? DEFAULT_QUEUE_SIZE,
            secret: this.secret,
            ...(options.onPoolEvent !== undefined ? { onEvent: options.onPoolEvent } : {}),
          })
        : null;
  }

  /** The search threads (null: queries run on the event loop). */
  get threads(): SearchThreadPool | null {
    return this.pool;
  }

  /** Stops the search threads (queries still waiting answer 503). */
  async close(): Promise<void> {
    await this.pool?.close();
  }

  /** HMAC of a result URL: `/s/redirect` only follows URLs it signed (no open redirect). */
  signUrl(url: string): string {
    return signUrl(this.secret, url);
  }

  verifyUrl(url: string, auth: string): boolean {
    const expected = Buffer.from(this.signUrl(url));
    const given = Buffer.from(auth);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /**
   * Runs a search within its budget (`search.timeout-ms` from now, waiting for a thread
   * included): on a search thread when there are any and the collection's files can be
   * shared with them, else here on the event loop.
   */
  async search(params: SearchParams): Promise<SearchResponse> {
    return (await this.searchTimed(params)).response;
  }

  /** {@link search}, with where the query's time went (the results page's `Server-Timing`). */
  async searchTimed(params: SearchParams): Promise<{ response: SearchResponse; timing: SearchTiming }> {
    const { response, timing } = packetOf(await this.answer(params, 'object', false));
    return { response, timing };
  }

  /**
   * {@link search}, answered as the JSON bytes `/s/search.json` sends (`packet-json.ts`): a
   * search thread serialises the packet and transfers the bytes, so the event loop only
   * writes them to the socket. With where the query's time went (its `Server-Timing`).
   */
  searchJson(params: SearchParams): Promise<TimedJson> {
    // Not async: the pool's promise is followed by one step, not wrapped in another promise.
    return this.answer(params, 'json', false).then(jsonOf);
  }

  /**
   * {@link search}, and why each result of the page ranks where it does (the admin UI's
   * query tester): the engine's explanation of its text score and the evidence added to it.
   * Runs where searches run (a search thread when there are any), within the same budget.
   */
  async explain(params: SearchParams): Promise<{ response: SearchResponse; explanations: Explanation[] }> {
    const { response, explanations } = packetOf(await this.answer(params, 'object', true));
    return { response, explanations: explanations ?? [] };
  }

  // Not async: the pool's promise is handed on as it is, not wrapped in another one per query.
  private answer(params: SearchParams, form: AnswerForm, explain: boolean): Promise<SearchAnswer> {
    const deadline = nowEpochMs() + this.timeoutMs;
    if (this.pool === null) return this.answerHere(params, deadline, explain);
    return this.pool.run({
      params,
      deadline,
      maxPrefixTerms: this.maxPrefixTerms,
      explain,
      form,
      open: () => {
        const view = this.openViewNow(params.collection);
        return view !== undefined ? openedView(view) : this.openViewLater(params.collection).then(openedView);
      },
      runHere: (view) => this.runHere(view, params, deadline, explain),
    });
  }

  /** A search on the event loop (no search threads). */
  private async answerHere(params: SearchParams, deadline: number, explain: boolean): Promise<SearchAnswer> {
    const asked = performance.now();
    const view = await this.openView(params.collection);
    try {
      // Serialised by the caller (searchJson): the form matters only across threads.
      const answer = this.runHere(view, params, deadline, explain);
      answer.timing.wait = performance.now() - asked - answer.timing.search;
      return answer;
    } finally {
      releaseView(view);
    }
  }

  /** The search over an open view, here on the event loop; its timing's `wait` is the caller's to set. */
  private runHere(view: SearchView, params: SearchParams, deadline: number, explain: boolean): SearchAnswer {
    const explanations: Explanation[] | undefined = explain ? [] : undefined;
    const started = performance.now();
    const response = runSearch(
      view,
      params,
      (collection, url, rank, query) => this.clickTrackingUrl(collection, url, rank, query),
      explanations,
      new WorkBudget(deadline, this.maxPrefixTerms),
    );
    const timing: SearchTiming = { wait: 0, hop: 0, search: performance.now() - started, serialize: 0 };
    return explanations === undefined ? { response, timing } : { response, explanations, timing };
  }

  /**
   * The view one query reads: searchers acquired (the caller releases them), settings from
   * the manager's cache (never read from disk here), the schema resolved once per analysis.
   */
  async openView(collection: string): Promise<SearchView> {
    return this.openViewNow(collection) ?? this.openViewLater(collection);
  }

  /**
   * {@link openView} without waiting, when every member runs (see
   * `PushCollection.acquireSearcherNow`): a search's usual path, with no promise on the
   * event loop. Undefined when a member must be started first.
   */
  openViewNow(collection: string): SearchView | undefined {
    const settings = this.manager.settings.get(collection);
    const isMeta = collectionTypeOf(settings) === 'meta';
    if (!isMeta) {
      const pushCollection = this.manager.collection(collection);
      const searcher = pushCollection.acquireSearcherNow();
      if (searcher === undefined) return undefined;
      const member: SearchMember = { name: collection, searcher, settings };
      return this.viewOf(collection, false, settings, [member], pushCollection.indexSchema());
    }
    const members: SearchMember[] = [];
    let schemaOptions: SchemaOptions | undefined;
    try {
      for (const name of metaMembersOf(settings)) {
        const pushCollection = this.manager.collection(name);
        const searcher = pushCollection.acquireSearcherNow();
        if (searcher === undefined) {
          releaseMembers(members);
          return undefined;
        }
        const schema = this.addMember(members, name, searcher, pushCollection.indexSchema());
        schemaOptions ??= schema;
      }
    } catch (error) {
      releaseMembers(members);
      throw error;
    }
    return this.viewOf(collection, true, settings, members, schemaOptions);
  }

  /** {@link openView} when a member may have to start first. */
  private async openViewLater(collection: string): Promise<SearchView> {
    const settings = this.manager.settings.get(collection);
    const isMeta = collectionTypeOf(settings) === 'meta';
    const names = isMeta ? metaMembersOf(settings) : [collection];
    const members: SearchMember[] = [];
    let schemaOptions: SchemaOptions | undefined;
    try {
      for (const name of names) {
        const pushCollection = this.manager.collection(name);
        const searcher = await pushCollection.acquireSearcher();
        const schema = this.addMember(members, name, searcher, pushCollection.indexSchema());
        schemaOptions ??= schema;
      }
    } catch (error) {
      releaseMembers(members);
      throw error;
    }
    return this.viewOf(collection, isMeta, settings, members, schemaOptions);
  }

  /**
   * Adds a member to a view being opened; returns the schema its documents were analysed with
   * (`indexSchema`, else its settings'): queries are analysed as the index's documents were,
   * whatever indexer_options say now.
   */
  private addMember(
    members: SearchMember[],
    name: string,
    searcher: Searcher,
    indexSchema: SchemaOptions | undefined,
  ): SchemaOptions {
    const settings = this.manager.settings.get(name);
    members.push({ name, searcher, settings });
    return indexSchema ?? indexSchemaFor(settings);
  }

  private viewOf(
    collection: string,
    isMeta: boolean,
    settings: CollectionSettings,
    members: SearchMember[],
    schemaOptions: SchemaOptions | undefined,
  ): SearchView {
    return {
      collection,
      isMeta,
      settings,
      members,
      schema: this.schemaFor(schemaOptions ?? indexSchemaFor(settings)),
    };
  }

  private schemaFor(options: SchemaOptions): Schema {
    // The options recorded in a manifest are one object for all of its queries: found
    // without writing them out as JSON, as a key, for each query.
    let schema = this.schemasByObject.get(options);
    if (schema !== undefined) return schema;
    const key = JSON.stringify(options);
    schema = this.schemas.get(key);
    if (schema === undefined) {
      if (this.schemas.size >= SCHEMA_CACHE_ENTRIES) this.schemas.clear();
      schema = new Schema(options);
      this.schemas.set(key, schema);
    }
    this.schemasByObject.set(options, schema);
    return schema;
  }

  clickTrackingUrl(collection: string, url: string, rank: number, query: string): string {
    return this.clickUrls.url(collection, url, rank, query);
  }
}

/**
 * The JSON bytes of an answer asked for as JSON: a thread's, or serialised here when the search
 * ran on the event loop (which answers the packet), the time it takes counted as `serialize`.
 */
function jsonOf(answer: SearchAnswer): TimedJson {
  if ('json' in answer) return answer;
  const started = performance.now();
  const json = searchResponseBytes(answer.response);
  answer.timing.serialize = performance.now() - started;
  return { json, timing: answer.timing };
}

/** The packet of an answer asked for as an object (see AnswerForm). */
function packetOf(answer: SearchAnswer): Extract<SearchAnswer, { response: SearchResponse }> {
  if ('json' in answer) throw new Error('a search asked for its packet was answered as JSON bytes');
  return answer;
}

/** A view as the pool holds it while a thread runs the query. */
function openedView(view: SearchView): OpenedView {
  return { view, release: () => releaseView(view) };
}

function releaseView(view: SearchView): void {
  releaseMembers(view.members);
}

function releaseMembers(members: readonly SearchMember[]): void {
  for (const member of members) (member.searcher as Searcher).release();
}

function loadOrCreateSecret(file: string): Buffer {
  if (existsSync(file)) {
    const secret = readFileSync(file);
    if (secret.length >= 32) return secret;
  }
  const secret = randomBytes(32);
  writeFileSync(file, secret, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
