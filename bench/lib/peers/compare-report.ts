/**
 * The comparison's tables (absolute numbers, and ratios of each peer to ours on the same
 * pages) and its Markdown report.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { formatBytes, formatMs, markdownTable, median, type TableRow } from '../measure.js';
import { QUERY_CLASSES, queriesOfClass, queryLabel } from '../query-set.js';
import { QUERY_BUDGET_MS } from './run-peer.js';
import { formatInt, isNa, seriesOf, type CompareResults, type Series } from './compare-results.js';
import type { NotApplicable, PersistedSize } from './peer.js';
import type { PeerRun, RunPhase } from './peer-run.js';

/** A phase as the runs table says it: "ran out of memory while indexing". */
const PHASE_TEXT: Record<RunPhase, string> = {
  starting: 'starting',
  indexing: 'indexing',
  settling: 'waiting for merges',
  change: 'measuring change → searchable',
  queries: 'running the queries',
  export: 'exporting the index',
  closing: 'closing',
};

/** One row of the tables. */
interface Metric {
  name: string;
  value: (run: PeerRun) => number | NotApplicable;
  format: (value: number) => string;
  /** Throughput: the ratio is ours / peer instead of peer / ours. */
  higherIsBetter?: boolean;
  /** No ratio (a count). */
  noRatio?: boolean;
  /** The cell, when it is not `format(value)`. */
  text?: (run: PeerRun) => string;
}

const persisted = (run: PeerRun): number | NotApplicable =>
  isNa(run.persisted) ? run.persisted : (run.persisted as PersistedSize).bytes;

/** The metrics, in table order. */
export function metrics(changeRounds: number): Metric[] {
  const list: Metric[] = [
    { name: 'pages indexed', value: (r) => r.docs, format: formatInt, noRatio: true },
    {
      name: 'index pages/s',
      value: (r) => (r.docs / r.indexMs) * 1000,
      format: formatInt,
      higherIsBetter: true,
    },
    {
      name: `change → searchable (median of ${changeRounds})`,
      value: (r) => median(r.changeMs),
      format: formatMs,
    },
  ];
  for (const queryClass of QUERY_CLASSES) {
    for (const stat of ['median', 'p99'] as const) {
      list.push({
        name: `${queryClass} ${stat}`,
        value: (r) => {
          const latency = r.queries[queryClass];
          return isNa(latency) ? latency : latency[stat];
        },
        format: formatMs,
      });
    }
  }
  list.push(
    { name: 'RSS after indexing', value: (r) => r.rssAfterIndexBytes, format: formatBytes },
    { name: 'RSS serving queries', value: (r) => r.rssServingBytes, format: formatBytes },
    { name: 'persisted size', value: persisted, format: formatBytes },
    {
      name: 'top-10 hits that have the query words',
      value: (r) => r.hitCheck?.ok ?? { na: 'not checked' },
      format: formatInt,
      noRatio: true,
      text: (r) =>
        r.hitCheck === undefined ? 'n/a' : `${formatInt(r.hitCheck.ok)} of ${formatInt(r.hitCheck.checked)}`,
    },
  );
  return list;
}

/** `peer / ours` (or `ours / peer` for throughput) as `3.2x`; `n/a` when either side has none. */
export function ratio(metric: Metric, run: PeerRun, baseline: PeerRun | undefined): string {
  if (baseline === undefined || metric.noRatio === true) return '';
  const peer = metric.value(run);
  const ours = metric.value(baseline);
  if (isNa(peer) || isNa(ours)) return 'n/a';
  const value = metric.higherIsBetter === true ? ours / peer : peer / ours;
  if (!Number.isFinite(value)) return 'n/a';
  const digits =
    value >= 100
      ? value.toFixed(0)
      : value >= 10
        ? value.toFixed(1)
        : value >= 0.1
          ? value.toFixed(2)
          : value.toPrecision(2);
  return `${digits}x`;
}

/** Rows of absolute numbers: one column per series. */
export function absoluteRows(results: CompareResults): TableRow[] {
  const series = seriesOf(results);
  return metrics(results.changeRounds).map((metric) => {
    const row: TableRow = { metric: metric.name };
    for (const s of series) {
      const value = metric.value(s.run);
      row[s.label] =
        metric.text !== undefined ? metric.text(s.run) : isNa(value) ? 'n/a' : metric.format(value);
    }
    return row;
  });
}

/** Rows of ratios to ours on the same pages: one column per peer (above 1: ours is better). */
export function ratioRows(results: CompareResults): TableRow[] {
  const peers = seriesOf(results).filter((s) => s.peer !== 'ours');
  return metrics(results.changeRounds)
    .filter((m) => m.noRatio !== true)
    .map((metric) => {
      const row: TableRow = { metric: metric.name };
      for (const s of peers) row[`${s.label} ÷ ours`] = ratio(metric, s.run, s.baseline);
      return row;
    });
}

/** One line per peer: the sizes tried and how each attempt ended. */
export function runRows(results: CompareResults): TableRow[] {
  return results.peers.map((outcome) => {
    // Completed runs of one size on one line ("whole corpus: 3 runs, 41 s, 39 s, 45 s"), failures one by one.
    const parts: string[] = [];
    const completed = new Map<string, number[]>();
    for (const a of outcome.attempts) {
      const size = a.limit === undefined ? 'whole corpus' : `${formatInt(a.limit)} pages`;
      if (a.failure === undefined) {
        if (!completed.has(size)) parts.push(size);
        completed.set(size, [...(completed.get(size) ?? []), a.wallMs]);
        continue;
      }
      const what = a.failure.outOfMemory ? 'ran out of memory' : 'failed';
      parts.push(
        `${size}: ${what} while ${PHASE_TEXT[a.failure.phase]} at ${formatInt(a.failure.atDocs)} pages (${a.failure.reason})`,
      );
    }
    const text = parts.map((part) => {
      const walls = completed.get(part);
      if (walls === undefined) return part;
      const runs = walls.length === 1 ? 'completed' : `${walls.length} runs completed`;
      return `${part}: ${runs} in ${walls.map(formatMs).join(', ')}`;
    });
    return {
      peer: outcome.peer,
      'pages indexed': outcome.used === undefined ? 'none' : formatInt(outcome.used.docs),
      attempts: text.join('; '),
    };
  });
}

