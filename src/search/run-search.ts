import { BoundedMap } from '../bounded-map.js';
import type { CollectionSettings } from '../collection/collection-settings.js';
import {
  FACET_FIELD_PREFIX,
  GSCOPE_FIELD,
  QIE_FIELD,
  REDIRECT_FIELD,
  STORED,
} from '../collection/stored-fields.js';
import type { Analyzer } from '../index/analysis/analyzer.js';
import { KEY_FIELD, type StoredRecord } from '../index/document.js';
import { NO_MORE_DOCS, type GenerationView } from '../index/generation-view.js';
import { TermProbes } from '../index/generation/term-probes.js';
import type { Schema } from '../index/schema.js';
import { statisticsFromGenerations, type CollectionStatistics } from '../query/collection-statistics.js';
import { explainQuery, type Explanation, type ExplainOptions } from '../query/explain-query.js';
import { executeQuery, type ExecuteOptions } from '../query/execute-query.js';
import { inSet, matchSet } from '../query/match-set.js';
import { packedMap } from '../query/packed-map.js';
import { parseQuery, type ParsedQuery } from '../query/parser/parse-query.js';
import type { BooleanQuery, Query } from '../query/query-tree.js';
import type { ScoringOptionsInput } from '../query/scoring-options.js';
import { BudgetExhausted, WorkBudget } from '../query/work-budget.js';
import { CLICK_FIELD, CLICK_SCORE_FIELD } from '../collection/evidence/click-evidence.js';
import type { FacetView, SearchResponse, SearchResult } from './result-packet.js';
import { suggestSpelling } from './spelling.js';
import { SUMMARY_TEXT_CHARS, Summarizer } from './summary.js';
import { escapeHtml } from '../escape-html.js';
import { isJsSpace } from '../whitespace.js';
import {
  geospatialClasses,
  kmBetween,
  locationOf,
  metaDataOf,
  sortCandidates,
  summaryFieldsOf,
  summaryModeOf,
  type GeoPoint,
  type SortCandidate,
  type SortMode,
} from './result-order.js';

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
  /** `sort=` (the original's modes); relevance when absent. */
  sort?: SortMode;
  /** `origin=lat,long`: results carry `kmFromOrigin`; `prox` sorts by it. */
  origin?: GeoPoint;
  /** `maxdist=` km from the origin: results farther away (or without a location) are left out. */
  maxdist?: number;
}

/** The first `numRanks` results of `query`, relevance order, no filter (the query tester, tools). */
export function firstPageParams(collection: string, query: string, numRanks: number): SearchParams {
  return { collection, query, startRank: 1, numRanks, fmo: false, facetSelections: [], ranges: [] };
}

/** True when the page cannot be cut from the relevance order: every match is read first. */
function needsAllMatches(params: SearchParams): boolean {
  return (
    (params.sort !== undefined && params.sort.kind !== 'relevance') ||
    (params.origin !== undefined && params.maxdist !== undefined)
  );
}

/** One collection searched: its point-in-time generations and its configuration. */
export interface SearchMember {
  name: string;
  /** A searcher (or anything with its generations and stored records), held for the query. */
  searcher: {
    readonly generations: readonly GenerationView[];
    /**
     * A document's stored record; with `fields`, only those of its fields; with `maxChars`, only
     * the first that many UTF-16 units of the strings of the fields named there.
     */
    stored(
      generationIndex: number,
      docId: number,
      fields?: ReadonlySet<string>,
      maxChars?: ReadonlyMap<string, number>,
    ): StoredRecord;
  };
  settings: CollectionSettings;
}

/**
 * Everything one query reads, fixed for its whole run: the collection asked for (its own
 * settings decide ranking options and facets), the members searched (itself, or every
 * member of a meta collection) and the schema queries are analysed with. Nothing in it is
 * read from disk or changed while a query runs, so {@link runSearch} is a pure function of
 * a view and the parameters and may run on any thread that has one.
 */
export interface SearchView {
  collection: string;
  /** True for a meta collection (ranking options differ: see {@link scoringFor}). */
  isMeta: boolean;
  settings: CollectionSettings;
  members: SearchMember[];
  /** As the members' documents were analysed (the first member's; see PushCollection.indexSchema). */
  schema: Schema;
}

