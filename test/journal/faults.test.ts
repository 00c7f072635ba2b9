import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import { test } from 'node:test';
import { SearchError } from '../../src/errors.js';
import { FileJournal } from '../../src/journal/file-journal.js';
import { FaultyJournalIo } from './faulty-journal-io.js';
import { payloadFor, replayAll, seededRandom, tempFolder } from './helpers.js';

function isWriteFailed(causeCode: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof SearchError, String(error));
    assert.equal(error.code, 'JOURNAL_WRITE_FAILED');
    assert.equal((error.cause as NodeJS.ErrnoException).code, causeCode);
    return true;
  };
}

/** Reopens the folder with the real file system and returns the replayed seqs and payload labels. */
async function durableContents(folder: string): Promise<Array<{ seq: number; payload: Buffer }>> {
  const journal = await FileJournal.open(folder);
  try {
    return await replayAll(journal);
  } finally {
    await journal.close();
  }
}

void test('ENOSPC: the failing batch rejects, nothing is acked while the disk is full, appends work once space is back', async (t) => {
  const folder = await tempFolder(t);
  const io = new FaultyJournalIo();
  const journal = await FileJournal.open(folder, { io });
  assert.equal(await journal.append(payloadFor(1)), 1);

  // A short write that ran out of space, then a disk that stays full.
  io.failWith('write', 'ENOSPC', { partial: true });
  io.failWith('write', 'ENOSPC', { times: Infinity });
  const batch = [journal.append(payloadFor(101)), journal.append(payloadFor(102))];
  for (const append of batch) await assert.rejects(append, isWriteFailed('ENOSPC'));
  await assert.rejects(journal.append(payloadFor(103)), isWriteFailed('ENOSPC'));
  assert.equal(journal.lastSeq, 1);

  io.clearFaults();
  // The rejected records' numbers are reused: no hole in the sequence.
  assert.deepEqual(await Promise.all([journal.append(payloadFor(2)), journal.append(payloadFor(3))]), [2, 3]);
  await journal.close();

  assert.deepEqual(await durableContents(folder), [
    { seq: 1, payload: payloadFor(1) },
    { seq: 2, payload: payloadFor(2) },
    { seq: 3, payload: payloadFor(3) },
  ]);
});

void test('EIO from fdatasync rejects the batch; the next batch truncates back and succeeds', async (t) => {
  const folder = await tempFolder(t);
  const io = new FaultyJournalIo();
  const journal = await FileJournal.open(folder, { io });
  await journal.append(payloadFor(1));
  io.failWith('datasync', 'EIO');
  await assert.rejects(journal.append(payloadFor(100)), isWriteFailed('EIO'));
  assert.equal(await journal.append(payloadFor(2)), 2);
  assert.equal(io.calls.get('truncate'), 1, 'recovery truncated back to the durable length');
  await journal.close();
  assert.deepEqual(
    (await durableContents(folder)).map((r) => r.payload),
    [payloadFor(1), payloadFor(2)],
  );
});

void test('when the recovery itself fails, later appends keep rejecting until it succeeds', async (t) => {
  const folder = await tempFolder(t);
  const io = new FaultyJournalIo();
  const journal = await FileJournal.open(folder, { io });
  await journal.append(payloadFor(1));
  io.failWith('write', 'EIO', { partial: true });
  io.failWith('truncate', 'EIO', { times: Infinity });
  await assert.rejects(journal.append(payloadFor(100)), isWriteFailed('EIO'));
  // The write that failed may have left bytes past the durable length: until they are cut
  // off, nothing else may be acknowledged, even though writes themselves work again.
  await assert.rejects(journal.append(payloadFor(101)), isWriteFailed('EIO'));
  await assert.rejects(journal.append(payloadFor(102)), isWriteFailed('EIO'));
  io.clearFaults();
  assert.equal(await journal.append(payloadFor(2)), 2);
  await journal.close();
  assert.deepEqual(
    (await durableContents(folder)).map((r) => r.seq),
    [1, 2],
  );
});

void test('a failed rollover keeps appending to the full segment; a later rollover succeeds', async (t) => {
  const folder = await tempFolder(t);
  const io = new FaultyJournalIo();
  const segmentBytes = 24 + 2 * (16 + 64);
  const journal = await FileJournal.open(folder, { io, segmentBytes });
  await journal.append(payloadFor(1));
  await journal.append(payloadFor(2));
  io.failWith('open', 'ENOSPC'); // creating the next segment's temp file
  assert.equal(await journal.append(payloadFor(3)), 3);
  assert.equal(journal.segmentCount, 1);
  assert.equal(await journal.append(payloadFor(4)), 4);
  assert.equal(journal.segmentCount, 2);
  await journal.close();
  assert.deepEqual((await readdir(folder)).sort(), [
    'journal-00000000000000000001.log',
    'journal-00000000000000000004.log',
  ]);
  assert.deepEqual(
    (await durableContents(folder)).map((r) => r.seq),
    [1, 2, 3, 4],
  );
});

