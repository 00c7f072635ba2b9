import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { SearchError } from '../errors.js';
import type { CollectionManager } from '../collection/collection-manager.js';
import { loadCollectionSettings, type CollectionSettings } from '../collection/collection-settings.js';
import { indexSchemaFor } from '../collection/index-schema.js';
import {
  FACET_FIELD_PREFIX,
  GSCOPE_FIELD,
  QIE_FIELD,
  REDIRECT_FIELD,
  STORED,
} from '../collection/stored-fields.js';
import { NO_MORE_DOCS, type GenerationView } from '../index/generation-view.js';
import { Schema, type SchemaOptions } from '../index/schema.js';
import type { Searcher } from '../index/searcher.js';
import { statisticsFromGenerations } from '../query/collection-statistics.js';
import { executeQuery } from '../query/execute-query.js';
import { inSet, matchSet } from '../query/match-set.js';
import { parseQuery } from '../query/parser/parse-query.js';
import type { Query } from '../query/query-tree.js';
import type { ScoringOptionsInput } from '../query/scoring-options.js';
import { CLICK_FIELD, CLICK_SCORE_FIELD } from './click-evidence.js';
import { suggestSpelling } from './spelling.js';
import { buildSummary } from './summary.js';
import type { FacetView, SearchResponse, SearchResult } from './result-packet.js';

export type { FacetView, SearchResponse, SearchResult } from './result-packet.js';

export interface FacetSelection {
  name: string;
  className: string;
  values: string[];
}

export interface SearchParams {
  collection: string;
  query: string;
  /** 1-based rank of the first result. */
  startRank: number;
  numRanks: number;
  /** Fully matching only (`fmo=on`). */
  fmo: boolean;
  gscope?: string;
  facetSelections: FacetSelection[];
  ranges: { className: string; min?: number; max?: number }[];
}

interface Member {
  name: string;
  searcher: Searcher;
  settings: CollectionSettings;
  /** How the member's index analyses text (see PushCollection.indexSchema). */
  schema: SchemaOptions;
}

/** Matches are counted exactly up to this many (then `totalMatchingExact` is false). */
const EXACT_COUNT_LIMIT = 10_000;
/** Query-independent evidence reorders this many extra candidates beyond the page. */
const RERANK_EXTRA = 50;
/** Plain words up to this many rank in strict tiers (all words first); longer natural-language queries rank by BM25F alone. */
const STRICT_TIER_MAX_WORDS = 5;
const TIER_BOOST = 1000;

/**
 * The query processor behind `/s/search.json` and `/s/search.html`: parses the query,
 * adds scopes and filters, runs it over the collection (or every member of a meta
 * collection on one scale: statistics are combined before scoring), applies
 * query-independent evidence, and builds the result packet with summaries and facets.
 */