/** Signs a result URL for `/s/redirect` (the HMAC lives with the service, not with the view). */
export type ClickTrackingUrl = (collection: string, url: string, rank: number, query: string) => string;

/**
 * The stored fields a result is made of (and sorted by): only these are decoded, not the
 * original content and the rest a record keeps for GET and re-indexing.
 */
export const RESULT_FIELDS: ReadonlySet<string> = new Set([
  KEY_FIELD,
  STORED.title,
  STORED.text,
  STORED.classes,
  STORED.fileSize,
  STORED.fileType,
  STORED.date,
]);
/** A result's text is read for its summary, which depends on its start only (see SUMMARY_TEXT_CHARS). */
const RESULT_TEXT_CHARS: ReadonlyMap<string, number> = new Map([[STORED.text, SUMMARY_TEXT_CHARS]]);
const TEXT_FIELD: ReadonlySet<string> = new Set([STORED.text]);
/** The characters of a text {@link surfaceOf} looks at: its first 20,000. */
const SURFACE_TEXT: ReadonlyMap<string, number> = new Map([[STORED.text, 20_000]]);

/** Matches are counted exactly up to this many (then `totalMatchingExact` is false). */
export const EXACT_COUNT_LIMIT = 10_000;
/** Query-independent evidence reorders this many extra candidates beyond the page. */
const RERANK_EXTRA = 50;
/** Plain words up to this many rank in strict tiers (all words first); longer natural-language queries rank by BM25F alone. */
const STRICT_TIER_MAX_WORDS = 5;
const TIER_BOOST = 1000;

/**
 * The score a client sees: the ranking score without the tier offsets (`coordBoost` per
 * matched word), so that it reads as relevance (4.37, not 2004.37). The offset is a whole
 * multiple of the boost, and the rest (BM25F of at most {@link STRICT_TIER_MAX_WORDS} words,
 * each below idf × (k1 + 1) ≈ 31 even for a billion documents, plus the evidence) stays far
 * below 1000, so the remainder is exactly that rest. Order and tiers are unchanged.
 */
function clientScore(score: number, coordBoost: number): number {
  return coordBoost > 0 ? score - coordBoost * Math.floor(score / coordBoost) : score;
}

/** What the engine is asked for one search: the parsed query and the runs of `executeQuery`. */
export interface QueryPlan {
  parsed: ParsedQuery;
  /** Ranking options (collection settings: anchor text or not). */
  scoring: ScoringOptionsInput;
  qieWeight: number;
  clickWeight: number;
  /** The ranked query (null: nothing searchable) with the filters of the parameters. */
  ranked: { query: Query; options: ExecuteOptions } | null;
  /** Counts the documents with every word (the `fullyMatching` figure), when it may differ. */
  fullyCount: { query: Query; options: ExecuteOptions } | null;
  /** Wraps another tree in the same filters (facets, spelling alternatives). */
  wrap(tree: Query): Query;
  /** How alternatives (spelling) are parsed: as the query was. */
  coordBoost: number;
}

/**
 * Parses the query once and builds the engine's work for it. Exported so that a benchmark
 * can time the engine alone with exactly the parameters of a search.
 */
