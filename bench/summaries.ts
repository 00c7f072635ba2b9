/**
 * Result summaries (`src/search/summary.ts`) on RFC pages, against the full scan they replaced
 * (`lib/summary-full-scan.ts`) in the same process: first a check that both answer exactly
 * alike on every page/query pair, with four analyses (the default, stop words, no stemming,
 * no folding), then the CPU time per summary of each, the two taking turns.
 *
 * Pairs: the queries of the project's mixed set (`MIXED_QUERIES`, parsed as the server parses
 * them), each with pages of the first `--pages` of the corpus that hold its terms, the pages
 * holding them most often first (what ranking puts on top) and some further down, and a few
 * pages without them. Exits 1 when any summary differs. The current summary is made as a
 * search makes it: one `Summarizer` per page of {@link PAGE_SIZE} results of a query.
 *
 *   node dist/bench/summaries.js [--pages 30000] [--per-query 60] [--rounds 7]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Analyzer, AnalyzerOptions } from '../src/index/analysis/analyzer.js';
import { Schema } from '../src/index/schema.js';
import { parseQuery } from '../src/query/parser/parse-query.js';
import { Summarizer } from '../src/search/summary.js';
import { MIXED_QUERIES, type MixedQuery } from './lib/query-set.js';
import { corpusAvailable, corpusMissingMessage, readRfcCorpusBatches } from './lib/rfc-corpus.js';
import { buildSummaryFullScan } from './lib/summary-full-scan.js';
import { cpuTimeMs, median, printTable } from './lib/measure.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '30000' },
    'per-query': { type: 'string', default: '60' },
    rounds: { type: 'string', default: '7' },
  },
});
const PAGES = Number(values.pages);
const PER_QUERY = Number(values['per-query']);
const ROUNDS = Number(values.rounds);
/** Pages without the query's terms, per query (the summary is then the text's start). */
const WITHOUT_TERMS = 5;
const SCAN_CHARS = 20_000;

/** Results on a page: a search prepares its query's summarizer once for them. */
const PAGE_SIZE = 10;

interface Pair {
  query: MixedQuery;
  text: string;
}

type Summarise = (
  text: string,
  analyzer: Analyzer,
  queryTerms: ReadonlySet<string>,
  maxChars?: number,
) => string;

/**
 * The current summary, with a new `Summarizer` every {@link PAGE_SIZE} summaries or when the
 * query changes (its preparation is counted, shared by a page as in a search).
 */
function bySummarizer(): Summarise {
  let summarizer: Summarizer | null = null;
  let terms: ReadonlySet<string> | null = null;
  let used = 0;
  return (text, analyzer, queryTerms, maxChars) => {
    if (summarizer === null || queryTerms !== terms || used === PAGE_SIZE) {
      summarizer = new Summarizer(analyzer, queryTerms);
      terms = queryTerms;
      used = 0;
    }
    used++;
    return summarizer.summarize(text, maxChars);
  };
}

function queryTermsOf(schema: Schema, text: string): Set<string> {
  const parsed = parseQuery(text, { analyzerFor: (field) => schema.analyzerFor(field ?? 'body') });
  return new Set(parsed.terms.map((t) => t.term));
}

/** For each query, the pages it is measured on (see the module comment). */
function choosePairs(texts: readonly string[], schema: Schema): Pair[] {
  const analyzer = schema.analyzerFor('body');
  const termsOf = MIXED_QUERIES.map((q) => queryTermsOf(schema, q.text));
  const union = new Map<string, number>();
  for (const terms of termsOf) for (const term of terms) if (!union.has(term)) union.set(term, union.size);
  const counts = new Uint16Array(texts.length * union.size);
  texts.forEach((text, page) => {
    analyzer.forEachTerm(text.slice(0, SCAN_CHARS), 0, (term) => {
      const slot = union.get(term);
      if (slot !== undefined && counts[page * union.size + slot]! < 65535)
        counts[page * union.size + slot]!++;
    });
  });
  const pairs: Pair[] = [];
  MIXED_QUERIES.forEach((query, q) => {
    const slots = [...termsOf[q]!].map((term) => union.get(term)!);
    const scored: { page: number; score: number }[] = [];
    const without: number[] = [];
    texts.forEach((_, page) => {
      let score = 0;
      for (const slot of slots) score += counts[page * union.size + slot]!;
      if (score > 0) scored.push({ page, score });
      else if (without.length < WITHOUT_TERMS) without.push(page);
    });
    scored.sort((a, b) => b.score - a.score || a.page - b.page);
    const top = Math.min(scored.length, Math.ceil((PER_QUERY * 2) / 3));
    const chosen = scored.slice(0, top).map((s) => s.page);
    const rest = scored.length - top;
    const further = Math.min(rest, PER_QUERY - top);
    for (let i = 0; i < further; i++) chosen.push(scored[top + Math.floor((i * rest) / further)]!.page);
    for (const page of [...chosen, ...without]) pairs.push({ query, text: texts[page]! });
  });
  return pairs;
}

