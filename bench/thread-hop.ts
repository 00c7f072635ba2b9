/**
 * What a query costs around the engine on its way to a search thread and back (issue #19),
 * measured beside the way it was done before, in one run:
 *
 *   npx tsc -p tsconfig.json && node dist/bench/thread-hop.js [--batches 15]
 *
 * - The click-tracking URLs of a page of 10 results: {@link clickTrackingUrl} (an HMAC and a
 *   URLSearchParams per result) against {@link ClickTrackingUrls} (signatures kept, collection
 *   and query encoded once per query), on a search thread's steady state (results seen before).
 * - The event loop's `postMessage` of a task to a thread (the structured clone), for a member
 *   of 11 generations as the RFC collection has: as sent now to a thread that holds the point
 *   in time, as sent the first time (what it learns), and with every generation's reference,
 *   its killed bits and the schema in each task, as before they were named by id.
 *
 * Medians of `--batches` batches, microseconds per page or per message; the load average is
 * printed (the machine may be shared: compare the rows of one run).
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { clickTrackingUrl, ClickTrackingUrls } from '../src/search/click-tracking-url.js';
import { firstPageParams } from '../src/search/run-search.js';
import { median, printTable } from './lib/measure.js';

const { values } = parseArgs({ options: { batches: { type: 'string', default: '15' } } });
const batches = Number(values.batches);

const secret = randomBytes(32);
const URLS = Array.from({ length: 500 }, (_, i) => `https://www.rfc-editor.org/rfc/rfc${1000 + i * 17}.txt`);
const QUERIES = [
  'http cookie',
  'tcp congestion control',
  '"message body"',
  'ipv6 -mobile',
  "o'reilly (draft)",
];

/** Microseconds per call of `run(i)`, median of the batches. */
function perCall(run: (i: number) => unknown, calls: number): number {
  for (let i = 0; i < calls; i++) run(i);
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) run(i);
    samples.push(((performance.now() - started) * 1000) / calls);
  }
  return median(samples);
}

function clickUrlRows(): Record<string, string | number>[] {
  const page = (i: number, url: (rank: number) => string) => {
    let length = 0;
    for (let rank = 1; rank <= 10; rank++) length += url(rank).length;
    return length + i;
  };
  const cached = new ClickTrackingUrls(secret);
  const urlOf = (i: number, rank: number) => URLS[(i * 10 + rank) % URLS.length]!;
  const queryOf = (i: number) => QUERIES[i % QUERIES.length]!;
  const before = perCall(
    (i) => page(i, (rank) => clickTrackingUrl(secret, 'bench', urlOf(i, rank), rank, queryOf(i))),
    2000,
  );
  const now = perCall((i) => page(i, (rank) => cached.url('bench', urlOf(i, rank), rank, queryOf(i))), 2000);
  return [
    { what: 'click URLs of a page of 10: HMAC + URLSearchParams each (before)', µs: before, ratio: 1 },
    { what: 'click URLs of a page of 10: ClickTrackingUrls (now)', µs: now, ratio: now / before },
  ];
}

async function messageRows(): Promise<Record<string, string | number>[]> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     let n = 0;
     parentPort.on('message', (m) => { if (m === 'count') parentPort.postMessage(n); else n++; });`,
    { eval: true },
  );
  const killed = new SharedArrayBuffer(4096);
  const params = firstPageParams('bench', 'http cookie', 10);
  const common = {
    type: 'search',
    taskId: 1,
    params,
    collection: 'bench',
    isMeta: false,
    settingsId: 1,
    deadline: Date.now(),
    maxPrefixTerms: 256,
    explain: false,
    form: 'json',
  };
  const generations = (withKilled: boolean) =>
    Array.from({ length: 11 }, (_, i) => ({
      id: i + 1,
      killedFile: withKilled ? `g${i + 1}_${i}.del` : null,
      killed: withKilled ? new Uint8Array(killed, i * 256, 256) : null,
    }));
  const named = { ...common, members: [{ name: 'bench', settingsId: 1, pointId: 3 }], schemaId: 1 };
  const shapes: [string, () => object][] = [
    ['task naming what the thread holds (now)', () => ({ ...named, learn: null })],
    [
      'task teaching the point in time, killed bits in 11 generations (now, once per thread)',
      () => ({
        ...named,
        learn: {
          settings: [],
          generations: [],
          points: [{ id: 3, generations: generations(true) }],
          dropPoints: [],
          schemas: [{ id: 1, options: { defaultAnalyzer: {} } }],
          resetSchemas: false,
        },
      }),
    ],
    [
      'task with 11 generation refs and the schema (before), nothing killed',
      () => ({
        ...common,
        members: [{ name: 'bench', settingsId: 1, generations: generations(false) }],
        schema: { defaultAnalyzer: {} },
        settings: [],
        generations: [],
      }),
    ],
    [
      'task with 11 generation refs and the schema (before), killed bits in each',
      () => ({
        ...common,
        members: [{ name: 'bench', settingsId: 1, generations: generations(true) }],
        schema: { defaultAnalyzer: {} },
        settings: [],
        generations: [],
      }),
    ],
  ];
  const rows: Record<string, string | number>[] = [];
  let reference = 0;
  for (const [what, make] of shapes) {
    const messages = Array.from({ length: 2000 }, make);
    const us = perCall((i) => worker.postMessage(messages[i]), messages.length);
    // Let the thread drain what it was sent before the next shape is timed.
    worker.postMessage('count');
    await new Promise((resolve) => worker.once('message', resolve));
    if (rows.length === 0) reference = us;
    rows.push({ what: `postMessage: ${what}`, µs: us, ratio: us / reference });
  }
  await worker.terminate();
  return rows;
}

const rows = [...clickUrlRows(), ...(await messageRows())];
console.log(
  `thread hop: medians of ${batches} batches; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
printTable(
  rows.map((row) => ({ ...row, µs: Number(row['µs']).toFixed(2), ratio: Number(row.ratio).toFixed(2) })),
);
