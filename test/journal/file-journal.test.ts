import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { test } from 'node:test';
import { SearchError } from '../../src/errors.js';
import { FileJournal } from '../../src/journal/file-journal.js';
import { payloadFor, replayAll, tempFolder } from './helpers.js';

void test('append resolves contiguous sequence numbers and replay returns the payloads in order', async (t) => {
  const folder = await tempFolder(t);
  const journal = await FileJournal.open(folder);
  assert.equal(journal.lastSeq, 0);
  const payloads = [payloadFor(1, 10), Buffer.alloc(0), payloadFor(3, 5000)];
  const seqs: number[] = [];
  for (const payload of payloads) seqs.push(await journal.append(payload));
  assert.deepEqual(seqs, [1, 2, 3]);
  assert.equal(journal.lastSeq, 3);

  assert.deepEqual(await replayAll(journal), [
    { seq: 1, payload: payloads[0] },
    { seq: 2, payload: payloads[1] },
    { seq: 3, payload: payloads[2] },
  ]);
  assert.deepEqual(
    (await replayAll(journal, 2)).map((r) => r.seq),
    [3],
  );
  assert.deepEqual(await replayAll(journal, 3), []);
  const stats = journal.stats;
  assert.equal(stats.appends, 3);
  assert.equal(stats.bytes, 3 * 16 + 10 + 0 + 5000);
  await journal.close();
});

void test('a reopened journal replays what was acknowledged and continues the numbering', async (t) => {
  const folder = await tempFolder(t);
  const first = await FileJournal.open(folder);
  for (let i = 1; i <= 20; i++) await first.append(payloadFor(i, 100 + i));
  await first.close();

  const second = await FileJournal.open(folder);
  assert.equal(second.lastSeq, 20);
  const records = await replayAll(second, 5);
  assert.deepEqual(
    records.map((r) => r.seq),
    Array.from({ length: 15 }, (_, i) => i + 6),
  );
  for (const record of records) assert.deepEqual(record.payload, payloadFor(record.seq, 100 + record.seq));
  assert.equal(await second.append(payloadFor(21)), 21);
  await second.close();

  const third = await FileJournal.open(folder);
  assert.equal(third.lastSeq, 21);
  assert.deepEqual((await replayAll(third, 20))[0].payload, payloadFor(21));
  await third.close();
});

void test('1,000 concurrent appends share fsyncs, keep call order and are all durable', async (t) => {
  const folder = await tempFolder(t);
  const journal = await FileJournal.open(folder);
  const count = 1000;
  const seqs = await Promise.all(
    Array.from({ length: count }, (_, i) => journal.append(payloadFor(i + 1, 300))),
  );
  assert.deepEqual(
    seqs,
    Array.from({ length: count }, (_, i) => i + 1),
  );
  const stats = journal.stats;
  assert.equal(stats.appends, count);
  assert.ok(
    stats.fsyncs >= 1 && stats.fsyncs < count,
    `expected shared fsyncs, got ${stats.fsyncs} for ${count} appends`,
  );
  await journal.close();

  const reopened = await FileJournal.open(folder);
  const records = await replayAll(reopened);
  assert.equal(records.length, count);
  for (const record of records) assert.deepEqual(record.payload, payloadFor(record.seq, 300));
  await reopened.close();
});

void test('appends arriving while an fsync is in flight form the next batch', async (t) => {
  const folder = await tempFolder(t);
  const journal = await FileJournal.open(folder);
  await journal.append(payloadFor(0));
  const before = journal.stats.fsyncs;
  // Three waves: each starts while the previous one is being flushed.
  const waves: Array<Promise<number>> = [];
  for (let wave = 0; wave < 3; wave++) {
    for (let i = 0; i < 100; i++) waves.push(journal.append(payloadFor(wave * 100 + i)));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(waves);
  assert.ok(
    journal.stats.fsyncs - before <= 3,
    `300 appends in 3 waves took ${journal.stats.fsyncs - before} fsyncs`,
  );
  await journal.close();
});

void test('close makes pending appends durable, later appends reject with JOURNAL_CLOSED', async (t) => {
  const folder = await tempFolder(t);
  const journal = await FileJournal.open(folder);
  const pending = Array.from({ length: 10 }, (_, i) => journal.append(payloadFor(i + 1)));
  const closed = journal.close();
  await assert.rejects(journal.append(payloadFor(99)), (error: unknown) => {
    assert.ok(error instanceof SearchError);
    assert.equal(error.code, 'JOURNAL_CLOSED');
    return true;
  });
  assert.deepEqual(await Promise.all(pending), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  await closed;

  const reopened = await FileJournal.open(folder);
  assert.equal(reopened.lastSeq, 10);
  await reopened.close();
});

void test('firstSeq numbers a new journal, and is ignored once the journal exists', async (t) => {
  const folder = await tempFolder(t);
  const journal = await FileJournal.open(folder, { firstSeq: 501 });
  assert.equal(journal.lastSeq, 500);
  assert.equal(await journal.append(payloadFor(1)), 501);
  await journal.close();
  assert.deepEqual(await readdir(folder), ['journal-00000000000000000501.log']);

  const reopened = await FileJournal.open(folder, { firstSeq: 9000 });
  assert.equal(await reopened.append(payloadFor(2)), 502);
  assert.deepEqual(
    (await replayAll(reopened, 500)).map((r) => r.seq),
    [501, 502],
  );
  await reopened.close();
});

void test('bad options are refused with a message naming the option', async (t) => {
  const folder = await tempFolder(t);
  await assert.rejects(FileJournal.open(folder, { segmentBytes: 0 }), /segmentBytes/);
  await assert.rejects(FileJournal.open(folder, { firstSeq: 0 }), /firstSeq/);
});