export class SearchService {
  private readonly secret: Buffer;

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
    const members = await this.openMembers(params.collection);
    try {
      return this.run(params, members);
    } finally {
      for (const member of members) member.searcher.release();
    }
  }

  private async openMembers(collection: string): Promise<Member[]> {
    const names =
      this.manager.typeOf(collection) === 'meta' ? this.manager.membersOf(collection) : [collection];
    const members: Member[] = [];
    try {
      for (const name of names) {
        const collection = this.manager.collection(name);
        const searcher = await collection.acquireSearcher();
        const settings = loadCollectionSettings(this.manager.home, name);
        members.push({
          name,
          searcher,
          settings,
          schema: collection.indexSchema() ?? indexSchemaFor(settings),
        });
      }
    } catch (error) {
      for (const member of members) member.searcher.release();
      throw error;
    }
    return members;
  }

  private run(params: SearchParams, members: Member[]): SearchResponse {
    const own = loadCollectionSettings(this.manager.home, params.collection);
    const isMeta = members.length !== 1 || members[0]!.name !== params.collection;
    const scoring = scoringFor(own, isMeta);
    const qieWeight = Number(own.config.queryProcessorFlags.get('qie_weight') ?? '2');
    const clickWeight = Number(own.config.queryProcessorFlags.get('click_weight') ?? '0.5');
    // Queries are analysed as the index's documents were, whatever indexer_options say now.
    const schema = new Schema(members[0]?.schema ?? indexSchemaFor(own));
    const analyzerFor = (field: string | undefined) => schema.analyzerFor(field ?? 'body');
    const probe = parseQuery(params.query, { analyzerFor, coordBoost: 0 });
    const coordBoost = probe.words.length <= STRICT_TIER_MAX_WORDS ? TIER_BOOST : 0;
    const parsed = parseQuery(params.query, { analyzerFor, allRequired: params.fmo, coordBoost });

    const generations: GenerationView[] = [];
    const owner: { member: Member; local: number }[] = [];
    for (const member of members) {
      member.searcher.generations.forEach((generation, local) => {
        generations.push(generation);
        owner.push({ member, local });
      });
    }
    const stats = statisticsFromGenerations(generations);

    const filters: Query[] = [];
    if (params.gscope !== undefined && params.gscope !== '')
      filters.push({ kind: 'term', field: GSCOPE_FIELD, term: params.gscope });
    for (const range of params.ranges) {
      filters.push({
        kind: 'range',
        field: range.className,
        ...(range.min !== undefined ? { min: range.min } : {}),
        ...(range.max !== undefined ? { max: range.max } : {}),
      });
    }
    const facetFilters = params.facetSelections
      .filter((s) => s.values.length > 0)
      .map((s): Query => ({
        kind: 'bool',
        should: s.values.map((v) => ({ kind: 'term', field: FACET_FIELD_PREFIX + s.className, term: v })),
      }));
    const wrap = (tree: Query): Query => ({
      kind: 'bool',
      must: [tree],
      filter: [...filters, ...facetFilters],
      mustNot: [{ kind: 'term', field: REDIRECT_FIELD, term: 'true' }],
    });

    const start = Math.max(1, params.startRank);
    const pageEnd = start - 1 + params.numRanks;
    let hits: { generationIndex: number; docId: number; score: number }[] = [];
    let total = 0;
    let exact = true;
    let fully = 0;
    if (parsed.tree !== null) {
      const query = wrap(parsed.tree);
      const boosted = qieWeight > 0 || clickWeight > 0;
      const result = executeQuery(generations, query, {
        k: pageEnd + (boosted ? RERANK_EXTRA : 0),
        scoring,
        stats,
        totalHitsThreshold: EXACT_COUNT_LIMIT,
      });
      total = result.totalHits;
      exact = result.totalHitsExact;
      hits = boosted ? rerank(result.hits, generations, qieWeight, clickWeight) : result.hits;
      fully = total;
      if (!params.fmo && probe.words.length > 1) {
        const all = parseQuery(params.query, { analyzerFor, allRequired: true, coordBoost: 0 });
        if (all.tree !== null) {
          fully = executeQuery(generations, wrap(all.tree), {
            k: 0,
            scoring,
            stats,
            totalHitsThreshold: EXACT_COUNT_LIMIT,
          }).totalHits;
        }
      }
    }
    const queryTerms = new Set(parsed.terms.map((t) => t.term));
    const summaryAnalyzer = schema.analyzerFor('body');
    const page = hits.slice(start - 1, pageEnd);
    const results = page.map((hit, i): SearchResult => {
      const { member, local } = owner[hit.generationIndex]!;
      const record = member.searcher.stored(local, hit.docId);
      const key = record.$key as string;
      const rank = start + i;
      return {
        rank,
        score: Math.round(hit.score * 1000) / 1000,
        title: (record[STORED.title] as string | undefined) || key,
        liveUrl: key,
        displayUrl: key.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''),
        // Clicks are logged under the result's own collection (a meta collection has no documents).
        clickTrackingUrl: this.clickTrackingUrl(member.name, key, rank, params.query),
        summary: buildSummary((record[STORED.text] as string | undefined) ?? '', summaryAnalyzer, queryTerms),
        listMetadata: JSON.parse((record[STORED.classes] as string | undefined) ?? '{}') as Record<
          string,
          string[]
        >,
        collection: member.name,
        gscopesSet: gscopesOf(generations[hit.generationIndex]!, hit.docId, member.settings),
        fileSize: (record[STORED.fileSize] as number | undefined) ?? 0,
        fileType: (record[STORED.fileType] as string | undefined) ?? 'unknown',
        date: (record[STORED.date] as string | undefined) ?? null,
      };
    });

    const facets = this.facets(
      own,
      params,
      parsed.tree === null ? null : wrap(parsed.tree),
      generations,
      scoring,
      stats,
    );
    const spell =
      parsed.tree !== null && total < 3 && probe.words.length > 0
        ? suggestSpelling(probe.words, {
            analyzer: summaryAnalyzer,
            docFreq: (term) => generations.reduce((n, g) => n + g.docFreq('body', term), 0),
            termsWithPrefix: (prefix, limit) => {
              const all = new Set<string>();
              for (const g of generations)
                for (const term of g.termsWithPrefix('body', prefix, limit)) all.add(term);
              return [...all];
            },
            surfaceOf: (term) => surfaceOf(term, generations, owner, summaryAnalyzer),
            count: (text) => {
              const alternative = parseQuery(text, { analyzerFor, coordBoost });
              return alternative.tree === null
                ? 0
                : executeQuery(generations, wrap(alternative.tree), { k: 0, scoring, stats }).totalHits;
            },
          })
        : null;
    const currEnd = start - 1 + results.length;
    return {
      question: {
        query: params.query,
        collection: params.collection,
        startRank: start,
        numRanks: params.numRanks,
        fmo: params.fmo,
        gscope1: params.gscope ?? null,
        searchedFor: parsed.words.join(' '),
      },
      response: {
        resultPacket: {
          query: params.query,
          resultsSummary: {
            totalMatching: total,
            totalMatchingExact: exact,
            fullyMatching: Math.min(fully, total),
            partiallyMatching: Math.max(0, total - fully),
            currStart: results.length === 0 ? 0 : start,
            currEnd,
            numRanks: params.numRanks,
            nextStart: currEnd < total ? currEnd + 1 : null,
            prevStart: start > 1 ? Math.max(1, start - params.numRanks) : null,
          },
          results,
          spell: spell === null ? null : { text: spell },
        },
        facets,
      },
    };
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

  private facets(
    settings: CollectionSettings,
    params: SearchParams,
    query: Query | null,
    generations: GenerationView[],
    scoring: ScoringOptionsInput,
    stats: ReturnType<typeof statisticsFromGenerations>,
  ): FacetView[] {
    const definitions = facetDefinitions(settings);
    if (definitions.length === 0 || query === null) return [];
    const matches = matchSet(generations, query, { scoring, stats });
    return definitions.map(({ name, className }) => {
      const field = FACET_FIELD_PREFIX + className;
      const counts = new Map<string, number>();
      generations.forEach((view, g) => {
        for (const term of view.termsWithPrefix(field, '', 5000)) {
          const postings = view.postings(field, term, false);
          if (postings === null) continue;
          let count = 0;
          for (let doc = postings.nextDoc(); doc !== NO_MORE_DOCS; doc = postings.nextDoc())
            if (inSet(matches[g]!, doc)) count++;
          if (count > 0) counts.set(term, (counts.get(term) ?? 0) + count);
        }
      });
      const selected = new Set(
        params.facetSelections.filter((s) => s.className === className).flatMap((s) => s.values),
      );
      return {
        name,
        className,
        values: [...counts.entries()]
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, 30)
          .map(([label, count]) => ({ label, count, selected: selected.has(label) })),
      };
    });
  }
}

