import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { FileJournal } from '../../src/journal/file-journal.js';
import { tempFolder } from './helpers.js';

const CHILD = fileURLToPath(new URL('./fixtures/append-child.js', import.meta.url));
const SEGMENT_BYTES = 64 * 1024;

interface ChildRun {
  acked: Map<number, string>;
  releasedThrough: number;
  /** The journal's lastSeq when the child opened it (its `S` line). */
  startSeq: number;
  /** How many appends the child keeps in flight at once. */
  workers: number;
}

/** Runs the appending child until it has acked something, then SIGKILLs it after a random delay. */
async function runAndKill(folder: string, seed: number): Promise<ChildRun> {
  const child = spawn(process.execPath, [CHILD, folder, String(SEGMENT_BYTES), String(seed)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: ChildRun = { acked: new Map(), releasedThrough: 0, startSeq: -1, workers: 0 };
  let pending = '';
  let stderr = '';
  let killTimer: NodeJS.Timeout | undefined;
  // 'close', not 'exit': only then has every line the child wrote been read.
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? ''; // a line cut by the kill is not an ack
    for (const line of lines) {
      const [kind, seq, hash] = line.split(' ');
      if (kind === 'S') [run.startSeq, run.workers] = [Number(seq), Number(hash)];
      if (kind === 'A') run.acked.set(Number(seq), hash);
      if (kind === 'R') run.releasedThrough = Math.max(run.releasedThrough, Number(seq));
    }
    if (killTimer === undefined && run.acked.size > 0) {
      // The delay is the behaviour under test: a kill at a random point of the appends.
      killTimer = setTimeout(() => child.kill('SIGKILL'), 20 + Math.floor(Math.random() * 400));
    }
  });
  // A child that never acks must fail the test, not hang it.
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(guard);
  assert.equal(child.signalCode, 'SIGKILL', `child ended on its own: ${stderr}`);
  assert.ok(run.acked.size > 0, `child acked nothing before the kill: ${stderr}`);
  assert.ok(run.startSeq >= 0, `child did not report its start: ${stderr}`);
  return run;
}

void test('SIGKILL during concurrent appends never loses or damages an acknowledged record', async (t) => {
  const folder = await tempFolder(t);
  const acked = new Map<number, string>();
  let releasedThrough = 0;
  for (let iteration = 0; iteration < 6; iteration++) {
    const run = await runAndKill(folder, iteration * 7919);
    for (const [seq, hash] of run.acked) acked.set(seq, hash);
    releasedThrough = Math.max(releasedThrough, run.releasedThrough);

    const journal = await FileJournal.open(folder, { segmentBytes: SEGMENT_BYTES });
    // The child's report must be complete, or the checks below would quietly check less (lost
    // `A` lines) or replay from before records it released (a lost `R` line). Each worker has
    // at most one record durable but not yet reported when the kill comes.
    const unreported = journal.lastSeq - run.startSeq - run.acked.size;
    assert.ok(
      unreported <= run.workers,
      `iteration ${iteration}: the journal holds ${journal.lastSeq - run.startSeq} records from the child, ` +
        `but it reported only ${run.acked.size} acks`,
    );
    const seen = new Map<number, string>();
    let previous = releasedThrough;
    await journal.replay(releasedThrough, (seq, payload) => {
      assert.equal(seq, previous + 1, `iteration ${iteration}: sequence numbers are contiguous`);
      previous = seq;
      seen.set(seq, createHash('sha256').update(payload).digest('hex'));
    });
    assert.equal(previous, journal.lastSeq, `iteration ${iteration}: replay reaches lastSeq`);
    for (const [seq, hash] of acked) {
      if (seq <= releasedThrough) continue;
      assert.equal(seen.get(seq), hash, `iteration ${iteration}: acked record ${seq} is present and intact`);
    }
    // What survived without an ack is now history too: later iterations must keep it intact.
    for (const [seq, hash] of seen) acked.set(seq, hash);
    await journal.close();
  }
});
