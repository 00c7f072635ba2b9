import { SearchError } from '../errors.js';
import { NO_MORE_DOCS, type GenerationView } from '../index/generation-view.js';
import { ArrayPostingsList, type ArrayPostings } from './array-postings.js';
import { Bm25fScorer, type FieldFrequencies } from './bm25f-scorer.js';
import { BlockMaxBulkScorer, type BulkScorer } from './bulk-scorer.js';
import type { CollectionStatistics } from './collection-statistics.js';
import { ConjunctionScorer } from './conjunction-scorer.js';
import { DisjunctionScorer } from './disjunction-scorer.js';
import { MatchAllScorer } from './match-all-scorer.js';
import { MaxScoreBulkScorer } from './max-score-bulk-scorer.js';
import { packedMap } from './packed-map.js';
import { PhrasePostings } from './phrase-postings.js';
import { PhraseScorer } from './phrase-scorer.js';
import type { BooleanQuery, PhraseQuery, Query } from './query-tree.js';
import { RangeScorer } from './range-scorer.js';
import { ReqExclScorer } from './req-excl-scorer.js';
import { ReqOptScorer } from './req-opt-scorer.js';
import type { Scorer } from './scorer.js';
import type { ScoringOptions } from './scoring-options.js';
import { DEFAULT_MAX_PREFIX_TERMS, type WorkBudget } from './work-budget.js';
import { bm25Idf, fieldModel, Saturation, termDocFreq, type FieldModel } from './similarity.js';

/** A prefix query scores at most this many expansions (the ones with the highest df), unless the budget says otherwise. */
export const MAX_PREFIX_EXPANSIONS = DEFAULT_MAX_PREFIX_TERMS;
/** How many terms per field and generation are read to choose the expansions. */
export const PREFIX_SCAN_LIMIT = 1 << 16;

/**
 * A query node prepared for execution (Lucene's Weight): everything that depends on the
 * whole collection (idf, field averages, prefix expansions) is computed once; `scorer` then
 * opens the node on one generation.
 */
export interface Weight {
  /** Null when nothing in the generation can match. */
  scorer(view: GenerationView): Scorer | null;
  /** The top-level runner for the generation (null: no match). */
  bulkScorer(view: GenerationView): BulkScorer | null;
  /** Exact number of live matches when known without iterating, else -1. */
  count(view: GenerationView): number;
}

/** What weights share while a query tree is prepared. */
export interface WeightContext {
  readonly options: ScoringOptions;
  readonly stats: CollectionStatistics;
  readonly generations: readonly GenerationView[];
  /** The query's deadline and prefix cap; none: no deadline, the default cap. */
  readonly budget?: WorkBudget;
}

function invalid(message: string): never {
  throw new SearchError('QUERY_INVALID', message);
}

abstract class BaseWeight implements Weight {
  abstract scorer(view: GenerationView): Scorer | null;

  bulkScorer(view: GenerationView): BulkScorer | null {
    const s = this.scorer(view);
    return s === null ? null : new BlockMaxBulkScorer(s);
  }

  count(_view: GenerationView): number {
    return -1;
  }
}

class NoMatchWeight extends BaseWeight {
  scorer(): Scorer | null {
    return null;
  }

  override count(): number {
    return 0;
  }
}

/** Shared by the pseudo-term weights: the fields searched and their constants. */
class FieldSet {
  readonly fields: readonly string[];
  private readonly models: FieldModel[];
  private readonly unnormalised: FieldModel[];

  constructor(ctx: WeightContext, field: string | undefined) {
    this.fields = field === undefined ? ctx.options.defaultFields : [field];
    this.models = packedMap(this.fields, (f) => fieldModel(ctx.options, ctx.stats, f));
    // Same property order as fieldModel's, so that scorers read one kind of model.
    this.unnormalised = packedMap(this.models, (m) => ({
      field: m.field,
      weight: m.weight,
      a: 1,
      bOverAvg: 0,
    }));
  }

  /**
   * Per field of the generation: `open(field, lengths)` gives the frequencies (null: none
   * there). Empty result: nothing matches. A field may have postings but no lengths (the
   * index does not keep them for keyword fields such as facets and scopes): its frequencies
   * are then not length-normalised (b = 0) and its lengths read as 0.
   */
  open(
    view: GenerationView,
    open: (field: string, lengths: Uint32Array) => FieldFrequencies['postings'] | null,
  ) {
    const out: FieldFrequencies[] = [];
    for (let i = 0; i < this.fields.length; i++) {
      const stored = view.fieldLengths(this.fields[i]);
      const lengths = stored ?? zeroLengths(view.maxDoc);
      const postings = open(this.fields[i], lengths);
      if (postings !== null) {
        out.push({ postings, model: stored === null ? this.unnormalised[i] : this.models[i], lengths });
      }
    }
    return out;
  }
}

