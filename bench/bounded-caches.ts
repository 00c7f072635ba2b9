/**
 * Bounded caches (`src/bounded-map.ts`): what evicting costs, alone and where users feel it.
 *
 * - **per insert**: a new key set in a full cache of 4,096 string keys, one at a time: the
 *   first-inserted key deleted per insert (`map.delete(map.keys().next().value)`, the pattern
 *   the caches used) against a {@link BoundedMap} keeping as many. Both in this process, taking
 *   turns, medians of the rounds.
 * - **new words**: `SearchService.search` in process on the RFC corpus (top 10, the whole
 *   packet) of two-word queries made of words of the corpus nobody asked before, as most
 *   queries are: first enough of them to fill every generation's term cache (4,096 terms per
 *   field), then the measured ones. Each query names two terms not cached, in every generation.
 * - **mixed set again**: the project's mixed query set asked {@link MIXED_ROUNDS} times after
 *   that: queries asked before, whose terms are cached (hits, promotions).
 *
 * The words are terms of the largest generation's `body` dictionary (letters only, in at least
 * 2 pages, so "did you mean" leaves them alone), shuffled with a fixed seed: both builds ask
 * the same queries in the same order. Each run is a child process that opens the collection
 * with every build (each its own modules, caches and compiled code) and asks each query of
 * each build in turn, which one first alternating: the load of the shared machine falls on
 * all alike. The table gives the medians of `--runs` runs. The collection is only read.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/bounded-caches.js [--home DIR] [--baseline OTHER/dist] [--runs 3]
 *
 * `--home` is the home `bench/http-search.ts` builds (collection `bench`, the whole corpus);
 * `--baseline` another build's `dist` folder (e.g. main before a change).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BoundedMap } from '../src/bounded-map.js';
import { CollectionManager } from '../src/collection/collection-manager.js';
import { silentPushLog } from '../src/collection/push-log.js';
import { SearchHome } from '../src/collection/search-home.js';
import { openBuildSearch } from './lib/build-search.js';
import { formatMs, median, percentile, printTable, type TableRow } from './lib/measure.js';
import { MIXED_QUERIES } from './lib/query-set.js';
import { repositoryRoot } from './lib/rfc-corpus.js';

const { values } = parseArgs({
  options: {
    home: { type: 'string' },
    baseline: { type: 'string' },
    runs: { type: 'string', default: '3' },
    child: { type: 'string' },
    words: { type: 'string' },
  },
});

const COLLECTION = 'bench';
/** The term cache's bound per field and generation (generation-reader.ts). */
const TERM_CACHE_ENTRIES = 4096;
/** Queries of new words asked before measuring: 2 terms each, enough to fill the term caches with margin. */
const FILL_QUERIES = 2600;
/** Queries of new words measured once the caches are full. */
const MEASURED_QUERIES = 1500;
const MIXED_ROUNDS = 5;

/** What one build measured in one run: latencies (ms) per phase. */
interface BuildResult {
  fresh: number[];
  mixed: number[];
  /** Results found by the measured queries of new words, summed (every build should agree). */
  found: number;
}

function loadavgText(): string {
  return loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
}

/** Words of the corpus: letters only, in at least 2 pages of the largest generation, shuffled (seeded). */
async function corpusWords(home: string, count: number): Promise<string[]> {
  const manager = new CollectionManager(new SearchHome(home), silentPushLog());
  try {
    const searcher = await manager.collection(COLLECTION).acquireSearcher();
    try {
      const largest = [...searcher.generations].sort((a, b) => b.maxDoc - a.maxDoc)[0]!;
      const words: string[] = [];
      const letters = 'abcdefghijklmnopqrstuvwxyz';
      for (const a of letters)
        for (const b of letters)
          for (const term of largest.termsWithPrefix('body', a + b, 400))
            if (/^[a-z]{3,}$/.test(term) && largest.docFreq('body', term) >= 2) words.push(term);
      let seed = 20261128;
      for (let i = words.length - 1; i > 0; i--) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        const j = seed % (i + 1);
        [words[i], words[j]] = [words[j]!, words[i]!];
      }
      if (words.length < count) throw new Error(`only ${words.length} words found, ${count} needed`);
      return words.slice(0, count);
    } finally {
      searcher.release();
    }
  } finally {
    await manager.closeAll();
  }
}

