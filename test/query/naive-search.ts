/**
 * The test oracle: evaluates a query tree on every document with the BM25F formula written
 * out directly (no postings, no iterators, no bounds). Written from the definition in the
 * brief, independently of `src/query/`; only the option defaults are shared.
 */
import type { Query } from '../../src/query/query-tree.js';
import { resolveScoringOptions, type ScoringOptionsInput } from '../../src/query/scoring-options.js';
import type { MemoryDocument } from '../support/memory-generation.js';

export interface NaiveGeneration {
  docs: MemoryDocument[];
  killed: ReadonlySet<number>;
}

export interface NaiveHit {
  generationIndex: number;
  docId: number;
  score: number;
}

interface Match {
  match: boolean;
  score: number;
}

const NO: Match = { match: false, score: 0 };

/**
 * Every live matching document with its score, sorted like the executor's hits.
 * `statsFrom` (default: `generations`) are the documents the statistics are computed on.
 */
export function naiveSearch(
  generations: readonly NaiveGeneration[],
  query: Query,
  scoring?: ScoringOptionsInput,
  statsFrom: readonly NaiveGeneration[] = generations,
): NaiveHit[] {
  const options = resolveScoringOptions(scoring);
  const allDocs = statsFrom.flatMap((g) => g.docs);
  const N = allDocs.length;
  const weight = (f: string) => options.fields[f]?.weight ?? 1;
  const b = (f: string) => options.fields[f]?.b ?? 0.75;
  const memo = <T>(fn: (key: string) => T) => {
    const cache = new Map<string, T>();
    return (key: string) => {
      if (!cache.has(key)) cache.set(key, fn(key));
      return cache.get(key)!;
    };
  };
  const avgLen = memo((f) => {
    let sum = 0;
    for (const d of allDocs) sum += d.fields[f]?.length ?? 0;
    return Math.max(1, sum / N);
  });
  const dfMemo = memo((ft) => {
    const [f, t] = JSON.parse(ft) as [string, string];
    return allDocs.filter((d) => (d.fields[f] ?? []).includes(t)).length;
  });
  const dfField = (f: string, t: string) => dfMemo(JSON.stringify([f, t]));
  const dfOver = (fields: string[], t: string) => Math.max(0, ...fields.map((f) => dfField(f, t)));
  const idfOf = (df: number) => Math.log(1 + (N - df + 0.5) / (df + 0.5));
  const fieldsOf = (field: string | undefined) => (field === undefined ? options.defaultFields : [field]);
  const count = (doc: MemoryDocument, f: string, t: string) =>
    (doc.fields[f] ?? []).filter((x) => x === t).length;

  /** tf per field of a pseudo-term → BM25F score (0 and no match when every tf is 0). */
  const bm25f = (doc: MemoryDocument, fields: string[], tf: (f: string) => number, idf: number): Match => {
    let S = 0;
    let any = false;
    for (const f of fields) {
      const t = tf(f);
      if (t === 0) continue;
      any = true;
      const len = doc.fields[f]?.length ?? 0;
      S += (weight(f) * t) / (1 - b(f) + (b(f) * len) / avgLen(f));
    }
    if (!any) return NO;
    return { match: true, score: (idf * S * (options.k1 + 1)) / (options.k1 + S) };
  };

  const prefixCache = new Map<string, { terms: string[]; idf: number }>();
  const expansions = (fields: string[], prefix: string) => {
    const key = `${fields.join(',')}|${prefix}`;
    let e = prefixCache.get(key);
    if (e === undefined) {
      const found = new Set<string>();
      for (const d of allDocs) {
        for (const f of fields)
          for (const t of d.fields[f] ?? []) if (t !== '' && t.startsWith(prefix)) found.add(t);
      }
      let terms = [...found];
      if (terms.length > 256) {
        terms.sort((x, y) => dfOver(fields, y) - dfOver(fields, x) || (x < y ? -1 : 1));
        terms = terms.slice(0, 256);
      }
      const df = Math.min(
        N,
        terms.reduce((s, t) => s + dfOver(fields, t), 0),
      );
      e = { terms, idf: idfOf(df) };
      prefixCache.set(key, e);
    }
    return e;
  };

  const evaluate = (q: Query, doc: MemoryDocument): Match => {
    switch (q.kind) {
      case 'term': {
        const fields = fieldsOf(q.field);
        return bm25f(doc, fields, (f) => count(doc, f, q.term), idfOf(dfOver(fields, q.term)));
      }
      case 'phrase': {
        if (q.terms.length === 0) return NO;
        const fields = fieldsOf(q.field);
        const rel = q.positions ?? q.terms.map((_, i) => i);
        const idf = q.terms.reduce((s, t) => s + idfOf(dfOver(fields, t)), 0);
        const occurrences = (f: string) => {
          const terms = doc.fields[f] ?? [];
          let n = 0;
          for (let start = -100; start < terms.length + 100; start++) {
            if (q.terms.every((t, i) => terms[start + (rel[i] ?? 0)] === t)) n++;
          }
          return n;
        };
        return bm25f(doc, fields, occurrences, idf);
      }
      case 'prefix': {
        const fields = fieldsOf(q.field);
        const { terms, idf } = expansions(fields, q.prefix);
        return bm25f(doc, fields, (f) => terms.reduce((s, t) => s + count(doc, f, t), 0), idf);
      }
      case 'all':
        return { match: true, score: 0 };
      case 'range': {
        const v = doc.numbers?.[q.field];
        const ok = v !== undefined && v >= (q.min ?? -Infinity) && v <= (q.max ?? Infinity);
        return ok ? { match: true, score: 0 } : NO;
      }
      case 'boost': {
        const m = evaluate(q.query, doc);
        return m.match ? { match: true, score: m.score * q.boost } : NO;
      }
      case 'bool': {
        const must = q.must ?? [];
        const filter = q.filter ?? [];
        const should = q.should ?? [];
        const mustNot = q.mustNot ?? [];
        const required = must.length + filter.length > 0;
        if (!required && should.length === 0 && mustNot.length === 0) return NO;
        let score = 0;
        for (const c of must) {
          const m = evaluate(c, doc);
          if (!m.match) return NO;
          score += m.score;
        }
        for (const c of filter) if (!evaluate(c, doc).match) return NO;
        for (const c of mustNot) if (evaluate(c, doc).match) return NO;
        const msm = required ? (q.minShouldMatch ?? 0) : Math.max(1, q.minShouldMatch ?? 1);
        let matched = 0;
        for (const c of should) {
          const m = evaluate(c, doc);
          if (m.match) {
            matched++;
            score += m.score + (q.coordBoost ?? 0);
          }
        }
        if (!required && should.length === 0) return { match: true, score: 0 }; // only mustNot
        if (matched < msm) return NO;
        return { match: true, score };
      }
    }
  };

  const hits: NaiveHit[] = [];
  generations.forEach((g, generationIndex) => {
    g.docs.forEach((doc, docId) => {
      if (g.killed.has(docId)) return;
      const m = evaluate(query, doc);
      if (m.match) hits.push({ generationIndex, docId, score: m.score });
    });
  });
  return hits.sort((x, y) => y.score - x.score || x.generationIndex - y.generationIndex || x.docId - y.docId);
}