export function planQuery(
  view: SearchView,
  params: SearchParams,
  stats: CollectionStatistics,
  budget?: WorkBudget,
): QueryPlan {
  const within = budget === undefined ? {} : { budget };
  const own = view.settings;
  const scoring = scoringFor(own, view.isMeta);
  const qieWeight = Number(own.config.queryProcessorFlags.get('qie_weight') ?? '2');
  const clickWeight = Number(own.config.queryProcessorFlags.get('click_weight') ?? '0.5');
  const analyzerFor = analyzerLookup(view.schema);
  // Parsed once, with strict tiers; a long natural-language query then drops them (the
  // boost only sits on the top-level clause, see parseQuery's assemble).
  const tiered = parseQuery(params.query, { analyzerFor, allRequired: params.fmo, coordBoost: TIER_BOOST });
  const coordBoost = tiered.words.length <= STRICT_TIER_MAX_WORDS ? TIER_BOOST : 0;
  const parsed = coordBoost === TIER_BOOST ? tiered : { ...tiered, tree: withCoordBoost(tiered.tree, 0) };

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
  // A loop, not filter().map(): the array filter returns (empty, most often) has another
  // hidden class once planQuery is optimised, and map would throw the optimised code away.
  const facetFilters: Query[] = [];
  for (const s of params.facetSelections) {
    if (s.values.length === 0) continue;
    facetFilters.push({
      kind: 'bool',
      should: packedMap(s.values, (v) => ({
        kind: 'term',
        field: FACET_FIELD_PREFIX + s.className,
        term: v,
      })),
    });
  }
  const redirects: Query = { kind: 'term', field: REDIRECT_FIELD, term: 'true' };
  const wrap = (tree: Query): Query =>
    filters.length === 0 && facetFilters.length === 0 && isAnyOf(tree)
      ? { ...tree, mustNot: [...(tree.mustNot ?? []), redirects] }
      : { kind: 'bool', must: [tree], filter: [...filters, ...facetFilters], mustNot: [redirects] };

  const start = Math.max(1, params.startRank);
  const pageEnd = start - 1 + params.numRanks;
  const boosted = qieWeight > 0 || clickWeight > 0;
  let ranked: QueryPlan['ranked'] = null;
  let fullyCount: QueryPlan['fullyCount'] = null;
  if (parsed.tree !== null) {
    ranked = {
      query: wrap(parsed.tree),
      options: {
        // A sort other than relevance, or a distance limit, orders or filters every match
        // (up to the exact-count limit) before the page is cut.
        k: needsAllMatches(params) ? EXACT_COUNT_LIMIT : pageEnd + (boosted ? RERANK_EXTRA : 0),
        scoring,
        stats,
        totalHitsThreshold: EXACT_COUNT_LIMIT,
        ...within,
      },
    };
    if (!params.fmo && parsed.words.length > 1) {
      const all = allRequired(parsed.tree);
      fullyCount = {
        query: wrap(all),
        options: { k: 0, scoring, stats, totalHitsThreshold: EXACT_COUNT_LIMIT, ...within },
      };
    }
  }
  return { parsed, scoring, qieWeight, clickWeight, ranked, fullyCount, wrap, coordBoost };
}

/**
 * A tree that matches documents with at least one of its `should` clauses (words any of,
 * the default tiers): it takes the redirect exclusion itself instead of being nested under
 * a `must`, which leaves the engine a top-level any-of, run by MaxScore (whose non-essential
 * clauses are skipped) instead of a disjunction under the block-max runner. Same matches,
 * same scores; past the exact-count limit the lower bound reported differs (it is the
 * matches visited before the limit was reached and pruning started).
 */
function isAnyOf(tree: Query): tree is BooleanQuery {
  return (
    tree.kind === 'bool' &&
    (tree.must?.length ?? 0) === 0 &&
    (tree.filter?.length ?? 0) === 0 &&
    (tree.should?.length ?? 0) > 0 &&
    (tree.minShouldMatch ?? 1) >= 1
  );
}

/**
 * Runs a search over a view: the ranked query, query-independent evidence, the page of
 * results with summaries, facets and "did you mean". Pure: reads only the view. Given
 * `explanations`, it receives why each result of the page scored what it did (the admin UI's
 * query tester; see {@link explainHit}).
 */
