/**
 * The results of one comparison run as the report and the chart read them: every peer's
 * attempts, the run whose numbers count, and our engine's runs at each size a peer ran on,
 * so that a peer that only survived part of the corpus is compared with ours on that part.
 */
import type { NotApplicable, PeerName } from './peer.js';
import type { PeerAttempt, PeerRun } from './peer-run.js';

/** A peer's attempts and the one reported (undefined when no size worked). */
export interface PeerOutcome {
  peer: PeerName;
  attempts: PeerAttempt[];
  used: PeerRun | undefined;
}

/** Everything a report needs. */
export interface CompareResults {
  /** `--limit`; undefined: the whole corpus. */
  limit: number | undefined;
  /** Rounds: each peer's numbers are the median of this many runs. */
  repeat: number;
  heapMb: number;
  runs: number;
  changeRounds: number;
  stem: boolean;
  command: string;
  /** ISO date-time of the run. */
  date: string;
  /** CPU, cores, memory, OS, Node version. */
  machine: string;
  /** In report order, ours first when it ran. */
  peers: PeerOutcome[];
  /** Our runs, one per size (the main one first). */
  ours: PeerRun[];
}

/** A column of the report: one run, and the run of ours it is compared with. */
export interface Series {
  /** `ours`, `ours (50,000 pages)`, `minisearch (50,000 pages)`. */
  label: string;
  peer: PeerName;
  run: PeerRun;
  /** Ours on the same pages; undefined for our own columns or when ours did not run. */
  baseline: PeerRun | undefined;
  /** True for a run of ours on a subset, made only to compare a peer with. */
  subsetOfOurs: boolean;
}

/** `12,345` */
export const formatInt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Whether a value is a {@link NotApplicable}. */
export function isNa(value: unknown): value is NotApplicable {
  return typeof value === 'object' && value !== null && 'na' in value;
}

/**
 * The columns in order: ours on the main size, ours on each smaller size a peer ran on, then
 * every other peer that completed a run.
 */
export function seriesOf(results: CompareResults): Series[] {
  const main = results.ours[0];
  const series: Series[] = [];
  if (main !== undefined)
    series.push({ label: 'ours', peer: 'ours', run: main, baseline: undefined, subsetOfOurs: false });
  for (const run of results.ours.slice(1)) {
    series.push({
      label: `ours (${formatInt(run.docs)} pages)`,
      peer: 'ours',
      run,
      baseline: undefined,
      subsetOfOurs: true,
    });
  }
  for (const outcome of results.peers) {
    if (outcome.peer === 'ours' || outcome.used === undefined) continue;
    const run = outcome.used;
    const subset = main !== undefined && run.docs !== main.docs;
    series.push({
      label: subset ? `${outcome.peer} (${formatInt(run.docs)} pages)` : outcome.peer,
      peer: outcome.peer,
      run,
      baseline: results.ours.find((r) => r.docs === run.docs),
      subsetOfOurs: false,
    });
  }
  return series;
}