/** Shared all-zero lengths for fields without stored lengths (never written to). */
let zeros = new Uint32Array(0);
function zeroLengths(maxDoc: number): Uint32Array {
  if (zeros.length < maxDoc) zeros = new Uint32Array(Math.max(maxDoc, zeros.length * 2));
  return zeros;
}

class TermWeight extends BaseWeight {
  private readonly fieldSet: FieldSet;
  private readonly term: string;
  private readonly sat: Saturation;

  constructor(ctx: WeightContext, field: string | undefined, term: string, boost: number) {
    super();
    this.fieldSet = new FieldSet(ctx, field);
    this.term = term;
    const idf = bm25Idf(ctx.stats.docCount, termDocFreq(ctx.stats, this.fieldSet.fields, term));
    this.sat = new Saturation(idf, boost, ctx.options.k1);
  }

  scorer(view: GenerationView): Scorer | null {
    const fields = this.fieldSet.open(view, (f) => view.postings(f, this.term, false));
    return fields.length === 0 ? null : new Bm25fScorer(fields, this.sat);
  }
}

class PhraseWeight extends BaseWeight {
  private readonly fieldSet: FieldSet;
  private readonly uniqueTerms: string[];
  private readonly slotTerm: number[];
  private readonly offsets: number[];
  private readonly sat: Saturation;

  constructor(ctx: WeightContext, q: PhraseQuery, boost: number) {
    super();
    this.fieldSet = new FieldSet(ctx, q.field);
    // Built by push, as packed arrays of small integers (see packedMap).
    this.offsets = [];
    for (let i = 0; i < q.terms.length; i++) this.offsets.push(q.positions?.[i] ?? i);
    const index = new Map<string, number>();
    this.uniqueTerms = [];
    this.slotTerm = [];
    for (const t of q.terms) {
      let i = index.get(t);
      if (i === undefined) {
        i = this.uniqueTerms.push(t) - 1;
        index.set(t, i);
      }
      this.slotTerm.push(i);
    }
    let idf = 0;
    for (const t of q.terms)
      idf += bm25Idf(ctx.stats.docCount, termDocFreq(ctx.stats, this.fieldSet.fields, t));
    this.sat = new Saturation(idf, boost, ctx.options.k1);
  }

  scorer(view: GenerationView): Scorer | null {
    const fields = this.fieldSet.open(view, (f) => {
      const its = [];
      for (const t of this.uniqueTerms) {
        const p = view.postings(f, t, true);
        if (p === null) return null;
        its.push(p);
      }
      return new PhrasePostings(its, this.slotTerm, this.offsets);
    });
    return fields.length === 0 ? null : new PhraseScorer(fields, this.sat);
  }
}

/**
 * Scratch space of prefix unions, indexed by docId and kept between queries: the executor
 * is synchronous, so one pair serves every query without allocating maxDoc-sized arrays.
 * Invariant: prefixTf is all zeros outside a union.
 */
let prefixTf = new Int32Array(0);
let prefixTouched = new Int32Array(0);

/**
 * A prefix is one pseudo-term: per field, the union of its expansions' postings with their
 * frequencies added, materialised once per generation into an {@link ArrayPostingsList} (so it
 * gets block-max data like any term).
 */
class PrefixWeight extends BaseWeight {
  private readonly fieldSet: FieldSet;
  private readonly expansions: string[];
  private readonly sat: Saturation;
  private readonly budget: WorkBudget | undefined;