/**
 * One run: every build opened in this process, each query asked of each build in turn (which
 * goes first alternating), so that the load of the shared machine falls on all alike.
 */
async function child(dists: string[], home: string, wordsFile: string): Promise<void> {
  const words = JSON.parse(readFileSync(wordsFile, 'utf8')) as string[];
  const builds: Awaited<ReturnType<typeof openBuildSearch>>[] = [];
  for (const dist of dists) builds.push(await openBuildSearch(dist, home, COLLECTION));
  try {
    const results: BuildResult[] = builds.map(() => ({ fresh: [], mixed: [], found: 0 }));
    let turn = 0;
    /** Asks `text` of every build; records each one's latency with `record`. */
    const askAll = async (
      text: string,
      record?: (result: BuildResult, ms: number, found: number) => void,
    ) => {
      turn++;
      for (let k = 0; k < builds.length; k++) {
        const b = (k + turn) % builds.length;
        const started = performance.now();
        const packet = await builds[b]!.search(text);
        const ms = performance.now() - started;
        record?.(results[b]!, ms, packet.response.resultPacket.resultsSummary.totalMatching);
      }
    };
    // The code warmed up on the mixed set once.
    for (const query of MIXED_QUERIES) await askAll(query.text);
    let next = 0;
    const freshQuery = () => `${words[next++]!} ${words[next++]!}`;
    for (let i = 0; i < FILL_QUERIES; i++) await askAll(freshQuery());
    for (let i = 0; i < MEASURED_QUERIES; i++)
      await askAll(freshQuery(), (result, ms, found) => {
        result.fresh.push(ms);
        result.found += found;
      });
    for (let round = 0; round < MIXED_ROUNDS; round++)
      for (const query of MIXED_QUERIES) await askAll(query.text, (result, ms) => result.mixed.push(ms));
    process.send!(results);
  } finally {
    for (const build of builds) await build.close();
  }
}

