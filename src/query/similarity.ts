/**
 * BM25F, defined exactly so that a test oracle can recompute every score:
 *
 * - N = stats.docCount; for field f: avgLen_f = max(1, sumLength_f / N);
 *   ntf_f = tf_f / (1 - b_f + b_f * len_f / avgLen_f).
 * - A term over fields F (the default fields, or the one field it is scoped to):
 *   S = Σ_f weight_f * ntf_f; df = max_f df_f; idf = ln(1 + (N - df + 0.5) / (df + 0.5));
 *   score = boost * idf * S * (k1 + 1) / (k1 + S).
 * - A phrase is a pseudo-term: tf_f = its occurrences in f, idf = Σ idf of its terms.
 * - A prefix is a pseudo-term over its expansions: tf_f = Σ tf_f, df = min(N, Σ df).
 *
 * Field frequencies are combined before saturation (that is the point of BM25F: a term in
 * the title and the body is one piece of evidence, not two).
 */
import type { CollectionStatistics } from './collection-statistics.js';
import { fieldScoring, type ScoringOptions } from './scoring-options.js';

/** How one field turns a term frequency into a weighted normalised frequency. */
export interface FieldModel {
  readonly field: string;
  /** weight_f. */
  readonly weight: number;
  /** 1 - b_f. */
  readonly a: number;
  /** b_f / avgLen_f, so that the normaliser is `a + bOverAvg * len`. */
  readonly bOverAvg: number;
}

/** The per-field constants of `field` under these options and statistics. */
export function fieldModel(options: ScoringOptions, stats: CollectionStatistics, field: string): FieldModel {
  const { weight, b } = fieldScoring(options, field);
  const n = stats.docCount;
  const avgLen = n > 0 ? Math.max(1, stats.fieldStats(field).sumLength / n) : 1;
  return { field, weight, a: 1 - b, bOverAvg: b / avgLen };
}

/**
 * Lucene's BM25 idf. It is positive whenever df <= N; the clamp only matters for injected
 * statistics that disagree with the index (df > N), where a negative score would break the
 * executor's assumption that every clause adds a non-negative amount.
 */
export function bm25Idf(docCount: number, docFreq: number): number {
  const idf = Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5));
  return idf > 0 ? idf : 0;
}

/** df of a term over several fields: the largest per-field df (a document counts once). */
export function termDocFreq(stats: CollectionStatistics, fields: readonly string[], term: string): number {
  let df = 0;
  for (const f of fields) {
    const d = stats.docFreq(f, term);
    if (d > df) df = d;
  }
  return df;
}

/**
 * The saturation of one pseudo-term: `score(S) = scale * S / (k1 + S)` with
 * `scale = boost * idf * (k1 + 1)`.
 *
 * It is computed as `scale - scale / (1 + S / k1)`, which is the same value but is monotone
 * in S also in floating point (every step is a monotone rounded operation; the textbook
 * form divides two rounded quantities that grow together and can step down by one ulp).
 * Upper bounds rely on that: a bound computed from a larger S is never below a real score.
 */
export class Saturation {
  readonly scale: number;
  private readonly invK1: number;

  constructor(idf: number, boost: number, k1: number) {
    this.scale = boost * idf * (k1 + 1);
    // k1 = 0 means "no frequency effect": 1/0 = Infinity makes every S > 0 score `scale`.
    this.invK1 = 1 / k1;
  }

  score(s: number): number {
    return s > 0 ? this.scale - this.scale / (1 + s * this.invK1) : 0;
  }
}
