/**
 * The order of the comparison's child processes: every peer in turn, `repeat` rounds, and in
 * each round ours again on every smaller size a peer had to fall back to. The first round
 * finds the size each peer survives ({@link runWithFallback}); later rounds run it on that
 * size. Each peer's numbers are then the median of its rounds ({@link medianRun}).
 */
import type { PeerOutcome } from './compare-results.js';
import { medianRun } from './median-run.js';
import type { PeerName } from './peer.js';
import { isComplete, type PeerAttempt, type PeerRun } from './peer-run.js';
import { runPeerProcess, runWithFallback, type SpawnOptions } from './spawn-peer.js';

/** What the rounds produced: per peer its attempts and median run, and ours per size (main first). */
export interface RoundsResult {
  outcomes: PeerOutcome[];
  ours: PeerRun[];
}

interface PeerState {
  attempts: PeerAttempt[];
  runs: PeerRun[];
  /** The size that worked in the first round; null when none did (later rounds skip the peer). */
  size: number | undefined | null;
}

/** Runs the peers (ours first when listed) `repeat` times in turn. */
export async function runRounds(
  peers: readonly PeerName[],
  limit: number | undefined,
  repeat: number,
  options: SpawnOptions,
): Promise<RoundsResult> {
  const states = new Map<PeerName, PeerState>(peers.map((p) => [p, { attempts: [], runs: [], size: limit }]));
  const oursBySize = new Map<number, PeerRun[]>();
  const oursExtra: PeerAttempt[] = [];
  for (let round = 1; round <= repeat; round++) {
    if (repeat > 1) options.log(`round ${round} of ${repeat}`);
    for (const peer of peers) {
      const state = states.get(peer)!;
      if (state.size === null) continue;
      if (round === 1) {
        const { attempts, used } = await runWithFallback(peer, limit, options);
        state.attempts.push(...attempts);
        state.size = used === undefined ? null : used.limit;
        if (used !== undefined) state.runs.push(used.run as PeerRun);
        continue;
      }
      const attempt = await runPeerProcess(peer, state.size, options);
      state.attempts.push(attempt);
      if (isComplete(attempt.run)) state.runs.push(attempt.run);
    }
    // Ours on the smaller sizes, for ratios on the same pages.
    const main = states.get('ours')?.runs[0];
    if (main === undefined) continue;
    const sizes = new Set(
      [...states.values()].flatMap((s) => s.runs.map((r) => r.docs)).filter((d) => d !== main.docs),
    );
    for (const size of [...sizes].sort((a, b) => b - a)) {
      options.log(
        `running ours on ${size.toLocaleString('en-US')} pages, to compare with the peers that ran on them...`,
      );
      const attempt = await runPeerProcess('ours', size, options);
      oursExtra.push(attempt);
      if (isComplete(attempt.run)) oursBySize.set(size, [...(oursBySize.get(size) ?? []), attempt.run]);
    }
  }
  const outcomes: PeerOutcome[] = peers.map((peer) => {
    const state = states.get(peer)!;
    const attempts = peer === 'ours' ? [...state.attempts, ...oursExtra] : state.attempts;
    return { peer, attempts, used: state.runs.length === 0 ? undefined : medianRun(state.runs) };
  });
  const oursMain = outcomes.find((o) => o.peer === 'ours')?.used;
  const ours =
    oursMain === undefined ? [] : [oursMain, ...[...oursBySize.values()].map((runs) => medianRun(runs))];
  return { outcomes, ours };
}
