import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { SearchError } from '../errors.js';
import type { CollectionManager } from '../collection/collection-manager.js';
import { collectionTypeOf, metaMembersOf } from '../collection/collection-settings.js';
import { indexSchemaFor } from '../collection/index-schema.js';
import { Schema, type SchemaOptions } from '../index/schema.js';
import type { Searcher } from '../index/searcher.js';
import type { Explanation } from '../query/explain-query.js';
import { runSearch, type SearchMember, type SearchParams, type SearchView } from './run-search.js';
import type { SearchResponse } from './result-packet.js';

export type { FacetView, SearchResponse, SearchResult } from './result-packet.js';
export { facetDefinitions, type FacetSelection, type SearchParams } from './run-search.js';

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
  /** Resolved schemas (analyzers and their caches) by their options: built once, not per query. */
  private readonly schemas = new Map<string, Schema>();

  constructor(private readonly manager: CollectionManager) {
    this.secret = loadOrCreateSecret(join(manager.home.confFolder, 'redirect-secret'));
  }

  /** HMAC of a result URL: `/s/redirect` only follows URLs it signed (no open redirect). */
  signUrl(url: string): string {
    return createHmac('sha256', this.secret).update(url).digest('base64url').slice(0, 32);
  }

  verifyUrl(url: string, auth: string): boolean {
    const expected = Buffer.from(this.signUrl(url));
    const given = Buffer.from(auth);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  async search(params: SearchParams): Promise<SearchResponse> {
    return (await this.run(params, undefined)).response;
  }

  /**
   * {@link search}, and why each result of the page ranks where it does (the admin UI's
   * query tester): the engine's explanation of its text score and the evidence added to it.
   */
  async explain(params: SearchParams): Promise<{ response: SearchResponse; explanations: Explanation[] }> {
    const explanations: Explanation[] = [];
    return { response: (await this.run(params, explanations)).response, explanations };
  }

  private async run(
    params: SearchParams,
    explanations: Explanation[] | undefined,
  ): Promise<{ response: SearchResponse }> {
    const view = await this.openView(params.collection);
    try {
      const response = runSearch(
        view,
        params,
        (collection, url, rank, query) => this.clickTrackingUrl(collection, url, rank, query),
        explanations,
      );
      return { response };
    } finally {
      for (const member of view.members) (member.searcher as Searcher).release();
    }
  }

  /**
   * The view one query reads: searchers acquired (the caller releases them), settings from
   * the manager's cache (never read from disk here), the schema resolved once per analysis.
   */
  async openView(collection: string): Promise<SearchView> {
    const settings = this.manager.settings.get(collection);
    const isMeta = collectionTypeOf(settings) === 'meta';
    const names = isMeta ? metaMembersOf(settings) : [collection];
    const members: SearchMember[] = [];
    let schemaOptions: SchemaOptions | undefined;
    try {
      for (const name of names) {
        const pushCollection = this.manager.collection(name);
        const searcher = await pushCollection.acquireSearcher();
        const memberSettings = this.manager.settings.get(name);
        members.push({ name, searcher, settings: memberSettings });
        // Queries are analysed as the index's documents were, whatever indexer_options say now.
        schemaOptions ??= pushCollection.indexSchema() ?? indexSchemaFor(memberSettings);
      }
    } catch (error) {
      for (const member of members) (member.searcher as Searcher).release();
      throw error;
    }
    return {
      collection,
      isMeta,
      settings,
      members,
      schema: this.schemaFor(schemaOptions ?? indexSchemaFor(settings)),
    };
  }

  private schemaFor(options: SchemaOptions): Schema {
    const key = JSON.stringify(options);
    let schema = this.schemas.get(key);
    if (schema === undefined) {
      if (this.schemas.size >= SCHEMA_CACHE_ENTRIES) this.schemas.clear();
      schema = new Schema(options);
      this.schemas.set(key, schema);
    }
    return schema;
  }

  clickTrackingUrl(collection: string, url: string, rank: number, query: string): string {
    const params = new URLSearchParams({
      collection,
      url,
      auth: this.signUrl(url),
      rank: String(rank),
      query,
    });
    return `/s/redirect?${params.toString()}`;
  }
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

export function searchError(message: string): SearchError {
  return new SearchError('QUERY_INVALID', message);
}