void test('a failed folder sync after a rollover rejects the batch: a new segment name must be durable before an ack', async (t) => {
  const folder = await tempFolder(t);
  const io = new FaultyJournalIo();
  const segmentBytes = 24 + 2 * (16 + 64);
  const journal = await FileJournal.open(folder, { io, segmentBytes });
  await journal.append(payloadFor(1));
  await journal.append(payloadFor(2));
  io.failWith('syncFolder', 'EIO');
  await assert.rejects(journal.append(payloadFor(100)), isWriteFailed('EIO'));
  await journal.close();

  // The newest segment holds no record (its one write was rolled back): it reopens as such.
  assert.equal((await readdir(folder)).length, 2);
  const reopened = await FileJournal.open(folder, { segmentBytes });
  assert.equal(reopened.lastSeq, 2);
  assert.equal(await reopened.append(payloadFor(3)), 3);
  assert.deepEqual(
    (await replayAll(reopened)).map((r) => r.seq),
    [1, 2, 3],
  );
  await reopened.close();
});

void test('power loss at random moments never loses an acknowledged record', async (t) => {
  for (let round = 0; round < 25; round++) {
    const random = seededRandom(1000 + round);
    const folder = await tempFolder(t);
    const acked = new Map<number, Buffer>();
    let released = 0;
    // Several crashes on the same folder: each reopen must continue a journal that survived the last.
    for (let life = 0; life < 4; life++) {
      const io = new FaultyJournalIo(random);
      const journal = await FileJournal.open(folder, { io, segmentBytes: 2000 });
      const crashAfter = 1 + Math.floor(random() * 120);
      let crashed: Promise<void> | undefined;
      let ackedThisLife = 0;
      const writer = async (worker: number): Promise<void> => {
        for (let i = 0; crashed === undefined; i++) {
          const payload = payloadFor(worker * 100000 + i, 1 + Math.floor(random() * 300));
          let seq: number;
          try {
            seq = await journal.append(payload);
          } catch {
            return; // the crash
          }
          acked.set(seq, payload);
          ackedThisLife++;
          if (ackedThisLife % 37 === 0 && seq > 40) {
            released = Math.max(released, seq - 40);
            await journal.releaseThrough(seq - 40).catch(() => undefined);
          }
          if (ackedThisLife >= crashAfter) crashed ??= io.powerLoss();
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, worker) => writer(worker)));
      await crashed;
      await journal.close().catch(() => undefined);

      const reopened = await FileJournal.open(folder, { segmentBytes: 2000 });
      const records = await replayAll(reopened, released);
      const context = `round ${round}, life ${life}`;
      for (let k = 1; k < records.length; k++) assert.equal(records[k].seq, records[k - 1].seq + 1, context);
      if (records.length > 0) assert.equal(records[0].seq, released + 1, context);
      assert.equal(
        reopened.lastSeq,
        records.length > 0 ? records[records.length - 1].seq : reopened.lastSeq,
        context,
      );
      const bySeq = new Map(records.map((r) => [r.seq, r.payload]));
      for (const [seq, payload] of acked) {
        if (seq <= released) continue;
        assert.deepEqual(bySeq.get(seq), payload, `${context}: acked record ${seq}`);
      }
      // Records durable but never acked may survive; they become part of the history.
      for (const record of records) acked.set(record.seq, record.payload);
      await reopened.close();
    }
  }
});

void test('a journal whose files were deleted while it was open acknowledges nothing more', async (t) => {
  const folder = await tempFolder(t);
  const journal = await FileJournal.open(folder);
  assert.equal(await journal.append(payloadFor(1)), 1);
  // What `rm -rf data/<collection>` does under a running server.
  await rm(folder, { recursive: true, force: true });
  const deleted = (error: unknown): boolean => {
    assert.ok(error instanceof SearchError, String(error));
    assert.equal(error.code, 'JOURNAL_WRITE_FAILED');
    assert.match(error.message, /deleted while the server ran/);
    return true;
  };
  await assert.rejects(journal.append(payloadFor(2)), deleted);
  // Still refused afterwards (the file cannot be reopened), with the same advice.
  await assert.rejects(journal.append(payloadFor(3)), deleted);
  assert.equal(journal.lastSeq, 1);
  await journal.close().catch(() => undefined);
});
