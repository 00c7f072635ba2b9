import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { SearchError } from '../../src/errors.js';
import { FileJournal } from '../../src/journal/file-journal.js';
import { payloadFor, replayAll, tempFolder } from './helpers.js';

const RECORD_BYTES = 16 + 100;

/** First sequence numbers of the segment files in the folder, ascending. */
async function segmentStarts(folder: string): Promise<number[]> {
  return (await readdir(folder))
    .map((name) => /^journal-(\d{20})\.log$/.exec(name))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
}

void test('segments roll over at segmentBytes and replay crosses them in order', async (t) => {
  const folder = await tempFolder(t);
  const journal = await FileJournal.open(folder, { segmentBytes: 24 + 5 * RECORD_BYTES });
  for (let i = 1; i <= 23; i++) await journal.append(payloadFor(i, 100));
  // Five records fill a segment; the sixth starts the next one.
  assert.deepEqual(await segmentStarts(folder), [1, 6, 11, 16, 21]);
  assert.equal(journal.segmentCount, 5);
  const records = await replayAll(journal);
  assert.deepEqual(
    records.map((r) => r.seq),
    Array.from({ length: 23 }, (_, i) => i + 1),
  );
  for (const record of records) assert.deepEqual(record.payload, payloadFor(record.seq, 100));
  await journal.close();
});

void test('releaseThrough deletes only whole segments at or below the released seq, never the newest', async (t) => {
  const folder = await tempFolder(t);
  const journal = await FileJournal.open(folder, { segmentBytes: 24 + 5 * RECORD_BYTES });
  for (let i = 1; i <= 23; i++) await journal.append(payloadFor(i, 100));

  await journal.releaseThrough(4); // segment 1..5 still holds 5
  assert.deepEqual(await segmentStarts(folder), [1, 6, 11, 16, 21]);
  await journal.releaseThrough(5);
  assert.deepEqual(await segmentStarts(folder), [6, 11, 16, 21]);
  await journal.releaseThrough(17);
  assert.deepEqual(await segmentStarts(folder), [16, 21]);

  assert.deepEqual(
    (await replayAll(journal, 17)).map((r) => r.seq),
    [18, 19, 20, 21, 22, 23],
  );
  assert.deepEqual(
    (await replayAll(journal, 15)).map((r) => r.seq),
    [16, 17, 18, 19, 20, 21, 22, 23],
  );
  await assert.rejects(replayAll(journal, 14), (error: unknown) => {
    assert.ok(error instanceof SearchError);
    assert.equal(error.code, 'JOURNAL_RECORDS_RELEASED');
    return true;
  });

  // Releasing everything keeps the newest segment: its name carries the numbering on.
  await journal.releaseThrough(23);
  assert.deepEqual(await segmentStarts(folder), [21]);
  await journal.close();

  const reopened = await FileJournal.open(folder, { segmentBytes: 24 + 5 * RECORD_BYTES });
  assert.equal(reopened.lastSeq, 23);
  assert.equal(await reopened.append(payloadFor(24, 100)), 24);
  assert.deepEqual(
    (await replayAll(reopened, 20)).map((r) => r.seq),
    [21, 22, 23, 24],
  );
  await reopened.close();
});

void test('a half-born segment (.tmp) left by a crash is removed at open', async (t) => {
  const folder = await tempFolder(t);
  const journal = await FileJournal.open(folder);
  await journal.append(payloadFor(1));
  await journal.close();
  const leftover = join(folder, 'journal-00000000000000000002.log.tmp');
  await writeFile(leftover, Buffer.alloc(10));
  const reopened = await FileJournal.open(folder);
  assert.deepEqual(await readdir(folder), ['journal-00000000000000000001.log']);
  assert.equal(await reopened.append(payloadFor(2)), 2);
  await reopened.close();
});