function runChild(dists: string[], home: string, wordsFile: string): Promise<BuildResult[]> {
  return new Promise((resolveResult, reject) => {
    const forked = fork(
      fileURLToPath(import.meta.url),
      ['--child', JSON.stringify(dists), '--home', home, '--words', wordsFile],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    let result: BuildResult[] | undefined;
    forked.on('message', (message) => (result = message as BuildResult[]));
    forked.on('exit', (code) =>
      result !== undefined ? resolveResult(result) : reject(new Error(`a child exited with code ${code}`)),
    );
  });
}

/** Nanoseconds per insert of a new key into a full cache of {@link TERM_CACHE_ENTRIES}, each way (medians of rounds). */
function perInsert(rounds: number): { fifo: number; bounded: number } {
  const inserts = 200_000;
  const keys = Array.from({ length: TERM_CACHE_ENTRIES + inserts }, (_, i) => `term${i}`);
  const fifoRound = (): number => {
    const map = new Map<string, number>();
    for (let i = 0; i < TERM_CACHE_ENTRIES; i++) map.set(keys[i]!, i);
    const started = performance.now();
    for (let i = TERM_CACHE_ENTRIES; i < keys.length; i++) {
      if (map.size >= TERM_CACHE_ENTRIES) map.delete(map.keys().next().value!);
      map.set(keys[i]!, i);
    }
    return ((performance.now() - started) * 1e6) / inserts;
  };
  const boundedRound = (): number => {
    const map = new BoundedMap<string, number>(TERM_CACHE_ENTRIES);
    for (let i = 0; i < TERM_CACHE_ENTRIES; i++) map.set(keys[i]!, i);
    const started = performance.now();
    for (let i = TERM_CACHE_ENTRIES; i < keys.length; i++)
      if (map.get(keys[i]!) === undefined) map.set(keys[i]!, i);
    return ((performance.now() - started) * 1e6) / inserts;
  };
  const fifo: number[] = [];
  const bounded: number[] = [];
  for (let round = 0; round < rounds; round++) {
    fifo.push(fifoRound());
    bounded.push(boundedRound());
  }
  return { fifo: median(fifo), bounded: median(bounded) };
}

async function main(): Promise<void> {
  const home = resolve(values.home ?? join(repositoryRoot(), 'bench', 'results', 'tmp', 'http-search-all'));
  if (values.child !== undefined) return child(JSON.parse(values.child) as string[], home, values.words!);
  const runs = Number(values.runs);
  if (!(runs >= 1)) throw new Error('--runs must be a whole number >= 1');
  console.log(`bounded caches: load average ${loadavgText()}`);

  const insert = perInsert(7);
  printTable([
    {
      'new key into a full cache of 4,096': 'ns per insert (median of 7 rounds of 200,000)',
      'delete keys().next()': insert.fifo.toFixed(0),
      BoundedMap: insert.bounded.toFixed(0),
    },
  ]);

  const ours = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const builds = [
    { label: 'ours', dist: ours },
    ...(values.baseline !== undefined ? [{ label: 'baseline', dist: resolve(values.baseline) }] : []),
  ];
  const folder = mkdtempSync(join(tmpdir(), 'bounded-caches-'));
  try {
    const wordsFile = join(folder, 'words.json');
    writeFileSync(wordsFile, JSON.stringify(await corpusWords(home, 2 * (FILL_QUERIES + MEASURED_QUERIES))));
    console.log(
      `${FILL_QUERIES} queries of 2 new words to fill the term caches, ${MEASURED_QUERIES} measured; ` +
        `then the mixed set (${MIXED_QUERIES.length} queries) ${MIXED_ROUNDS} times; ${runs} runs`,
    );
    const results = new Map<string, BuildResult[]>(builds.map(({ label }) => [label, []]));
    for (let run = 0; run < runs; run++) {
      const measured = await runChild(
        builds.map(({ dist }) => dist),
        home,
        wordsFile,
      );
      builds.forEach(({ label }, b) => results.get(label)!.push(measured[b]!));
    }
    const rows: TableRow[] = builds.map(({ label }) => {
      const all = results.get(label)!;
      const med = (pick: (r: BuildResult) => number) => formatMs(median(all.map(pick)));
      const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
      return {
        build: label,
        'new words p50': med((r) => median(r.fresh)),
        'new words p90': med((r) => percentile(r.fresh, 90)),
        'new words mean': med((r) => mean(r.fresh)),
        'mixed p50': med((r) => median(r.mixed)),
        'mixed p90': med((r) => percentile(r.mixed, 90)),
        'mixed mean': med((r) => mean(r.mixed)),
      };
    });
    printTable(rows);
    if (builds.length === 2) {
      // Paired: each query's time in the baseline minus ours, asked at the same moment.
      const paired = (pick: (r: BuildResult) => number[]) =>
        formatMs(
          median(
            results.get('ours')!.map((ours, run) => {
              const base = pick(results.get('baseline')![run]!);
              return median(pick(ours).map((ms, i) => base[i]! - ms));
            }),
          ),
        );
      console.log(
        `paired (baseline - ours, median over queries, median of runs): new words ${paired((r) => r.fresh)}, ` +
          `mixed ${paired((r) => r.mixed)}`,
      );
    }
    const found = builds.map(({ label }) => results.get(label)![0]!.found);
    console.log(
      found.every((n) => n === found[0])
        ? `matches: ${found[0]} in all for the measured queries of new words, alike in every build`
        : `matches differ: ${builds.map(({ label }, i) => `${label} ${found[i]}`).join(', ')}`,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  console.log(
    `load average at the end ${loadavgText()} (the machine is shared: compare figures of one run only)`,
  );
}

await main();
