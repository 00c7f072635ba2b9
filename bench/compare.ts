/**
 * The comparative benchmark: the same work on our engine and on the in-process search
 * libraries a user might pick instead (MiniSearch, Orama, FlexSearch) and on SQLite FTS5, in
 * one run, on the RFC corpus.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/compare.js [--limit N] [--peers ours,fts5,minisearch,orama,flexsearch]
 *     [--out bench/results/compare] [--repeat 1] [--runs 20] [--change-rounds 5] [--heap-mb 8192] [--timeout-min 90] [--stem]
 *
 * Each library runs in its own child process with the same heap limit (`bench/lib/peers/`):
 * index time, time from a change to searchable, query latency median/p99 per query class,
 * RSS, persisted size. A library that runs out of memory is run again on fewer pages and
 * compared with ours on those pages. With `--repeat N` every library runs N times, in turn with
 * the others, and each number is the median of its N runs (the machine may be shared). Prints the numbers and their ratios to ours, and writes
 * `<out>.md` (tables and notes), `<out>.svg` (chart) and `<out>.json` (every attempt, with
 * the top 10 keys of each query). `--render <out>.json` writes the report and chart again from
 * saved results.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkHits } from './lib/peers/check-hits.js';
import { writeCompareChart } from './lib/peers/compare-chart.js';
import { absoluteRows, ratioRows, writeCompareMarkdown } from './lib/peers/compare-report.js';
import type { CompareResults } from './lib/peers/compare-results.js';
import { isPeerName, PEER_NAMES, type PeerName } from './lib/peers/peer.js';
import { runPeerChild } from './lib/peers/run-peer.js';
import { runRounds } from './lib/peers/run-rounds.js';
import type { SpawnOptions } from './lib/peers/spawn-peer.js';
import { formatBytes, printTable } from './lib/measure.js';
import { corpusAvailable, corpusMissingMessage, repositoryRoot } from './lib/rfc-corpus.js';

const { values } = parseArgs({
  options: {
    limit: { type: 'string' },
    peers: { type: 'string', default: PEER_NAMES.join(',') },
    out: { type: 'string' },
    runs: { type: 'string', default: '20' },
    repeat: { type: 'string', default: '1' },
    'change-rounds': { type: 'string', default: '5' },
    'heap-mb': { type: 'string', default: '8192' },
    'timeout-min': { type: 'string', default: '90' },
    stem: { type: 'boolean', default: false },
    // Writes the report and chart again from a saved <out>.json, without running anything.
    render: { type: 'string' },
    // Child mode (started by the parent).
    child: { type: 'string' },
    dir: { type: 'string' },
  },
});

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got "${text}"`);
  return n;
}

const limit = positiveInt('limit', values.limit);
const runs = positiveInt('runs', values.runs)!;
const changeRounds = positiveInt('change-rounds', values['change-rounds'])!;
const repeat = positiveInt('repeat', values.repeat)!;

function parsePeers(text: string): PeerName[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = names.filter((n) => !isPeerName(n));
  if (unknown.length > 0)
    throw new Error(
      `unknown peer(s) ${unknown.join(', ')}: --peers takes a comma-separated list of ${PEER_NAMES.join(', ')}`,
    );
  // Ours first, so that every later run can be compared with it; then the order of PEER_NAMES.
  return PEER_NAMES.filter((n) => names.includes(n));
}

function machine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model.trim() ?? 'unknown CPU'} (${cpu.length} cores), ${formatBytes(totalmem())} RAM, ${platform()} ${release()}, Node ${process.version}`;
}

async function parent(): Promise<void> {
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return;
  }
  const peers = parsePeers(values.peers!);
  const out = resolve(values.out ?? join(repositoryRoot(), 'bench', 'results', 'compare'));
  const scratch = join(repositoryRoot(), 'bench', 'results', 'tmp', `compare-${process.pid}`);
  const options: SpawnOptions = {
    script: fileURLToPath(import.meta.url),
    heapMb: positiveInt('heap-mb', values['heap-mb'])!,
    runs,
    changeRounds,
    stem: values.stem === true,
    timeoutMs: positiveInt('timeout-min', values['timeout-min'])! * 60_000,
    dir: (peer, size) => join(scratch, `${peer}-${size ?? 'all'}`),
    log: (line) => console.log(line),
  };
  try {
    const { outcomes, ours } = await runRounds(peers, limit, repeat, options);
    console.log('checking the top-10 hits against the pages...');
    const checked = [
      ...ours,
      ...outcomes.flatMap((o) => (o.peer !== 'ours' && o.used !== undefined ? [o.used] : [])),
    ];
    for (const [run, check] of await checkHits(checked, changeRounds)) run.hitCheck = check;
    const results: CompareResults = {
      limit,
      repeat,
      heapMb: options.heapMb,
      runs,
      changeRounds,
      stem: options.stem,
      command: ['node', 'dist/bench/compare.js', ...process.argv.slice(2)].join(' '),
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      machine: machine(),
      peers: outcomes,
      ours,
    };
    report(results, out, true);
    if (outcomes.some((o) => o.used === undefined)) process.exitCode = 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Prints the tables and writes `<out>.md`, `<out>.svg` (and `<out>.json` unless it is the source). */
function report(results: CompareResults, out: string, writeJson: boolean): void {
  console.log('');
  printTable(absoluteRows(results));
  console.log(
    '\nRatios to ours on the same pages (peer / ours; pages/s: ours / peer): above 1, ours is better.',
  );
  printTable(ratioRows(results));
  mkdirSync(dirname(out), { recursive: true });
  writeCompareMarkdown(`${out}.md`, results, `${out}.svg`);
  writeCompareChart(`${out}.svg`, results);
  if (writeJson) writeFileSync(`${out}.json`, JSON.stringify(results, null, 1) + '\n');
  console.log(`\nwrote ${out}.md, ${out}.svg${writeJson ? ` and ${out}.json` : ''}`);
}

if (values.render !== undefined) {
  const source = resolve(values.render);
  const out = resolve(values.out ?? source.replace(/\.json$/, ''));
  report(JSON.parse(readFileSync(source, 'utf8')) as CompareResults, out, resolve(`${out}.json`) !== source);
} else if (values.child !== undefined) {
  const peer = values.child;
  if (!isPeerName(peer) || values.dir === undefined) throw new Error('--child needs a peer name and --dir');
  await runPeerChild({ peer, limit, runs, changeRounds, dir: values.dir, stem: values.stem === true });
} else {
  await parent();
}
