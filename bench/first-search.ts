/**
 * The first search after a restart: what a user waits for when the server has just started
 * (a collection opens on first use: its generation files are read and checked, the search
 * threads learn them). For each repeat, each server (ours, and with `--baseline-server` another
 * build's `dist/src/cli/main.js`, taking turns) is started on the same home and timed:
 * - start: from spawning `pushsearch serve` until `/health` answers;
 * - first search: `GET /s/search.json` of `--query`, which opens the collection;
 * - longest /health during it: `/health` asked again and again, one after the other, until
 *   the first search answers; the longest wait (what any other client waited at worst while
 *   the collection opened);
 * - second search: the same query again (the collection open, the threads warm).
 * The collection is the RFC corpus as the other search benchmarks build it (`--home`, default
 * `bench/results/tmp/first-search-<pages>`, built once and reused). Medians over `--repeats`.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/first-search.js [--pages N] [--repeats 5] [--home DIR] [--query protocol] [--baseline-server PATH]
 */
import http from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median, printTable, type TableRow } from './lib/measure.js';
import { corpusAvailable, corpusMissingMessage, repositoryRoot } from './lib/rfc-corpus.js';
import { rfcHome } from './lib/rfc-home.js';
import { ServerProcess } from './lib/server-process.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string' },
    repeats: { type: 'string', default: '5' },
    home: { type: 'string' },
    query: { type: 'string', default: 'protocol' },
    'baseline-server': { type: 'string' },
  },
});

const COLLECTION = 'bench';
const PASSWORD = 'bench-password-1';
const pages = values.pages === undefined ? undefined : Number(values.pages);
const repeats = Number(values.repeats);
if (!(repeats >= 1) || (pages !== undefined && !(pages >= 1)))
  throw new Error('--repeats and --pages must be whole numbers >= 1');

/** A GET on a fresh connection; its status and milliseconds. */
function timedGet(port: number, path: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolveGet, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
        response.resume();
        response.once('end', () =>
          resolveGet({ status: response.statusCode ?? 0, ms: performance.now() - started }),
        );
      })
      .once('error', reject);
  });
}

type Figures = Record<'start' | 'first search' | 'longest /health during it' | 'second search', number>;

async function measure(home: string, label: string, main: string | undefined): Promise<Figures> {
  const started = performance.now();
  const server = await ServerProcess.start(home, join(home, `server-${label}.log`), PASSWORD, {
    ...(main !== undefined ? { main } : {}),
  });
  try {
    const start = performance.now() - started;
    const path = `/s/search.json?${new URLSearchParams({ collection: COLLECTION, query: values.query })}`;
    let searching = true;
    const first = timedGet(server.port, path).finally(() => (searching = false));
    // One after another while the first search runs: the longest is what any other client
    // waited at worst meanwhile.
    let health = { status: 200, ms: 0 };
    while (searching) {
      const answer = await timedGet(server.port, '/health');
      if (answer.status !== 200 || answer.ms > health.ms) health = answer;
    }
    const firstAnswer = await first;
    const second = await timedGet(server.port, path);
    for (const [what, answer] of [
      ['first search', firstAnswer],
      ['/health', health],
      ['second search', second],
    ] as const)
      if (answer.status !== 200) throw new Error(`${label}: ${what} answered ${answer.status}`);
    return {
      start,
      'first search': firstAnswer.ms,
      'longest /health during it': health.ms,
      'second search': second.ms,
    };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return;
  }
  const home = resolve(
    values.home ?? join(repositoryRoot(), 'bench', 'results', 'tmp', `first-search-${pages ?? 'all'}`),
  );
  const built = await rfcHome(home, COLLECTION, pages);
  const baseline = values['baseline-server'];
  const servers = [
    { label: 'ours', main: undefined },
    ...(baseline !== undefined ? [{ label: 'baseline', main: resolve(baseline) }] : []),
  ];
  console.log(
    `${built.pages} pages, query ${JSON.stringify(values.query)}, ${repeats} repeats; load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} on ${availableParallelism()} cores`,
  );
  const figures = new Map<string, Figures[]>(servers.map((s) => [s.label, []]));
  for (let r = 1; r <= repeats; r++) {
    // The servers take turns, who goes first alternating with the repeat.
    for (const server of r % 2 === 1 ? servers : [...servers].reverse()) {
      const measured = await measure(home, server.label, server.main);
      figures.get(server.label)!.push(measured);
      console.log(
        `repeat ${r}, ${server.label}: ` +
          Object.entries(measured)
            .map(([what, ms]) => `${what} ${ms.toFixed(0)} ms`)
            .join(', '),
      );
    }
  }
  const rows: TableRow[] = servers.map(({ label }) => {
    const all = figures.get(label)!;
    const row: TableRow = { server: label };
    for (const what of Object.keys(all[0]!) as (keyof Figures)[])
      row[what] = `${median(all.map((f) => f[what])).toFixed(0)} ms`;
    return row;
  });
  console.log(`\nmedians of ${repeats} repeats:`);
  printTable(rows);
  console.log(
    `load average at the end ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} on ${availableParallelism()} cores`,
  );
}

await main();
