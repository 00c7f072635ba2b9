import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Scavenges (collects V8's young generation) between queries rather than during one.
 *
 * A search allocates a few hundred KB (scorers, hits, summaries, the packet's JSON), so a
 * search thread's young generation fills every few dozen queries, and the scavenge then
 * lands inside whichever query allocates next: a millisecond or more added to that answer,
 * most often to the longest queries (they allocate the most), which is the latency tail.
 * After answering, a thread with nothing queued for it checks whether the next query may
 * not fit in the young generation's free space (less than {@link HEADROOM} times the most
 * that one of the last {@link RECENT} queries allocated); if so, it scavenges now, while
 * nobody waits. When the pool had other queries waiting for a thread, the next one comes at
 * once, so the thread leaves the scavenge to V8 as before (what it costs is the same either
 * way; done early it would only happen more often).
 */
export class IdleScavenger {
  /** Young-generation bytes each of the last {@link RECENT} queries allocated (0: unknown). */
  private readonly recent = new Float64Array(RECENT);
  private next = 0;
  private usedAtStart = 0;

  /**
   * @param collect Runs a minor GC (see {@link minorGc}); null: never scavenges early.
   * @param youngGeneration The young generation's bytes in use and still free.
   */
  constructor(
    private readonly collect: (() => void) | null,
    private readonly youngGeneration: () => YoungGeneration = readYoungGeneration,
  ) {}

  /** Before a query: notes what the young generation holds. */
  queryStarts(): void {
    if (this.collect === null) return;
    this.usedAtStart = this.youngGeneration().used;
  }

  /**
   * After a query's answer was sent: records what it allocated and scavenges when the next
   * one may not fit. `othersWaiting`: queries waited for a thread when this one was given.
   * Returns whether it scavenged.
   */
  queryEnded(othersWaiting: boolean): boolean {
    if (this.collect === null) return false;
    const young = this.youngGeneration();
    // Less in use than at the start: V8 scavenged during the query, what it allocated is unknown.
    this.recent[this.next] = young.used >= this.usedAtStart ? young.used - this.usedAtStart : 0;
    this.next = (this.next + 1) % RECENT;
    if (othersWaiting || !shouldScavenge(young.free, this.recent)) return false;
    this.collect();
    return true;
  }
}

/** The young generation's bytes in use and still free before V8 must scavenge. */
export interface YoungGeneration {
  used: number;
  free: number;
}

/** Queries whose allocations decide how much room the next one needs. */
const RECENT = 32;
/** Room kept for the next query, in multiples of the most a recent query allocated. */
const HEADROOM = 2;
/** Room kept before any query was measured (a thread's first queries). */
const FIRST_HEADROOM_BYTES = 2 * 1024 * 1024;

/**
 * Whether a young generation with `free` bytes left should be scavenged before the next
 * query, given what recent queries allocated (0 for unknown).
 */
export function shouldScavenge(free: number, recentAllocations: ArrayLike<number>): boolean {
  let most = 0;
  for (let i = 0; i < recentAllocations.length; i++)
    if (recentAllocations[i]! > most) most = recentAllocations[i]!;
  return free < (most > 0 ? HEADROOM * most : FIRST_HEADROOM_BYTES);
}

function readYoungGeneration(): YoungGeneration {
  for (const space of v8.getHeapSpaceStatistics())
    if (space.space_name === 'new_space')
      return { used: space.space_used_size, free: space.space_available_size };
  // No young generation reported (another V8 layout): never scavenge early.
  return { used: 0, free: Infinity };
}

/**
 * V8's `gc` function run as a minor GC, or null when this V8 does not provide it. Node
 * exposes `gc` only to contexts created after `--expose-gc` is set, so the flag is set and a
 * new context hands its `gc` over; no global of ours changes (the flag is process-wide:
 * threads started afterwards get a global `gc` too, which nothing of ours calls).
 */
export function minorGc(): (() => void) | null {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('typeof gc === "function" ? gc : null');
    if (typeof gc !== 'function') return null;
    return () => (gc as (options: { type: 'minor' }) => void)({ type: 'minor' });
  } catch {
    return null;
  }
}
