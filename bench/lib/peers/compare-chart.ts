/**
 * The comparison as an SVG bar chart, written by hand (a few rectangles and labels need no
 * chart library): query latency median per class on a log scale, and below it indexing
 * throughput, change-to-searchable time and RSS, one bar per run in the same colours.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatBytes, median } from '../measure.js';
import { QUERY_CLASSES } from '../query-set.js';
import { formatInt, isNa, seriesOf, type CompareResults, type Series } from './compare-results.js';
import type { PeerName } from './peer.js';

const COLORS: Record<PeerName, string> = {
  ours: '#2563eb',
  fts5: '#6b7280',
  minisearch: '#16a34a',
  orama: '#ea580c',
  flexsearch: '#9333ea',
};
/** Our runs on subsets: the same hue, lighter, one shade per subset. */
const OURS_SUBSETS = ['#93c5fd', '#60a5fa', '#bfdbfe', '#3b82f6'];

const WIDTH = 980;
const MIB = 1024 * 1024;
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

/** Escapes text for SVG content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function colorsOf(series: readonly Series[]): string[] {
  let subsets = 0;
  return series.map((s) =>
    s.subsetOfOurs ? OURS_SUBSETS[subsets++ % OURS_SUBSETS.length]! : COLORS[s.peer],
  );
}
const num = (n: number): string => (Math.round(n * 10) / 10).toString();

/** A panel: groups of bars on a log axis. `values[g][s]` is undefined for n/a. */
interface Panel {
  title: string;
  groups: string[];
  values: Array<Array<number | undefined>>;
  /** Log: ticks at powers of ten, for values over several of them. Linear: from 0. */
  scale: 'log' | 'linear';
  /** Axis ticks. */
  tick: (value: number) => string;
  /** The label above a bar. */
  label: (value: number) => string;
}

function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${num(x)}" y="${num(y)}" ${attrs}>${escapeXml(content)}</text>`;
}

/** Room above the tallest bar for its label, written upwards. */
const LABEL_ROOM = 52;

/** Where a value sits between the bottom (0) and the tallest bar (1), and the gridlines. */
interface Axis {
  fraction: (value: number) => number;
  ticks: number[];
}

function logAxis(values: readonly number[]): Axis {
  const lo = Math.floor(Math.log10(Math.min(...values)));
  const top = Math.max(lo + 1, Math.log10(Math.max(...values)));
  const ticks: number[] = [];
  for (let e = lo; e <= Math.ceil(top) + 1; e++) ticks.push(10 ** e);
  return { fraction: (v) => (Math.log10(v) - lo) / (top - lo), ticks };
}

function linearAxis(values: readonly number[]): Axis {
  const max = Math.max(...values);
  // Gridlines at a round step (1, 2 or 5 times a power of ten), about five of them.
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw)!;
  const ticks: number[] = [];
  for (let t = 0; t <= max + 2 * step; t += step) ticks.push(t);
  return { fraction: (v) => v / max, ticks };
}

function panelSvg(panel: Panel, series: Series[], x: number, y: number, w: number, h: number): string {
  const out: string[] = [text(x + 12, y + 14, panel.title, 'font-size="13" font-weight="600"')];
  const present = panel.values.flat().filter((v): v is number => v !== undefined && v > 0);
  const plotTop = y + 24;
  const plotBottom = y + h - 34;
  const left = x + 64;
  const right = x + w - 8;
  if (present.length === 0) return out.join('');
  const axis = panel.scale === 'log' ? logAxis(present) : linearAxis(present);
  const yOf = (v: number): number => plotBottom - axis.fraction(v) * (plotBottom - plotTop - LABEL_ROOM);
  for (const tick of axis.ticks) {
    const gy = yOf(tick);
    if (gy < plotTop) break;
    out.push(`<line x1="${left}" y1="${num(gy)}" x2="${right}" y2="${num(gy)}" stroke="#e5e7eb"/>`);
    out.push(text(left - 6, gy + 4, panel.tick(tick), 'font-size="10" text-anchor="end" fill="#4b5563"'));
  }
  out.push(`<line x1="${left}" y1="${plotBottom}" x2="${right}" y2="${plotBottom}" stroke="#9ca3af"/>`);
  const colors = colorsOf(series);
  const groupWidth = (right - left) / panel.groups.length;
  const barWidth = Math.min(26, (groupWidth - 12) / series.length);
  panel.groups.forEach((group, g) => {
    const start = left + g * groupWidth + (groupWidth - barWidth * series.length) / 2;
    series.forEach((s, i) => {
      const bx = start + i * barWidth;
      const value = panel.values[g]![i];
      if (value === undefined || !(value > 0)) {
        out.push(
          text(bx + barWidth / 2, plotBottom - 4, 'n/a', 'font-size="8" text-anchor="middle" fill="#6b7280"'),
        );
        return;
      }
      const by = yOf(value);
      out.push(
        `<rect x="${num(bx + 1)}" y="${num(by)}" width="${num(barWidth - 2)}" height="${num(plotBottom - by)}" fill="${colors[i]}">` +
          `<title>${escapeXml(`${s.label}, ${group === '' ? panel.title : group}: ${panel.label(value)}`)}</title></rect>`,
      );
      const lx = bx + barWidth / 2 + 3;
      out.push(
        text(
          lx,
          by - 3,
          panel.label(value),
          `font-size="9" fill="#374151" transform="rotate(-90 ${num(lx)} ${num(by - 3)})"`,
        ),
      );
    });
    if (group !== '')
      out.push(
        text(
          left + g * groupWidth + groupWidth / 2,
          plotBottom + 16,
          group,
          'font-size="11" text-anchor="middle"',
        ),
      );
  });
  return out.join('');
}

