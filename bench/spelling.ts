/**
 * "Did you mean" on the RFC corpus: what a misspelled query costs the query processor, in
 * process (`SearchService.search`, top 10 with the whole packet), our build next to another's.
 *
 * - **once**: 120 distinct typos of 30 words of the corpus (a letter dropped or two swapped,
 *   at set places), each asked once: a typo nobody asked before, as most are;
 * - **again**: the mixed query set's `retransmision timout` asked 100 times in a row: a typo
 *   users repeat.
 *
 * Each build runs in a child process of its own (its compiled code and caches start cold),
 * ours and the baseline's taking turns `--runs` times; the table gives the medians of the runs,
 * and the run says whether both builds suggested the same for every typo.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/spelling.js [--home DIR] [--baseline OTHER/dist] [--runs 3]
 *
 * `--home` is the home `bench/http-search.ts` builds (collection `bench`, the whole corpus);
 * `--baseline` another build's `dist` folder (e.g. main before a change).
 */
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openBuildSearch } from './lib/build-search.js';
import { formatMs, median, percentile, printTable, type TableRow } from './lib/measure.js';
import { repositoryRoot } from './lib/rfc-corpus.js';

const { values } = parseArgs({
  options: {
    home: { type: 'string' },
    baseline: { type: 'string' },
    runs: { type: 'string', default: '3' },
    child: { type: 'string' },
  },
});

const COLLECTION = 'bench';
const WORDS = [
  'authentication',
  'congestion',
  'retransmission',
  'certificate',
  'fragmentation',
  'multicast',
  'resolver',
  'encryption',
  'signature',
  'negotiation',
  'algorithm',
  'implementation',
  'datagram',
  'connection',
  'protocol',
  'address',
  'security',
  'transport',
  'interface',
  'management',
  'application',
  'extension',
  'parameter',
  'registration',
  'subscriber',
  'notification',
  'transaction',
  'compression',
  'authorization',
  'identifier',
];
const REPEATED = 'retransmision timout';
const REPEATS = 100;

/** Four typos of a word: a letter dropped or two swapped, near its start and near its end. */
function typosOf(word: string): string[] {
  const drop = (i: number) => word.slice(0, i) + word.slice(i + 1);
  const swap = (i: number) => word.slice(0, i) + word[i + 1]! + word[i]! + word.slice(i + 2);
  return [drop(2), swap(3), drop(word.length - 2), swap(word.length - 3)];
}

/** What one child measured: latencies (ms) and each typo's suggestion. */
interface ChildResult {
  once: number[];
  again: number[];
  suggestions: Record<string, string | null>;
}

async function child(dist: string, home: string): Promise<void> {
  const { search, close } = await openBuildSearch(dist, home, COLLECTION);
  try {
    // The code warmed up on other queries (words of the set with a letter added at the end).
    for (const word of WORDS) await search(`${word}q`);
    const result: ChildResult = { once: [], again: [], suggestions: {} };
    for (const word of WORDS)
      for (const typo of typosOf(word)) {
        const started = performance.now();
        const packet = await search(typo);
        result.once.push(performance.now() - started);
        result.suggestions[typo] = packet.response.resultPacket.spell?.text ?? null;
      }
    for (let i = 0; i < REPEATS + 5; i++) {
      const started = performance.now();
      await search(REPEATED);
      if (i >= 5) result.again.push(performance.now() - started);
    }
    process.send!(result);
  } finally {
    await close();
  }
}

function runChild(dist: string, home: string): Promise<ChildResult> {
  return new Promise((resolveResult, reject) => {
    const forked = fork(fileURLToPath(import.meta.url), ['--child', dist, '--home', home], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: ChildResult | undefined;
    forked.on('message', (message) => (result = message as ChildResult));
    forked.on('exit', (code) =>
      result !== undefined ? resolveResult(result) : reject(new Error(`a child exited with code ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  const home = resolve(values.home ?? join(repositoryRoot(), 'bench', 'results', 'tmp', 'http-search-all'));
  if (values.child !== undefined) return child(values.child, home);
  const runs = Number(values.runs);
  if (!(runs >= 1)) throw new Error('--runs must be a whole number >= 1');
  const ours = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const builds = [
    { label: 'ours', dist: ours },
    ...(values.baseline !== undefined ? [{ label: 'baseline', dist: resolve(values.baseline) }] : []),
  ];
  console.log(
    `spelling: ${WORDS.length * 4} typos asked once, "${REPEATED}" asked ${REPEATS} times; ${runs} runs; ` +
      `load average ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')}`,
  );
  const results = new Map<string, ChildResult[]>();
  for (let run = 0; run < runs; run++)
    for (const build of run % 2 === 0 ? builds : [...builds].reverse())
      results.set(build.label, [...(results.get(build.label) ?? []), await runChild(build.dist, home)]);
  const rows: TableRow[] = builds.map(({ label }) => {
    const all = results.get(label)!;
    const med = (pick: (r: ChildResult) => number) => formatMs(median(all.map(pick)));
    return {
      build: label,
      'once p50': med((r) => median(r.once)),
      'once p90': med((r) => percentile(r.once, 90)),
      'again p50': med((r) => median(r.again)),
      'again p90': med((r) => percentile(r.again, 90)),
      suggested: String(Object.values(all[0]!.suggestions).filter((s) => s !== null).length),
    };
  });
  printTable(rows);
  if (values.baseline !== undefined) {
    const a = results.get('ours')![0]!.suggestions;
    const b = results.get('baseline')![0]!.suggestions;
    const differing = Object.keys(a).filter((typo) => a[typo] !== b[typo]);
    console.log(
      differing.length === 0
        ? `suggestions: all ${Object.keys(a).length} typos answered alike by both builds`
        : `suggestions: ${differing.length} differ: ${differing.map((t) => `${t}: ${a[t]} / ${b[t]}`).join(', ')}`,
    );
  }
  console.log(
    `load average at the end ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} (the machine is shared: compare figures of one run only)`,
  );
}

await main();
