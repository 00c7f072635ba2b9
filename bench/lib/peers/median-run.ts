/**
 * One run made of several runs of the same peer on the same pages: every number is the median
 * of the runs' numbers. On a shared machine a run can be slowed by other work at any moment;
 * runs taken in turn with the other peers and reduced to their medians spread that over all.
 */
import { median } from '../measure.js';
import { QUERY_CLASSES } from '../query-set.js';
import type { PersistedSize } from './peer.js';
import type { ClassLatency, PeerRun } from './peer-run.js';

/**
 * The median run: medians of index time, RSS and per-class median and p99 latency; the change
 * timings of all runs pooled; the answers (top keys) and setup of the first run; the persisted
 * size of the first run that has one (it does not vary).
 */
export function medianRun(runs: readonly PeerRun[]): PeerRun {
  const first = runs[0];
  if (first === undefined) throw new Error('medianRun needs at least one run');
  if (runs.some((r) => r.docs !== first.docs || r.peer !== first.peer)) {
    throw new Error('medianRun: the runs must be of one peer on the same pages');
  }
  if (runs.length === 1) return first;
  const of = (get: (run: PeerRun) => number): number => median(runs.map(get));
  const queries = {} as PeerRun['queries'];
  for (const queryClass of QUERY_CLASSES) {
    const latencies = runs.map((r) => r.queries[queryClass]).filter((l): l is ClassLatency => !('na' in l));
    if (latencies.length === 0) {
      queries[queryClass] = first.queries[queryClass];
      continue;
    }
    queries[queryClass] = {
      median: median(latencies.map((l) => l.median)),
      p99: median(latencies.map((l) => l.p99)),
      samples: latencies.reduce((sum, l) => sum + l.samples, 0),
    };
  }
  const persisted = runs.find((r) => !('na' in r.persisted))?.persisted as PersistedSize | undefined;
  return {
    ...first,
    indexMs: of((r) => r.indexMs),
    settleMs: of((r) => r.settleMs),
    rssAfterIndexBytes: of((r) => r.rssAfterIndexBytes),
    rssServingBytes: of((r) => r.rssServingBytes),
    changeMs: runs.flatMap((r) => r.changeMs),
    changeFound: runs.flatMap((r) => r.changeFound),
    queries,
    persisted: persisted ?? first.persisted,
    runs: runs.length,
  };
}