export function runSearch(
  view: SearchView,
  params: SearchParams,
  clickTrackingUrl: ClickTrackingUrl,
  explanations?: Explanation[],
  budget: WorkBudget = new WorkBudget(),
): SearchResponse {
  const generations: GenerationView[] = [];
  const owner: { member: SearchMember; local: number }[] = [];
  for (const member of view.members) {
    member.searcher.generations.forEach((generation, local) => {
      generations.push(generation);
      owner.push({ member, local });
    });
  }
  const stats = statisticsFromGenerations(generations);
  const plan = planQuery(view, params, stats, budget);
  const { parsed, scoring } = plan;

  const start = Math.max(1, params.startRank);
  const pageEnd = start - 1 + params.numRanks;
  let hits: { generationIndex: number; docId: number; score: number }[] = [];
  let total = 0;
  let exact = true;
  let fully = 0;
  if (plan.ranked !== null) {
    const result = executeQuery(generations, plan.ranked.query, plan.ranked.options);
    total = result.totalHits;
    exact = result.totalHitsExact;
    const boosted = plan.qieWeight > 0 || plan.clickWeight > 0;
    hits = boosted ? rerank(result.hits, generations, plan.qieWeight, plan.clickWeight) : result.hits;
    fully = total;
    // Past the deadline the count would only say 0: every match counts as fully matching then.
    if (plan.fullyCount !== null && !budget.expired())
      fully = executeQuery(generations, plan.fullyCount.query, plan.fullyCount.options).totalHits;
  }
  const queryTerms = new Set(parsed.terms.map((t) => t.term));
  const summaryAnalyzer = view.schema.analyzerFor('body');
  const flags = view.settings.config.queryProcessorFlags;
  const summaryFields = summaryFieldsOf(flags);
  const summaryMode = summaryModeOf(flags);
  const geoClasses = geospatialClasses(view.settings);
  const summarizer = new Summarizer(summaryAnalyzer, queryTerms);
  const candidateOf = (hit: (typeof hits)[number], order: number): SortCandidate<(typeof hits)[number]> => {
    const { member, local } = owner[hit.generationIndex]!;
    const record = member.searcher.stored(local, hit.docId, RESULT_FIELDS, RESULT_TEXT_CHARS);
    const classes = JSON.parse((record[STORED.classes] as string | undefined) ?? '{}') as Record<
      string,
      string[]
    >;
    const location = params.origin === undefined ? undefined : locationOf(classes, geoClasses);
    const km = location === undefined ? undefined : kmBetween(params.origin!, location);
    return { hit, order, key: record.$key as string, record, classes, km };
  };
  let pageCandidates: SortCandidate<(typeof hits)[number]>[];
  if (needsAllMatches(params)) {
    let all = packedMap(hits, candidateOf);
    if (params.origin !== undefined && params.maxdist !== undefined)
      all = all.filter((c) => c.km !== undefined && c.km <= params.maxdist!);
    if (all.length !== hits.length || total <= hits.length) {
      // Every match was read (or filtered): the count is the filtered one.
      total = all.length;
      fully = Math.min(fully, total);
    }
    pageCandidates = sortCandidates(all, params.sort ?? { kind: 'relevance' }).slice(start - 1, pageEnd);
  } else {
    // packedMap, not map: one hidden class for these arrays whether or not runSearch is optimised yet.
    pageCandidates = packedMap(hits.slice(start - 1, pageEnd), (hit, i) => candidateOf(hit, start - 1 + i));
  }
  const page = packedMap(pageCandidates, (c) => c.hit);
  if (explanations !== undefined && plan.ranked !== null) {
    const ranked = plan.ranked;
    for (const hit of page)
      explanations.push(
        explainHit(generations[hit.generationIndex]!, hit, ranked.query, { scoring, stats }, plan),
      );
  }
  const results = packedMap(pageCandidates, ({ hit, record, classes, km }, i): SearchResult => {
    const { member } = owner[hit.generationIndex]!;
    const key = record.$key as string;
    const rank = start + i;
    const metaData = metaDataOf(classes, summaryFields);
    const summary =
      summaryMode === 'off'
        ? ''
        : summaryMode === 'meta'
          ? escapeHtml(Object.values(metaData).join(' '))
          : summarizer.summarize((record[STORED.text] as string | undefined) ?? '');
    return {
      rank,
      score: Math.round(clientScore(hit.score, plan.coordBoost) * 1000) / 1000,
      title: (record[STORED.title] as string | undefined) || key,
      liveUrl: key,
      displayUrl: key.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''),
      // Clicks are logged under the result's own collection (a meta collection has no documents).
      clickTrackingUrl: clickTrackingUrl(member.name, key, rank, params.query),
      summary,
      listMetadata: classes,
      metaData,
      collection: member.name,
      gscopesSet: gscopesOf(generations[hit.generationIndex]!, hit.docId, member.settings),
      fileSize: (record[STORED.fileSize] as number | undefined) ?? 0,
      fileType: (record[STORED.fileType] as string | undefined) ?? 'unknown',
      date: (record[STORED.date] as string | undefined) ?? null,
      ...(params.origin !== undefined
        ? { kmFromOrigin: km === undefined ? null : Math.round(km * 1000) / 1000 }
        : {}),
    };
  });

  const facets = facetsOf(
    view.settings,
    params,
    plan.ranked === null ? null : plan.ranked.query,
    generations,
    scoring,
    stats,
    budget,
  );
  const analyzerFor = analyzerLookup(view.schema);
  const spell =
    parsed.tree !== null && parsed.words.length > 0 && !budget.expired()
      ? suggestSpelling(parsed.words, {
          analyzer: summaryAnalyzer,
          docFreq: (term) => {
            let df = 0;
            for (const member of view.members) df += probedDocFreq(member.searcher.generations, term);
            return df;
          },
          docFreqs: (terms) => {
            const dfs = new Int32Array(terms.length);
            for (const member of view.members) addProbedDocFreqs(member.searcher.generations, terms, dfs);
            return dfs;
          },
          termsWithPrefix: (prefix, limit) => {
            const all = new Set<string>();
            for (const g of generations)
              for (const term of g.termsWithPrefix('body', prefix, limit)) all.add(term);
            return [...all];
          },
          surfaceOf: (term, preferred) => surfaceOf(term, preferred, generations, owner, summaryAnalyzer),
          // Documents with every word: "transmision control" matches thousands by "control"
          // alone, none fully; "transmission control" matches many fully.
          count: (text) => {
            const alternative = parseQuery(text, { analyzerFor, allRequired: true, coordBoost: 0 });
            return alternative.tree === null
              ? 0
              : executeQuery(generations, plan.wrap(alternative.tree), { k: 0, scoring, stats, budget })
                  .totalHits;
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
      searchedFor: parsed.searched.join(' '),
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
          timedOut: budget.timedOut,
          prefixTermsCapped: budget.prefixTermsCapped,
        },
        results,
        spell: spell === null ? null : { text: spell },
      },
      facets,
    },
  };
}

