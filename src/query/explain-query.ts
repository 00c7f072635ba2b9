import type { GenerationView } from '../index/generation-view.js';
import type { CollectionStatistics } from './collection-statistics.js';
import { createWeight, type WeightContext } from './create-weight.js';
import type { Query } from './query-tree.js';
import { resolveScoringOptions, type ScoringOptions, type ScoringOptionsInput } from './scoring-options.js';
import { bm25Idf, fieldModel, termDocFreq } from './similarity.js';

/** Why a document scored what it did: a tree like Lucene's `Explanation`. */
export interface Explanation {
  /** The score this node adds (0 for filters and for nodes that did not match). */
  value: number;
  /** Whether the node matched the document. */
  matched: boolean;
  description: string;
  details: Explanation[];
}

/** Options of {@link explainQuery}: the same scoring and statistics the query ran with. */
export interface ExplainOptions {
  scoring?: ScoringOptionsInput;
  stats: CollectionStatistics;
}

/**
 * Explains the score of one document (`docId` of `view`) under `query`: a pure function of
 * the index and the tree, as {@link executeQuery} scores them. Every scored leaf (term,
 * phrase, prefix) takes its value from the engine's own scorer on that one document, so the
 * explanation adds up to the executed score; term leaves also show the BM25F parts
 * (`similarity.ts`): idf, and per field tf, length, weight, b and normalised frequency.
 * Boolean nodes show which clauses matched and the `coordBoost` they earned (the result
 * tier: documents matching more clauses rank first).
 */
export function explainQuery(
  view: GenerationView,
  docId: number,
  query: Query,
  options: ExplainOptions,
): Explanation {
  const ctx: WeightContext = {
    options: resolveScoringOptions(options.scoring),
    stats: options.stats,
    generations: [view],
  };
  return explainNode(ctx, view, docId, query, 1);
}

function explainNode(
  ctx: WeightContext,
  view: GenerationView,
  docId: number,
  query: Query,
  boost: number,
): Explanation {
  switch (query.kind) {
    case 'bool':
      return explainBool(ctx, view, docId, query, boost);
    case 'boost':
      return explainNode(ctx, view, docId, query.query, boost * query.boost);
    case 'term':
      return withParts(
        leaf(ctx, view, docId, query, boost, `${label(query.field)}${query.term}`),
        termParts(ctx, view, docId, query.field, query.term, boost),
      );
    case 'phrase':
      return leaf(ctx, view, docId, query, boost, `${label(query.field)}"${query.terms.join(' ')}"`);
    case 'prefix':
      return leaf(ctx, view, docId, query, boost, `${label(query.field)}${query.prefix}*`);
    case 'range':
      return leaf(
        ctx,
        view,
        docId,
        query,
        boost,
        `${query.field} between ${query.min ?? '-∞'} and ${query.max ?? '∞'} (filter)`,
      );
    case 'all':
      return leaf(ctx, view, docId, query, boost, 'every document');
  }
}

function label(field: string | undefined): string {
  return field === undefined ? '' : `${field}:`;
}

/** A leaf scored by the engine's own scorer on this one document. */
function leaf(
  ctx: WeightContext,
  view: GenerationView,
  docId: number,
  query: Query,
  boost: number,
  description: string,
): Explanation {
  const scorer = createWeight(ctx, query, boost).scorer(view);
  const matched = scorer !== null && scorer.advance(docId) === docId;
  return {
    value: matched ? scorer.score() : 0,
    matched,
    description: matched ? description : `${description}: no match`,
    details: [],
  };
}

function withParts(explanation: Explanation, parts: Explanation[]): Explanation {
  return explanation.matched ? { ...explanation, details: parts } : explanation;
}

