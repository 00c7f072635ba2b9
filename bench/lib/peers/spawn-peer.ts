/**
 * The parent half of `bench/compare.ts`: runs one peer in a child process with a fixed heap
 * limit, follows its progress, and turns a crash into a {@link RunFailure} ("ran out of
 * memory at N docs") instead of ending the whole comparison. {@link runWithFallback} retries
 * a peer that failed on a smaller part of the corpus until one fits.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { isComplete, type PeerAttempt, type PeerRun, type RunFailure, type RunPhase } from './peer-run.js';
import type { PeerName } from './peer.js';
import { parseChildLine } from './run-peer.js';

/** How to start children. */
export interface SpawnOptions {
  /** The compiled `bench/compare.js` (it runs a peer when given `--child`). */
  script: string;
  /** `--max-old-space-size` of every child, in MiB. */
  heapMb: number;
  runs: number;
  changeRounds: number;
  stem: boolean;
  /** A child still running after this long is killed and counted as failed. */
  timeoutMs: number;
  /** Scratch folder of the child (its index, for disk-based peers). */
  dir: (peer: PeerName, limit: number | undefined) => string;
  log: (line: string) => void;
}

/** Sizes tried after a failure, largest first: the first below 80% of where it failed. */
export const FALLBACK_SIZES: readonly number[] = [
  150_000, 100_000, 75_000, 50_000, 25_000, 10_000, 5_000, 1_000,
];

/**
 * The next corpus size to try after a run failed having indexed `atDocs` pages (of `size`
 * asked for): 20% below the point of failure leaves room for the queries and the GC. Undefined
 * when nothing smaller is left.
 */
export function nextSmallerSize(atDocs: number, size: number): number | undefined {
  const ceiling = 0.8 * Math.min(atDocs > 0 ? atDocs : size, size);
  return FALLBACK_SIZES.find((candidate) => candidate <= ceiling);
}

const OOM_PATTERNS = [/JavaScript heap out of memory/, /Reached heap limit/, /Allocation failed/];

/** One line saying why a child ended early. */
function failureReason(
  code: number | null,
  signal: NodeJS.Signals | null,
  stderr: string,
  heapMb: number,
  timedOut: boolean,
  timeoutMs: number,
): { reason: string; outOfMemory: boolean } {
  if (timedOut)
    return {
      reason: `did not finish within ${Math.round(timeoutMs / 60_000)} min (killed)`,
      outOfMemory: false,
    };
  if (OOM_PATTERNS.some((pattern) => pattern.test(stderr))) {
    return { reason: `JavaScript heap out of memory, heap limit ${heapMb} MiB`, outOfMemory: true };
  }
  // V8 aborts (SIGTRAP/SIGABRT) on some limits instead of throwing: name the failed check.
  const fatal = /^# (Check failed: .*|Fatal .*error.*)$/m.exec(stderr.replace(/^# Fatal error in .*$/m, ''));
  if (fatal !== null) {
    const builtin = /Builtin_(\w+)/.exec(stderr)?.[1];
    return {
      reason: `V8 fatal error${builtin === undefined ? '' : ` in ${builtin}`}: ${fatal[1]!.trim()}`,
      outOfMemory: false,
    };
  }
  if (signal === 'SIGKILL')
    return { reason: 'killed by SIGKILL (most likely the system ran out of memory)', outOfMemory: true };
  const error = stderr.split('\n').find((line) => /^\w*(Error|Exception)\b/.test(line.trim()));
  return { reason: error?.trim() ?? `exited with ${signal ?? `code ${code}`}`, outOfMemory: false };
}

/** Runs one peer on the first `limit` pages (undefined: all) in a child process. */
export function runPeerProcess(
  peer: PeerName,
  limit: number | undefined,
  options: SpawnOptions,
): Promise<PeerAttempt> {
  const args = ['--expose-gc', `--max-old-space-size=${options.heapMb}`, options.script, '--child', peer];
  args.push(
    '--runs',
    String(options.runs),
    '--change-rounds',
    String(options.changeRounds),
    '--dir',
    options.dir(peer, limit),
  );
  if (limit !== undefined) args.push('--limit', String(limit));
  if (options.stem) args.push('--stem');
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Partial<PeerRun> = {};
  let phase: RunPhase = 'starting';
  let docs = 0;
  let nextReport = 25_000;
  let done = false;
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    // The end is what explains a crash; keep a bounded tail.
    stderr = (stderr + chunk).slice(-16_384);
  });
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = parseChildLine(text);
    if (line === null) return;
    switch (line.kind) {
      case 'phase':
        phase = line.phase;
        if (phase !== 'starting' && phase !== 'indexing')
          options.log(`  ${peer}: ${phase} (${((performance.now() - started) / 1000) | 0} s)`);
        break;
      case 'progress':
        docs = line.docs;
        if (docs >= nextReport) {
          options.log(
            `  ${peer}: ${docs.toLocaleString('en-US')} pages indexed (${((performance.now() - started) / 1000) | 0} s)`,
          );
          while (nextReport <= docs) nextReport += 25_000;
        }
        break;
      case 'part':
        Object.assign(run, line.part);
        break;
      case 'done':
        done = true;
        break;
    }
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      if (done && code === 0) {
        resolve({ peer, limit, run, wallMs });
        return;
      }
      const { reason, outOfMemory } = failureReason(
        code,
        signal,
        stderr,
        options.heapMb,
        timedOut,
        options.timeoutMs,
      );
      const failure: RunFailure = { phase, atDocs: run.docs ?? docs, outOfMemory, reason };
      options.log(
        `  ${peer}: failed while ${phase} at ${failure.atDocs.toLocaleString('en-US')} pages: ${reason}`,
      );
      // A crash while exporting keeps the run: only its persisted size is missing.
      if (isComplete(run) && run.persisted === undefined) {
        run.persisted = { na: `the process crashed while exporting the index (${reason})` };
      }
      resolve({ peer, limit, run, failure, wallMs });
    });
  });
}

/** Every attempt made for a peer, the last one being the one reported (complete, or the smallest tried). */
export interface FallbackResult {
  attempts: PeerAttempt[];
  /** The attempt whose numbers are reported; undefined when no size worked. */
  used: PeerAttempt | undefined;
}

/**
 * Runs a peer on `limit` pages, and after a failure before its queries were measured, on
 * smaller sizes ({@link nextSmallerSize}) until a run completes. A failure while exporting
 * keeps the run (see {@link runPeerProcess}).
 */
export async function runWithFallback(
  peer: PeerName,
  limit: number | undefined,
  options: SpawnOptions,
): Promise<FallbackResult> {
  const attempts: PeerAttempt[] = [];
  let size = limit;
  for (;;) {
    options.log(
      `running ${peer} on ${size === undefined ? 'the whole corpus' : `${size.toLocaleString('en-US')} pages`}...`,
    );
    const attempt = await runPeerProcess(peer, size, options);
    attempts.push(attempt);
    if (isComplete(attempt.run)) return { attempts, used: attempt };
    const failure = attempt.failure ?? {
      phase: 'closing',
      atDocs: 0,
      outOfMemory: false,
      reason: 'ended without results',
    };
    const next = nextSmallerSize(failure.atDocs, size ?? attempt.run.docs ?? failure.atDocs);
    if (next === undefined) return { attempts, used: undefined };
    size = next;
  }
}