/** Milliseconds as `0.1 ms`, `10 ms`, `1 s` for axis ticks and bar labels. */
function shortMs(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toPrecision(3)} s` : `${+ms.toPrecision(3)} ms`;
}

/** The SVG document of the chart. */
export function compareChartSvg(results: CompareResults): string {
  const series = seriesOf(results);
  const main = series[0]?.run;
  const corpus =
    results.limit === undefined
      ? `whole RFC corpus (${main === undefined ? '?' : formatInt(main.docs)} pages)`
      : `${formatInt(results.limit)} RFC pages`;
  const latency: Panel = {
    title: 'Query latency, median, top 10 (log scale; lower is better)',
    scale: 'log',
    groups: [...QUERY_CLASSES],
    values: QUERY_CLASSES.map((c) =>
      series.map((s) => {
        const l = s.run.queries[c];
        return isNa(l) ? undefined : l.median;
      }),
    ),
    tick: shortMs,
    label: shortMs,
  };
  const indexing: Panel = {
    title: 'Indexing, pages/s (higher is better)',
    scale: 'linear',
    groups: [''],
    values: [series.map((s) => (s.run.docs / s.run.indexMs) * 1000)],
    tick: (v) => (v >= 1000 ? `${formatInt(v / 1000)}k` : formatInt(v)),
    label: (v) => (v >= 1000 ? `${+(v / 1000).toPrecision(3)}k` : `${+v.toPrecision(3)}`),
  };
  const change: Panel = {
    title: 'Change → searchable (log; lower is better)',
    scale: 'log',
    groups: [''],
    values: [series.map((s) => median(s.run.changeMs))],
    tick: shortMs,
    label: shortMs,
  };
  const memory: Panel = {
    title: 'RSS after indexing (lower is better)',
    scale: 'linear',
    groups: [''],
    // In MiB, so that the ticks are round: 10 MiB, 100 MiB, 1,000 MiB.
    values: [series.map((s) => s.run.rssAfterIndexBytes / MIB)],
    tick: (v) => `${formatInt(v)} MiB`,
    label: (v) => formatBytes(v * MIB),
  };
  const perRow = 5;
  const legendRows = Math.ceil(series.length / perRow);
  const top = 44 + legendRows * 18;
  const height = top + 300 + 240 + 28;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" ${FONT}>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    text(12, 22, `pushsearch vs in-process peers, ${corpus}`, 'font-size="16" font-weight="700"'),
  ];
  series.forEach((s, i) => {
    const lx = 12 + (i % perRow) * 192;
    const ly = 36 + Math.floor(i / perRow) * 18;
    parts.push(`<rect x="${lx}" y="${ly}" width="12" height="12" fill="${colorsOf(series)[i]}"/>`);
    parts.push(text(lx + 18, ly + 10, s.label, 'font-size="12"'));
  });
  parts.push(panelSvg(latency, series, 0, top, WIDTH, 300));
  const third = WIDTH / 3;
  parts.push(panelSvg(indexing, series, 0, top + 300, third, 240));
  parts.push(panelSvg(change, series, third, top + 300, third, 240));
  parts.push(panelSvg(memory, series, 2 * third, top + 300, third, 240));
  const runs = results.repeat > 1 ? `medians of ${results.repeat} runs of each library, ` : '';
  parts.push(
    text(
      12,
      height - 10,
      `${runs}${results.date.slice(0, 10)}, ${results.machine}. Details: compare.md`,
      'font-size="10" fill="#6b7280"',
    ),
  );
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

/** Writes {@link compareChartSvg} to `path`. */
export function writeCompareChart(path: string, results: CompareResults): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, compareChartSvg(results));
}