/**
 * Body docFreqs "did you mean" probed, per point in time (a member's generations of one
 * manifest: the same array for every query that reads it, gone with it). A misspelled word
 * probes some 700 edits in every generation; a typo users repeat (a popular query, the next
 * page) finds them here at one lookup each instead of again in every generation.
 */
const probedDocFreqs = new WeakMap<readonly GenerationView[], BoundedMap<string, number>>();
/**
 * Edits remembered per point in time, those of a few words: the 2,048 most recently used, at
 * most 4,096 (a typo asked for the first time remembers ~700, at no eviction cost: see
 * BoundedMap).
 */
const PROBED_PER_POINT = 2048;

function probedOf(generations: readonly GenerationView[]): BoundedMap<string, number> {
  let probed = probedDocFreqs.get(generations);
  if (probed === undefined) probedDocFreqs.set(generations, (probed = new BoundedMap(PROBED_PER_POINT)));
  return probed;
}

function probedDocFreq(generations: readonly GenerationView[], term: string): number {
  const probed = probedOf(generations);
  let df = probed.get(term);
  if (df === undefined) {
    df = 0;
    for (const generation of generations) df += generation.probeDocFreq('body', term);
    probed.set(term, df);
  }
  return df;
}

/**
 * Adds the body docFreq of each of `terms` in `generations` to `out` (same index): those not
 * remembered are looked up together, in one pass over each generation's dictionary.
 */
