import type { GenerationView } from '../index/generation-view.js';

/**
 * The corpus-wide numbers BM25F needs. The executor takes them as a parameter rather than
 * reading them from the generations it runs, so that a meta collection can pass numbers
 * combined over all its member collections and every member scores on one scale.
 */
export interface CollectionStatistics {
  /** Number of documents (killed ones included, as Lucene counts them). */
  readonly docCount: number;
  /** Total token count of the field and the number of documents that have it. */
  fieldStats(field: string): { sumLength: number; docCount: number };
  /** Number of documents whose `field` contains `term`. */
  docFreq(field: string, term: string): number;
}

/**
 * Statistics summed over generations. Killed documents stay counted until a merge drops
 * them (their postings are still in the lists, and recounting live ones would cost a pass
 * over every posting). Lookups are memoised: a query asks for the same numbers repeatedly.
 */
export function statisticsFromGenerations(views: readonly GenerationView[]): CollectionStatistics {
  let docCount = 0;
  for (const v of views) docCount += v.maxDoc;
  const fieldCache = new Map<string, { sumLength: number; docCount: number }>();
  const dfCache = new Map<string, Map<string, number>>();
  return {
    docCount,
    fieldStats(field: string) {
      let s = fieldCache.get(field);
      if (s === undefined) {
        let sumLength = 0;
        let count = 0;
        for (const v of views) {
          const fs = v.fieldStats(field);
          sumLength += fs.sumLength;
          count += fs.docCount;
        }
        s = { sumLength, docCount: count };
        fieldCache.set(field, s);
      }
      return { sumLength: s.sumLength, docCount: s.docCount };
    },
    docFreq(field: string, term: string) {
      let perField = dfCache.get(field);
      if (perField === undefined) {
        perField = new Map();
        dfCache.set(field, perField);
      }
      let df = perField.get(term);
      if (df === undefined) {
        df = 0;
        for (const v of views) df += v.docFreq(field, term);
        perField.set(term, df);
      }
      return df;
    },
  };
}