  constructor(ctx: WeightContext, field: string | undefined, prefix: string, boost: number) {
    super();
    this.budget = ctx.budget;
    this.fieldSet = new FieldSet(ctx, field);
    const found = new Set<string>();
    for (const view of ctx.generations) {
      for (const f of this.fieldSet.fields) {
        ctx.budget?.check();
        for (const t of view.termsWithPrefix(f, prefix, PREFIX_SCAN_LIMIT)) found.add(t);
      }
    }
    const cap = ctx.budget?.maxPrefixTerms ?? MAX_PREFIX_EXPANSIONS;
    // Flagged before the document frequencies are read: the deadline may stop that.
    if (found.size > cap && ctx.budget !== undefined) ctx.budget.prefixTermsCapped = true;
    const dfs = new Map<string, number>();
    for (const t of found) {
      ctx.budget?.tick();
      dfs.set(t, termDocFreq(ctx.stats, this.fieldSet.fields, t));
    }
    let terms = [...found];
    if (terms.length > cap) {
      terms.sort((a, b) => dfs.get(b)! - dfs.get(a)! || (a < b ? -1 : a > b ? 1 : 0));
      terms = terms.slice(0, cap);
    }
    this.expansions = terms;
    let df = 0;
    for (const t of terms) df += dfs.get(t)!;
    const n = ctx.stats.docCount;
    this.sat = new Saturation(bm25Idf(n, Math.min(n, df)), boost, ctx.options.k1);
  }

  scorer(view: GenerationView): Scorer | null {
    if (this.expansions.length === 0) return null;
    const fields = this.fieldSet.open(view, (f, lengths) => this.union(view, f, lengths));
    return fields.length === 0 ? null : new Bm25fScorer(fields, this.sat);
  }

  /** The expansions' postings in field f merged into one list, frequencies added. */
  private union(view: GenerationView, field: string, lengths: Uint32Array): ArrayPostings | null {
    if (prefixTf.length < view.maxDoc) {
      prefixTf = new Int32Array(view.maxDoc);
      prefixTouched = new Int32Array(view.maxDoc);
    }
    const tf = prefixTf;
    const touched = prefixTouched;
    let count = 0;
    try {
      for (const t of this.expansions) {
        this.budget?.check();
        const p = view.postings(field, t, false);
        if (p === null) continue;
        for (let d = p.nextDoc(); d !== NO_MORE_DOCS; d = p.nextDoc()) {
          if (tf[d] === 0) touched[count++] = d;
          tf[d] += p.freq();
        }
      }
      if (count === 0) return null;
      const docs = touched.slice(0, count).sort();
      const freqs = new Int32Array(count);
      for (let i = 0; i < count; i++) freqs[i] = tf[docs[i]];
      return new ArrayPostingsList(docs, freqs, lengths).iterator();
    } finally {
      // The scratch array must be all zeros for the next union, even after a read error.
      for (let i = 0; i < count; i++) tf[touched[i]] = 0;
    }
  }
}

class MatchAllWeight extends BaseWeight {
  scorer(view: GenerationView): Scorer | null {
    return view.maxDoc === 0 ? null : new MatchAllScorer(view.maxDoc);
  }

  override count(view: GenerationView): number {
    return view.maxDoc - view.killedCount;
  }
}

class RangeWeight extends BaseWeight {
  constructor(
    private readonly field: string,
    private readonly min: number,
    private readonly max: number,
  ) {
    super();
  }

  scorer(view: GenerationView): Scorer | null {
    const values = view.numericValues(this.field);
    return values === null ? null : new RangeScorer(values, this.min, this.max);
  }
}

class BooleanWeight extends BaseWeight {
  private readonly must: Weight[];
  private readonly should: Weight[];
  private readonly mustNot: Weight[];
  private readonly filter: Weight[];
  private readonly msm: number;
  private readonly coord: number;

  constructor(ctx: WeightContext, q: BooleanQuery, boost: number) {
    super();
    // Filters and exclusions never score: a 0 boost gives them 0 scores and 0 bounds.
    this.must = packedMap(q.must ?? [], (c) => createWeight(ctx, c, boost));
    this.should = packedMap(q.should ?? [], (c) => createWeight(ctx, c, boost));
    this.mustNot = packedMap(q.mustNot ?? [], (c) => createWeight(ctx, c, 0));
    this.filter = packedMap(q.filter ?? [], (c) => createWeight(ctx, c, 0));
    const required = this.must.length + this.filter.length > 0;
    const msm = q.minShouldMatch ?? (required ? 0 : 1);
    if (!Number.isInteger(msm) || msm < 0) invalid(`minShouldMatch must be an integer >= 0, got ${msm}`);
    // Without required clauses, a bool of should clauses needs at least one of them.
    this.msm = required ? msm : Math.max(1, msm);
    const coord = q.coordBoost ?? 0;
    if (!Number.isFinite(coord) || coord < 0)
      invalid(`coordBoost must be a finite number >= 0, got ${coord}`);
    this.coord = coord * boost;
  }

  private static open(weights: Weight[], view: GenerationView): (Scorer | null)[] {
    return packedMap(weights, (w) => w.scorer(view));
  }