/** `facet.<Name>=<class>` lines of collection.cfg. */
export function facetDefinitions(settings: CollectionSettings): { name: string; className: string }[] {
  const out: { name: string; className: string }[] = [];
  for (const [key, value] of settings.config.extra) {
    if (key.startsWith('facet.') && key.length > 6 && value.trim() !== '')
      out.push({ name: key.slice(6), className: value.trim() });
  }
  return out;
}

/**
 * Ranking options from `query_processor_options`: anchor text (`k`) counts with
 * `-anniemode=3` (the default of a push collection; a meta collection must set it
 * explicitly, as the spec says), click evidence (`K`) always.
 */
function scoringFor(settings: CollectionSettings, isMeta: boolean): ScoringOptionsInput {
  const flags = settings.config.queryProcessorFlags;
  const explicit = settings.config.sources.has('query_processor_options');
  const annie = isMeta && !explicit ? undefined : flags.get('anniemode');
  const anchors = annie === '3';
  return {
    defaultFields: anchors ? ['body', 't', 'k', CLICK_FIELD] : ['body', 't', CLICK_FIELD],
  };
}

function rerank(
  hits: { generationIndex: number; docId: number; score: number }[],
  generations: GenerationView[],
  qieWeight: number,
  clickWeight: number,
): { generationIndex: number; docId: number; score: number }[] {
  const rescored = hits.map((hit) => {
    const view = generations[hit.generationIndex]!;
    const qie = view.numericValues(QIE_FIELD)?.[hit.docId];
    const clicks = view.numericValues(CLICK_SCORE_FIELD)?.[hit.docId];
    let score = hit.score;
    if (qie !== undefined && !Number.isNaN(qie)) score += qieWeight * qie;
    if (clicks !== undefined && !Number.isNaN(clicks)) score += clickWeight * Math.log1p(clicks);
    return { ...hit, score };
  });
  return rescored.sort(
    (a, b) => b.score - a.score || a.generationIndex - b.generationIndex || a.docId - b.docId,
  );
}

/** A word of a document's text that analyses to `term` (spelling suggestions are shown as words, not stems). */
function surfaceOf(
  term: string,
  generations: GenerationView[],
  owner: { member: Member; local: number }[],
  analyzer: ReturnType<Schema['analyzerFor']>,
): string | undefined {
  for (let g = generations.length - 1; g >= 0; g--) {
    const postings = generations[g]!.postings('body', term, false);
    if (postings === null) continue;
    for (let doc = postings.nextDoc(); doc !== NO_MORE_DOCS; doc = postings.nextDoc()) {
      if (generations[g]!.isKilled(doc)) continue;
      const { member, local } = owner[g]!;
      const text = (member.searcher.stored(local, doc)[STORED.text] as string | undefined) ?? '';
      const token = analyzer.tokens(text.slice(0, 20_000)).find((t) => t.term === term);
      if (token !== undefined) return text.slice(token.start, token.end).toLowerCase();
      break;
    }
  }
  return undefined;
}

function gscopesOf(view: GenerationView, docId: number, settings: CollectionSettings): string[] {
  if (settings.gscopes === undefined) return [];
  const ids = new Set(settings.gscopes.rules.map((r) => r.id));
  const out: string[] = [];
  for (const id of ids) {
    const postings = view.postings(GSCOPE_FIELD, id, false);
    if (postings !== null && postings.advance(docId) === docId) out.push(id);
  }
  return out;
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