/** Compares both summaries on every pair with each analysis; returns the number that differ. */
function check(pairs: readonly Pair[]): number {
  const analyses: [string, AnalyzerOptions, number][] = [
    ['default (stemming)', {}, 260],
    ['stop words', { stopWords: true }, 260],
    ['no stemming', { stem: false }, 160],
    ['no case or diacritic folding', { caseFold: false, foldDiacritics: false }, 80],
  ];
  let differing = 0;
  const rows = [];
  for (const [name, options, maxChars] of analyses) {
    const schema = new Schema({ defaultAnalyzer: options });
    const analyzer = schema.analyzerFor('body');
    const termsByQuery = new Map(MIXED_QUERIES.map((q) => [q, queryTermsOf(schema, q.text)]));
    let bad = 0;
    const summarise = bySummarizer();
    for (const { query, text } of pairs) {
      const terms = termsByQuery.get(query)!;
      const now = summarise(text, analyzer, terms, maxChars);
      const before = buildSummaryFullScan(text, analyzer, terms, maxChars);
      if (now !== before) {
        if (bad < 3)
          console.log(`DIFFERENT (${name}, ${query.text}):\n  now:    ${now}\n  before: ${before}`);
        bad++;
      }
    }
    rows.push({ analysis: name, pairs: pairs.length, different: bad });
    differing += bad;
  }
  printTable(rows);
  return differing;
}

/** CPU and wall milliseconds of one pass of `summarise` over `pairs`. */
function pass(
  summarise: Summarise,
  pairs: readonly Pair[],
  analyzer: Analyzer,
  terms: Map<MixedQuery, Set<string>>,
) {
  const cpu = cpuTimeMs();
  const wall = performance.now();
  let length = 0;
  for (const { query, text } of pairs) length += summarise(text, analyzer, terms.get(query)!).length;
  return { cpuMs: cpuTimeMs() - cpu, wallMs: performance.now() - wall, length };
}

async function main(): Promise<void> {
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return;
  }
  const texts: string[] = [];
  for await (const batch of readRfcCorpusBatches({ limit: PAGES }))
    for (const page of batch) texts.push(page.text);
  const schema = new Schema();
  const pairs = choosePairs(texts, schema);
  const chars = pairs.reduce((sum, p) => sum + Math.min(SCAN_CHARS, p.text.length), 0);
  console.log(
    `${pairs.length} page/query pairs (${MIXED_QUERIES.length} queries, pages of the first ${texts.length}), ` +
      `${Math.round(chars / pairs.length)} characters per page on average; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );

  const differing = check(pairs);
  if (differing > 0) {
    console.log(`${differing} summaries differ from the full scan's`);
    process.exitCode = 1;
    return;
  }

  const analyzer = schema.analyzerFor('body');
  const terms = new Map(MIXED_QUERIES.map((q) => [q, queryTermsOf(schema, q.text)]));
  const byClass = new Map<string, Pair[]>();
  for (const pair of pairs) byClass.set(pair.query.class, [...(byClass.get(pair.query.class) ?? []), pair]);
  const samples = new Map<
    string,
    { now: number[]; before: number[]; nowWall: number[]; beforeWall: number[] }
  >();
  const groups: [string, Pair[]][] = [['all', pairs], ...byClass];
  for (const [name] of groups) samples.set(name, { now: [], before: [], nowWall: [], beforeWall: [] });
  for (let round = 0; round < ROUNDS + 1; round++) {
    for (const [name, group] of groups) {
      const sample = samples.get(name)!;
      // Taking turns, so that neither always runs on what the other left in the caches.
      const order: [Summarise, number[], number[]][] = [
        [bySummarizer(), sample.now, sample.nowWall],
        [buildSummaryFullScan, sample.before, sample.beforeWall],
      ];
      if (round % 2 === 1) order.reverse();
      for (const [summarise, cpuSamples, wallSamples] of order) {
        const { cpuMs, wallMs } = pass(summarise, group, analyzer, terms);
        // Round 0 warms up (V8 compiles, the spelling table fills).
        if (round > 0) {
          cpuSamples.push((cpuMs * 1000) / group.length);
          wallSamples.push((wallMs * 1000) / group.length);
        }
      }
    }
  }
  const rows = groups.map(([name, group]) => {
    const s = samples.get(name)!;
    const ratios = s.now.map((now, i) => now / s.before[i]!);
    return {
      queries: name,
      summaries: group.length,
      'full scan µs CPU': median(s.before).toFixed(1),
      'now µs CPU': median(s.now).toFixed(1),
      'now / full scan': median(ratios).toFixed(3),
      'full scan µs wall': median(s.beforeWall).toFixed(1),
      'now µs wall': median(s.nowWall).toFixed(1),
    };
  });
  console.log(`\nper summary, medians of ${ROUNDS} rounds (process CPU time; wall time beside it):`);
  printTable(rows);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}

await main();
