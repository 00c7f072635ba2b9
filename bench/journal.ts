/**
 * Journal throughput under group commit: 64 concurrent appenders of 3 KB payloads for 5 s,
 * the file journal next to a peer measured in the same run (better-sqlite3, WAL mode,
 * synchronous=FULL, one transaction per batch of whatever arrived: the same group-commit
 * idea). Prints every run and the medians of 3 runs.
 *
 * Usage: node dist/bench/journal.js [--seconds 5] [--appenders 64] [--bytes 3072] [--runs 3] [--folder <dir>]
 * The folder decides the disk measured (default: the OS temp folder).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { FileJournal } from '../src/journal/file-journal.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    appenders: { type: 'string', default: '64' },
    bytes: { type: 'string', default: '3072' },
    runs: { type: 'string', default: '3' },
    folder: { type: 'string', default: tmpdir() },
  },
});
const seconds = Number(values.seconds);
const appenders = Number(values.appenders);
const payloadBytes = Number(values.bytes);
const runs = Number(values.runs);

/** Distinct payloads, cycled, so neither store sees the same bytes twice in a row. */
const payloads = Array.from({ length: 1024 }, () => randomBytes(payloadBytes));

interface Result {
  appends: number;
  fsyncs: number;
  payloadBytes: number;
  elapsedMs: number;
}

/** Something that makes a payload durable and shares flushes between concurrent callers. */
interface Store {
  append(payload: Uint8Array): Promise<unknown>;
  flushes(): number;
  close(): Promise<void>;
}

async function drive(store: Store): Promise<Result> {
  let appends = 0;
  let bytes = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const flushesBefore = store.flushes();
  const appender = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const payload = payloads[next++ % payloads.length];
      if (payload === undefined) throw new Error('the journal bench needs at least one payload');
      await store.append(payload);
      appends++;
      bytes += payload.byteLength;
    }
  };
  await Promise.all(Array.from({ length: appenders }, appender));
  return {
    appends,
    fsyncs: store.flushes() - flushesBefore,
    payloadBytes: bytes,
    elapsedMs: performance.now() - started,
  };
}

async function fileJournalStore(folder: string): Promise<Store> {
  const journal = await FileJournal.open(folder);
  return {
    append: (payload) => journal.append(payload),
    flushes: () => journal.stats.fsyncs,
    close: () => journal.close(),
  };
}

/**
 * better-sqlite3 is synchronous: a commit blocks the event loop, which is exactly when the
 * next batch gathers (appenders resolved by the last commit queue their next payload).
 */
function sqliteStore(folder: string): Store {
  const db = new Database(join(folder, 'journal.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE journal (seq INTEGER PRIMARY KEY, payload BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO journal (payload) VALUES (?)');
  const commit = db.transaction((batch: Array<{ payload: Uint8Array; resolve: (seq: number) => void }>) =>
    batch.map((item) => ({ item, seq: Number(insert.run(item.payload).lastInsertRowid) })),
  );
  let queue: Array<{
    payload: Uint8Array;
    resolve: (seq: number) => void;
    reject: (error: unknown) => void;
  }> = [];
  let scheduled = false;
  let commits = 0;
  const flush = (): void => {
    scheduled = false;
    const batch = queue;
    queue = [];
    try {
      const done = commit(batch);
      commits++;
      for (const { item, seq } of done) item.resolve(seq);
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  };
  return {
    append: (payload) =>
      new Promise<number>((resolve, reject) => {
        queue.push({ payload, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      }),
    flushes: () => commits,
    close: async () => {
      db.close();
    },
  };
}

async function measure(name: string, open: (folder: string) => Promise<Store> | Store): Promise<Result> {
  const folder = await mkdtemp(join(values.folder, 'pushsearch-bench-journal-'));
  try {
    const store = await open(folder);
    try {
      return await drive(store);
    } finally {
      await store.close();
    }
  } catch (error) {
    throw new Error(`${name} failed`, { cause: error });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function row(name: string, r: Result): string {
  const s = r.elapsedMs / 1000;
  const cells = [
    name.padEnd(28),
    (r.appends / s).toFixed(0).padStart(10),
    (r.payloadBytes / s / 1e6).toFixed(2).padStart(8),
    (r.fsyncs / s).toFixed(0).padStart(9),
    (r.appends / Math.max(1, r.fsyncs)).toFixed(1).padStart(11),
  ];
  return cells.join('  ');
}

function median(results: Result[]): Result {
  const pick = (f: (r: Result) => number): number => {
    const sorted = results.map(f).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  };
  // Rates are taken per run, then the median; expressed back over one second.
  return {
    appends: pick((r) => r.appends / (r.elapsedMs / 1000)),
    payloadBytes: pick((r) => r.payloadBytes / (r.elapsedMs / 1000)),
    fsyncs: pick((r) => r.fsyncs / (r.elapsedMs / 1000)),
    elapsedMs: 1000,
  };
}

const header = [
  'store'.padEnd(28),
  'appends/s'.padStart(10),
  'MB/s'.padStart(8),
  'fsyncs/s'.padStart(9),
  'recs/fsync'.padStart(11),
].join('  ');
console.log(
  `journal bench: ${appenders} appenders, ${payloadBytes} B payloads, ${seconds} s per run, ${runs} runs, folder ${values.folder}`,
);
console.log(header);
const file: Result[] = [];
const sqlite: Result[] = [];
for (let run = 1; run <= runs; run++) {
  const fileRun = await measure('file journal', fileJournalStore);
  file.push(fileRun);
  console.log(row(`file journal (run ${run})`, fileRun));
  const sqliteRun = await measure('sqlite', sqliteStore);
  sqlite.push(sqliteRun);
  console.log(row(`sqlite WAL FULL (run ${run})`, sqliteRun));
}
console.log('medians');
console.log(header);
console.log(row('file journal', median(file)));
console.log(row('sqlite WAL FULL', median(sqlite)));