function addProbedDocFreqs(
  generations: readonly GenerationView[],
  terms: readonly string[],
  out: Int32Array,
): void {
  const probed = probedOf(generations);
  const missing: string[] = [];
  const missingAt: number[] = [];
  terms.forEach((term, i) => {
    const df = probed.get(term);
    if (df !== undefined) out[i]! += df;
    else {
      missing.push(term);
      missingAt.push(i);
    }
  });
  if (missing.length === 0) return;
  const probes = new TermProbes(missing);
  const found = new Int32Array(probes.terms.length);
  for (const generation of generations) generation.probeDocFreqs('body', probes, found);
  missing.forEach((term, j) => {
    const df = found[probes.slotOf[j]!]!;
    out[missingAt[j]!]! += df;
    probed.set(term, df);
  });
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

function analyzerLookup(schema: Schema): (field: string | undefined) => Analyzer {
  return (field) => schema.analyzerFor(field ?? 'body');
}

/**
 * The tree `parseQuery` gives with another `coordBoost`: the boost is only ever set on the
 * top-level boolean query it assembles.
 */
function withCoordBoost(tree: Query | null, coordBoost: number): Query | null {
  if (tree === null || tree.kind !== 'bool' || tree.coordBoost === undefined) return tree;
  return { ...tree, coordBoost };
}

/**
 * The tree `parseQuery` gives with `allRequired` (every clause without an operator becomes
 * `must`), for counting: the clauses may be in another order, which changes no count. A
 * top-level boolean query with `minShouldMatch` is a bracket (`[a b]`), one clause that
 * `allRequired` leaves as it is.
 */
function allRequired(tree: Query): Query {
  if (tree.kind !== 'bool' || tree.minShouldMatch !== undefined || tree.should === undefined) return tree;
  const { should, coordBoost: _coordBoost, ...rest } = tree;
  return { ...rest, must: [...(tree.must ?? []), ...should] };
}

function facetsOf(
  settings: CollectionSettings,
  params: SearchParams,
  query: Query | null,
  generations: GenerationView[],
  scoring: ScoringOptionsInput,
  stats: CollectionStatistics,
  budget: WorkBudget,
): FacetView[] {
  const definitions = facetDefinitions(settings);
  if (definitions.length === 0 || query === null || budget.expired()) return [];
  let matches: Uint8Array[];
  try {
    matches = matchSet(generations, query, { scoring, stats, budget });
  } catch (error) {
    // Counts from part of the match set would be wrong: no facets rather than false ones.
    if (error instanceof BudgetExhausted) return [];
    throw error;
  }
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
  const rescored = packedMap(hits, (hit) => {
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

/**
 * A word of a document's text that analyses to `term` (spelling suggestions are shown as words,
 * not stems), one of `preferred` (words known to analyse to `term` alone) if a text holds one.
 * In the newest generation that has the term, of its first {@link SURFACE_CANDIDATES} live
 * documents, those where the term comes earliest (its first position) are read first, at most
 * {@link SURFACE_TEXTS} of them, until one holds a preferred word; a preferred word is looked
 * for as a substring (then confirmed as a whole token), the first word as typed by a scan of
 * the first text.
 */
function surfaceOf(
  term: string,
  preferred: readonly string[],
  generations: GenerationView[],
  owner: { member: SearchMember; local: number }[],
  analyzer: Analyzer,
): string | undefined {
  for (let g = generations.length - 1; g >= 0; g--) {
    const postings = generations[g]!.postings('body', term, true);
    if (postings === null) continue;
    const candidates: { doc: number; first: number }[] = [];
    for (
      let doc = postings.nextDoc();
      doc !== NO_MORE_DOCS && candidates.length < SURFACE_CANDIDATES;
      doc = postings.nextDoc()
    ) {
      if (!generations[g]!.isKilled(doc))
        candidates.push({ doc, first: postings.positions()[0] ?? Infinity });
    }
    candidates.sort((a, b) => a.first - b.first || a.doc - b.doc);
    const { member, local } = owner[g]!;
    const textOf = (doc: number): string =>
      (member.searcher.stored(local, doc, TEXT_FIELD, SURFACE_TEXT)[STORED.text] as string | undefined) ?? '';
    // Read one at a time: the first text that holds a preferred word ends the search (the
    // texts where the word comes earliest are read first, so it is most often the first).
    let firstText: string | undefined;
    if (preferred.length > 0) {
      for (let i = 0; i < Math.min(SURFACE_TEXTS, candidates.length); i++) {
        const text = textOf(candidates[i]!.doc);
        firstText ??= text;
        const lower = text.toLowerCase();
        const word = preferred.find((p) => holdsWord(analyzer, lower, p));
        if (word !== undefined) return word;
      }
    }
    // As written (an analysis without case folding must see the case), shown in lower case.
    const first =
      candidates.length > 0 ? firstWordOf(analyzer, firstText ?? textOf(candidates[0]!.doc), term) : null;
    if (first !== null) return first.toLowerCase();
  }
  return undefined;
}

/** Documents {@link surfaceOf} compares to find those where the word comes early. */
const SURFACE_CANDIDATES = 16;
/** Texts {@link surfaceOf} reads looking for a preferred word. */
const SURFACE_TEXTS = 4;
/** Occurrences of a preferred word as a substring of a text that are checked to be a token. */
const SUBSTRING_CHECKS = 20;

/** True when `word` is a whole token of `text` (both in lower case). */
function holdsWord(analyzer: Analyzer, text: string, word: string): boolean {
  let checks = 0;
  for (
    let at = text.indexOf(word);
    at >= 0 && checks < SUBSTRING_CHECKS;
    at = text.indexOf(word, at + 1), checks++
  ) {
    // The tokens of the white-space-delimited stretch around it (no token spans white space).
    const from = spaceBefore(text, at);
    const to = windowEnd(text, at + word.length, 0);
    let whole = false;
    analyzer.forEachToken(text.slice(from, to), 0, {
      token(_source, start, end) {
        if (from + start === at && from + end === at + word.length) whole = true;
      },
    });
    if (whole) return true;
  }
  return false;
}

/** Just after the last white space before `at` (0 when none). */
function spaceBefore(text: string, at: number): number {
  for (let i = at - 1; i >= 0; i--) if (isJsSpace(text.charCodeAt(i))) return i + 1;
  return 0;
}

/**
 * The first word of `text` that analyses to `term`, or null. The text is analysed in windows
 * of growing size, each cut just after white space (no token spans it), until the window that
 * holds the word: scanning a whole page (up to 20,000 characters) cost more than
 * the rest of a suggestion.
 */
function firstWordOf(analyzer: Analyzer, text: string, term: string): string | null {
  let first: string | null = null;
  const sink = {
    token(source: string, start: number, end: number, kind: number): void {
      if (first === null && analyzer.termOfToken(source, start, end, kind) === term)
        first = source.slice(start, end);
    },
  };
  let from = 0;
  for (let size = FIRST_WINDOW; from < text.length && first === null; size *= 4) {
    const to = windowEnd(text, from, size);
    analyzer.forEachToken(text.slice(from, to), 0, sink);
    from = to;
  }
  return first;
}

/** Characters of the first window {@link firstWordOf} analyses. */
const FIRST_WINDOW = 2048;

/**
 * The end of a window of at least `size` characters from `from`: just after the first white
 * space from there (the end of the text when none).
 */
function windowEnd(text: string, from: number, size: number): number {
  for (let i = from + size; i < text.length; i++) if (isJsSpace(text.charCodeAt(i))) return i + 1;
  return text.length;
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

/** A hit's score explained: the text score (`explainQuery`) plus the evidence {@link rerank} adds. */
function explainHit(
  view: GenerationView,
  hit: { docId: number; score: number },
  query: Query,
  options: ExplainOptions,
  weights: { qieWeight: number; clickWeight: number },
): Explanation {
  const text = explainQuery(view, hit.docId, query, options);
  const details: Explanation[] = [{ ...text, description: `text (BM25F): ${text.description}` }];
  const boosted = weights.qieWeight > 0 || weights.clickWeight > 0;
  const qie = view.numericValues(QIE_FIELD)?.[hit.docId];
  if (boosted && qie !== undefined && !Number.isNaN(qie))
    details.push({
      value: weights.qieWeight * qie,
      matched: true,
      description: `evidence: query-independent (qie.cfg) ${qie} × weight ${weights.qieWeight}`,
      details: [],
    });
  const clicks = view.numericValues(CLICK_SCORE_FIELD)?.[hit.docId];
  if (boosted && clicks !== undefined && !Number.isNaN(clicks))
    details.push({
      value: weights.clickWeight * Math.log1p(clicks),
      matched: true,
      description: `evidence: clicks ln(1 + ${clicks}) × weight ${weights.clickWeight}`,
      details: [],
    });
  return { value: hit.score, matched: true, description: 'score', details };
}