  private exclusion(view: GenerationView): Scorer | null {
    const excl = BooleanWeight.open(this.mustNot, view).filter((s): s is Scorer => s !== null);
    if (excl.length === 0) return null;
    return excl.length === 1 ? excl[0] : new DisjunctionScorer(excl);
  }

  private disjunction(should: Scorer[], msm: number): Scorer {
    return should.length === 1 && this.coord === 0
      ? should[0]
      : new DisjunctionScorer(should, this.coord, msm);
  }

  scorer(view: GenerationView): Scorer | null {
    const required: Scorer[] = [];
    const scoring: Scorer[] = [];
    for (const s of BooleanWeight.open(this.must, view)) {
      if (s === null) return null;
      required.push(s);
      scoring.push(s);
    }
    for (const s of BooleanWeight.open(this.filter, view)) {
      if (s === null) return null;
      required.push(s);
    }
    const should = BooleanWeight.open(this.should, view).filter((s): s is Scorer => s !== null);
    const pureNegative = required.length === 0 && this.should.length === 0;
    if (should.length < this.msm && !pureNegative) return null;
    let base: Scorer;
    if (required.length === 0) {
      if (should.length > 0) {
        base = this.disjunction(should, this.msm);
      } else if (pureNegative && this.mustNot.length > 0) {
        // Only exclusions: everything but them (as Elasticsearch does; Lucene would match nothing).
        base = new MatchAllScorer(view.maxDoc);
      } else {
        return null;
      }
    } else {
      const req = required.length === 1 ? required[0] : new ConjunctionScorer(required, scoring);
      if (should.length === 0) {
        base = req;
      } else if (this.msm > 0) {
        const opt = this.disjunction(should, this.msm);
        base = new ConjunctionScorer([...required, opt], [...scoring, opt]);
      } else {
        base = new ReqOptScorer(req, this.disjunction(should, 1));
      }
    }
    const excl = this.exclusion(view);
    return excl === null ? base : new ReqExclScorer(base, excl);
  }

  override bulkScorer(view: GenerationView): BulkScorer | null {
    if (this.must.length + this.filter.length === 0 && this.msm <= 1 && this.should.length >= 2) {
      const should = BooleanWeight.open(this.should, view).filter((s): s is Scorer => s !== null);
      if (should.length === 0) return null;
      if (should.length >= 2) return new MaxScoreBulkScorer(should, this.coord, this.exclusion(view));
      const excl = this.exclusion(view);
      const single = this.disjunction(should, 1);
      return new BlockMaxBulkScorer(excl === null ? single : new ReqExclScorer(single, excl));
    }
    return super.bulkScorer(view);
  }
}

function checkBoost(boost: number): void {
  if (!Number.isFinite(boost) || boost < 0) invalid(`boost must be a finite number >= 0, got ${boost}`);
}

/**
 * Prepares a query tree. Boosts are pushed down to the leaves (and into coordBoost), so no
 * scorer multiplies at run time. Throws `QUERY_INVALID` for malformed trees.
 */
export function createWeight(ctx: WeightContext, query: Query, boost = 1): Weight {
  switch (query.kind) {
    case 'term':
      return new TermWeight(ctx, query.field, query.term, boost);
    case 'phrase': {
      if (query.positions !== undefined) {
        if (query.positions.length !== query.terms.length) {
          invalid(
            `phrase positions (${query.positions.length}) must have one entry per term (${query.terms.length})`,
          );
        }
        if (!query.positions.every((p) => Number.isInteger(p))) invalid('phrase positions must be integers');
      }
      if (query.terms.length === 0) return new NoMatchWeight();
      if (query.terms.length === 1) return new TermWeight(ctx, query.field, query.terms[0], boost);
      return new PhraseWeight(ctx, query, boost);
    }
    case 'prefix':
      return new PrefixWeight(ctx, query.field, query.prefix, boost);
    case 'bool':
      return new BooleanWeight(ctx, query, boost);
    case 'all':
      return new MatchAllWeight();
    case 'range': {
      const min = query.min ?? -Infinity;
      const max = query.max ?? Infinity;
      if (Number.isNaN(min) || Number.isNaN(max))
        invalid(`range bounds of field "${query.field}" must be numbers`);
      return min > max ? new NoMatchWeight() : new RangeWeight(query.field, min, max);
    }
    case 'boost':
      checkBoost(query.boost);
      return createWeight(ctx, query.query, boost * query.boost);
    default:
      return invalid(`unknown query kind ${(query as { kind: unknown }).kind}`);
  }
}
