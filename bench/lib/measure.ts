/**
 * Small measuring and reporting helpers shared by the benchmarks: statistics over samples,
 * timers, memory and disk usage, and plain-text / Markdown tables. A benchmark prints
 * numbers; nothing here asserts a timing.
 */
import { lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The median of the samples (mean of the two middle ones for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  // middle < length (not empty), and middle >= 1 when the count is even.
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
}

/**
 * The p-th percentile (0 < p ≤ 100) by the nearest-rank method: the smallest sample that at
 * least p% of the samples do not exceed. It is always one of the samples, so p99 of 20 runs
 * is the slowest run (say so when printing it). NaN when empty.
 */
export function percentile(values: readonly number[], p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile: p must be in (0, 100], got ${p}`);
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // The rank is in 1..length for p in (0, 100].
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Runs `fn` once and returns its result with the wall time in milliseconds. */
export function timeIt<T>(fn: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = fn();
  return { result, ms: performance.now() - start };
}

/**
 * Times `fn` `runs` times after `warmups` untimed calls (which fill caches and let V8
 * optimise), returning every sample in milliseconds.
 */
export function sampleTimes(fn: () => unknown, runs: number, warmups = 2): number[] {
  for (let i = 0; i < warmups; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(timeIt(fn).ms);
  return samples;
}

/** Wall and CPU samples of {@link sampleWallAndCpu}, in milliseconds. */
export interface WallAndCpuSamples {
  wallMs: number[];
  /** CPU time of the whole process (user + system, all threads) during each run. */
  cpuMs: number[];
}

/**
 * {@link sampleTimes} that also records the process's CPU time per run. On a shared machine
 * the wall time grows with other people's load while the CPU time of single-threaded work
 * (SQLite, our query code) barely moves, so printing both tells contention from slowness.
 */
export function sampleWallAndCpu(fn: () => unknown, runs: number, warmups = 2): WallAndCpuSamples {
  for (let i = 0; i < warmups; i++) fn();
  const wallMs: number[] = [];
  const cpuMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    fn();
    wallMs.push(performance.now() - start);
    const cpu = process.cpuUsage(cpuStart);
    cpuMs.push((cpu.user + cpu.system) / 1000);
  }
  return { wallMs, cpuMs };
}

/** CPU time (user + system, all threads) the process has used so far, in milliseconds. */
export function cpuTimeMs(): number {
  const cpu = process.cpuUsage();
  return (cpu.user + cpu.system) / 1000;
}

/** The resident set size of the process now, in bytes (heap, native memory such as SQLite's cache, code). */
export function sampleRss(): number {
  return process.memoryUsage().rss;
}

/** The highest resident set size the process has had so far, in bytes. */
export function peakRss(): number {
  // resourceUsage reports kibibytes.
  return process.resourceUsage().maxRSS * 1024;
}

/** `1536` → `1.50 KiB`; binary units, three significant digits. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const sign = bytes < 0 ? '-' : '';
  if (unit === 0) return `${sign}${value} B`;
  return `${sign}${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ${units[unit]}`;
}

/** `0.0123` → `0.012 ms`, `12.34` → `12.3 ms`, `4321` → `4.32 s`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms >= 1000) return `${(ms / 1000).toFixed(ms >= 100_000 ? 0 : 2)} s`;
  return `${ms.toFixed(ms >= 100 ? 0 : ms >= 10 ? 1 : ms >= 1 ? 2 : 3)} ms`;
}

/** `12345.6` → `12,346` (a rate or a count for a table). */
export function formatCount(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.round(value).toLocaleString('en-US');
}

/**
 * Total size in bytes of the regular files under `path` (recursive; symbolic links are not
 * followed). A file that disappears while walking (a WAL removed by a checkpoint) counts as 0.
 */
export function dirSize(path: string): number {
  const stat = lstatSync(path);
  if (stat.isFile()) return stat.size;
  if (!stat.isDirectory()) return 0;
  let total = 0;
  for (const name of readdirSync(path)) {
    try {
      total += dirSize(join(path, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return total;
}

/** A table row: column name → cell. Numbers are right-aligned. */
export type TableRow = Record<string, string | number>;

/** Formats a number cell: integers as they are, others with up to 3 significant decimals. */
function formatCell(value: string | number): string {
  if (typeof value === 'string') return value;
  if (Number.isInteger(value) || !Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  return value.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3);
}

/** The columns of `rows` in first-seen order. */
function columnsOf(rows: readonly TableRow[]): string[] {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const name of Object.keys(row)) {
      if (!seen.has(name)) {
        seen.add(name);
        columns.push(name);
      }
    }
  }
  return columns;
}

/**
 * The rows as an aligned plain-text table (header, dashes, one line per row). Columns are the
 * union of the rows' keys in first-seen order unless `columns` is given; a missing cell is empty.
 */
export function formatTable(rows: readonly TableRow[], columns: readonly string[] = columnsOf(rows)): string {
  const cells = rows.map((row) => columns.map((c) => (row[c] === undefined ? '' : formatCell(row[c]))));
  // Each column with its width and alignment; every line of cells has one text per column.
  const layout = columns.map((c, i) => ({
    width: Math.max(c.length, ...cells.map((line) => line[i]?.length ?? 0)),
    numeric: rows.some((row) => typeof row[c] === 'number'),
  }));
  const widths = layout.map((l) => l.width);
  const pad = (text: string, i: number): string => {
    const column = layout[i];
    if (column === undefined) return text;
    return column.numeric ? text.padStart(column.width) : text.padEnd(column.width);
  };
  const lines = [
    columns.map((c, i) => pad(c, i)).join('  '),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.map((line) => line.map((text, i) => pad(text, i)).join('  ')),
  ];
  return lines.map((l) => l.trimEnd()).join('\n');
}

/** Prints {@link formatTable} to stdout. */
export function printTable(rows: readonly TableRow[], columns?: readonly string[]): void {
  console.log(formatTable(rows, columns));
}

/** The rows as a GitHub-flavoured Markdown table (numbers right-aligned, `|` escaped). */
export function markdownTable(
  rows: readonly TableRow[],
  columns: readonly string[] = columnsOf(rows),
): string {
  const escape = (text: string): string => text.replace(/\|/g, '\\|');
  const numeric = columns.map((c) => rows.some((row) => typeof row[c] === 'number'));
  const lines = [
    `| ${columns.map(escape).join(' | ')} |`,
    `| ${numeric.map((n) => (n ? '---:' : '---')).join(' | ')} |`,
    ...rows.map(
      (row) =>
        `| ${columns.map((c) => escape(row[c] === undefined ? '' : formatCell(row[c]))).join(' | ')} |`,
    ),
  ];
  return lines.join('\n');
}

/** A section of a Markdown report: a heading, optional prose, an optional table. */
export interface ReportSection {
  heading: string;
  text?: string;
  rows?: readonly TableRow[];
}

export interface MarkdownReport {
  title: string;
  /** Prose under the title (machine, corpus, settings). */
  intro?: string;
  sections: readonly ReportSection[];
}

/** Writes the report as Markdown to `path` (parent folders created), replacing the file. */
export function writeMarkdownReport(path: string, report: MarkdownReport): void {
  const parts = [`# ${report.title}`];
  if (report.intro !== undefined) parts.push(report.intro);
  for (const section of report.sections) {
    parts.push(`## ${section.heading}`);
    if (section.text !== undefined) parts.push(section.text);
    if (section.rows !== undefined && section.rows.length > 0) parts.push(markdownTable(section.rows));
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, parts.join('\n\n') + '\n');
}