/** The BM25F parts of a term: idf and each field's contribution (see `similarity.ts`). */
function termParts(
  ctx: WeightContext,
  view: GenerationView,
  docId: number,
  field: string | undefined,
  term: string,
  boost: number,
): Explanation[] {
  const options: ScoringOptions = ctx.options;
  const fields = field === undefined ? options.defaultFields : [field];
  const df = termDocFreq(ctx.stats, fields, term);
  const idf = bm25Idf(ctx.stats.docCount, df);
  const parts: Explanation[] = [
    {
      value: idf,
      matched: true,
      description: `idf = ln(1 + (N - df + 0.5) / (df + 0.5)), N = ${ctx.stats.docCount}, df = ${df}`,
      details: [],
    },
  ];
  let sum = 0;
  for (const f of fields) {
    const postings = view.postings(f, term, false);
    if (postings === null || postings.advance(docId) !== docId) continue;
    const tf = postings.freq();
    const lengths = view.fieldLengths(f);
    const model = fieldModel(options, ctx.stats, f);
    const length = lengths?.[docId] ?? 0;
    // Fields without stored lengths are not length-normalised (as the scorer does).
    const norm = lengths === null ? 1 : model.a + model.bOverAvg * length;
    const ntf = (model.weight * tf) / norm;
    sum += ntf;
    parts.push({
      value: ntf,
      matched: true,
      description: `field ${f}: weight ${model.weight} × tf ${tf} / (1 - b + b × length ${length} / average length)`,
      details: [],
    });
  }
  parts.push({
    value: sum,
    matched: true,
    description: `S = Σ fields; score = ${boost === 1 ? '' : `boost ${boost} × `}idf × S × (k1 + 1) / (k1 + S), k1 = ${options.k1}`,
    details: [],
  });
  return parts;
}

function explainBool(
  ctx: WeightContext,
  view: GenerationView,
  docId: number,
  query: Extract<Query, { kind: 'bool' }>,
  boost: number,
): Explanation {
  const details: Explanation[] = [];
  let value = 0;
  let matched = true;
  for (const clause of query.must ?? []) {
    const e = explainNode(ctx, view, docId, clause, boost);
    details.push({ ...e, description: `required: ${e.description}` });
    value += e.value;
    matched &&= e.matched;
  }
  for (const clause of query.filter ?? []) {
    const e = explainNode(ctx, view, docId, clause, boost);
    details.push({ ...e, value: 0, description: `filter: ${e.description}` });
    matched &&= e.matched;
  }
  for (const clause of query.mustNot ?? []) {
    const e = explainNode(ctx, view, docId, clause, boost);
    details.push({ ...e, value: 0, matched: !e.matched, description: `excluded: ${e.description}` });
    matched &&= !e.matched;
  }
  const should = query.should ?? [];
  let shouldMatched = 0;
  for (const clause of should) {
    const e = explainNode(ctx, view, docId, clause, boost);
    details.push({ ...e, description: `optional: ${e.description}` });
    if (e.matched) {
      shouldMatched++;
      value += e.value;
    }
  }
  const required = (query.must?.length ?? 0) + (query.filter?.length ?? 0) > 0;
  const minShouldMatch = query.minShouldMatch ?? (required ? 0 : 1);
  if (shouldMatched < minShouldMatch) matched = false;
  const coord = (query.coordBoost ?? 0) * boost;
  if (coord > 0 && should.length > 0) {
    details.push({
      value: coord * shouldMatched,
      matched: true,
      description: `tier: ${shouldMatched} of ${should.length} clauses matched, ${coord} each`,
      details: [],
    });
    value += coord * shouldMatched;
  }
  return {
    value: matched ? value : 0,
    matched,
    description: matched ? 'sum of' : 'no match',
    details,
  };
}

/** The tier of an explanation: matched clauses of the first node that has a tier line, if any. */
export function tierOf(explanation: Explanation): number | undefined {
  for (const detail of explanation.details) {
    const match = /^tier: (\d+) of/.exec(detail.description);
    if (match !== null) return Number(match[1]);
    const inner = tierOf(detail);
    if (inner !== undefined) return inner;
  }
  return undefined;
}