function notes(results: CompareResults, series: Series[]): string {
  const lines: string[] = [];
  for (const s of series) {
    if (s.subsetOfOurs) continue;
    const run = s.run;
    const found = run.changeFound.filter(Boolean).length;
    const size = isNa(run.persisted) ? `n/a: ${run.persisted.na}` : run.persisted.what;
    let line = `- **${s.peer}**: ${run.setup.description} Persisted size: ${size}. The page added by the change was found by the next query in ${found} of ${run.changeFound.length} rounds.`;
    const unsupported = Object.entries(run.setup.unsupported);
    if (unsupported.length > 0) line += ` n/a: ${unsupported.map(([c, why]) => `${c} (${why})`).join(', ')}.`;
    const cut = QUERY_CLASSES.flatMap((c) => {
      const latency = run.queries[c];
      const full = results.runs * queriesOfClass(c).length * (run.runs ?? 1);
      return isNa(latency) || latency.samples >= full ? [] : [`${c} over ${latency.samples} of ${full} runs`];
    });
    if (cut.length > 0) line += ` Queries cut at ${QUERY_BUDGET_MS / 1000} s each: ${cut.join(', ')}.`;
    const check = run.hitCheck;
    if (check !== undefined && check.ok < check.checked) {
      line += ` ${formatInt(check.checked - check.ok)} of its ${formatInt(check.checked)} top-10 hits lack a query word (for AND: one of them), e.g. ${check.misses.map((m) => `\`${m.replace('https://rfc.example.org/', '')}\``).join(', ')}.`;
    }
    if (run.settleMs > 1)
      line += ` Background merges went on for ${formatMs(run.settleMs)} after the last commit (not in the index time).`;
    lines.push(line);
  }
  return lines.join('\n');
}

function querySetText(): string {
  return QUERY_CLASSES.map(
    (c) =>
      `- ${c}: ${queriesOfClass(c)
        .map((q) => `\`${queryLabel(q)}\``)
        .join(', ')}`,
  ).join('\n');
}

/** Writes the Markdown report; `chartFile` is the SVG's path, linked by its name. */
export function writeCompareMarkdown(path: string, results: CompareResults, chartFile: string): void {
  const series = seriesOf(results);
  const main = results.ours[0];
  const corpus =
    results.limit === undefined
      ? `the whole RFC corpus (${main === undefined ? '?' : formatInt(main.docs)} pages)`
      : `the first ${formatInt(results.limit)} pages of the RFC corpus`;
  const parts = [
    '# pushsearch compared with MiniSearch, Orama, FlexSearch and SQLite FTS5',
    `Corpus: ${corpus}, one document per page (key, title, text). Machine: ${results.machine}. ` +
      `Date: ${results.date}. Command: \`${results.command}\`.`,
    `Each library runs in its own child process (\`--max-old-space-size=${results.heapMb}\`, so a heap limit of ${results.heapMb} MiB for all), ` +
      (results.repeat > 1
        ? `in turn, ${results.repeat} rounds (${results.peers.map((p) => p.peer).join(', ')}, then again), and every number is the median of a library's ${results.repeat} runs ` +
          "(p99: the median of the runs' p99; change → searchable: the median of all rounds), so that other work on the machine weighs on all alike; "
        : 'one after the other; ') +
      "RSS is each one's own, and a library that runs out of memory is run again on fewer pages " +
      '(150,000, 100,000, 75,000, 50,000... the first below 80% of where it failed) and compared with ours on the same pages. ' +
      `Query latency: top 10 keys, ${results.runs} timed runs of each query after an untimed one that records its answer ` +
      `(fewer, at least 3, once a query's runs add up to ${QUERY_BUDGET_MS / 1000} s), median and p99 (nearest rank) over every run of the class ` +
      `(${results.runs * 10} samples, ${results.runs * 5} for single-common). ` +
      'Index time includes reading and parsing the corpus (the same stream for all) and ends when every page is searchable. ' +
      `Change → searchable: one new page added to the built index until a query for a word only it contains returns it (median of ${results.changeRounds}); ` +
      'ours and FTS5 commit it durably (fsync), the in-memory libraries only change their heap (nothing is persisted, and their index time does not include saving it). ' +
      'RSS after a full GC. Stemming: off on every side (no peer stems by default), so all look up the same words. ' +
      'The last row checks the answers: each top-10 hit is looked up in the corpus and must have the query words.',
    `![chart](${basename(chartFile)})`,
    '## Runs',
    markdownTable(runRows(results)),
    '## Results',
    markdownTable(absoluteRows(results)),
    '## Ratios to ours',
    'Each peer against ours on the same pages: its time, memory or size divided by ours (for pages/s: ours divided by its). ' +
      'Above 1, ours is better; below 1, the peer is.',
    markdownTable(ratioRows(results)),
    '## Notes',
    notes(results, series),
    '## Queries',
    querySetText(),
  ];
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, parts.join('\n\n') + '\n');
}
