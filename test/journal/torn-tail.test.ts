import assert from 'node:assert/strict';
import { appendFile, cp, readdir, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileJournal } from '../../src/journal/file-journal.js';
import { payloadFor, replayAll, tempFolder } from './helpers.js';

const RECORDS = 5;
const LAST_PAYLOAD_BYTES = 120;

/** A closed journal of RECORDS records, each appended alone; returns the segment path and where the last record starts. */
async function writeJournal(
  folder: string,
): Promise<{ segment: string; lastRecordStart: number; size: number }> {
  const journal = await FileJournal.open(folder);
  for (let i = 1; i < RECORDS; i++) await journal.append(payloadFor(i, 50));
  await journal.close();
  const [name] = await readdir(folder);
  const segment = join(folder, name);
  const lastRecordStart = (await stat(segment)).size;
  const again = await FileJournal.open(folder);
  await again.append(payloadFor(RECORDS, LAST_PAYLOAD_BYTES));
  await again.close();
  return { segment, lastRecordStart, size: (await stat(segment)).size };
}

void test('a tail cut at every byte of the last record reopens to exactly the earlier records', async (t) => {
  const source = await tempFolder(t);
  const { segment, lastRecordStart, size } = await writeJournal(source);
  assert.equal(size - lastRecordStart, 16 + LAST_PAYLOAD_BYTES);
  const work = await tempFolder(t);

  for (let cut = lastRecordStart; cut < size; cut++) {
    const folder = join(work, `cut-${cut}`);
    await cp(source, folder, { recursive: true });
    const copy = join(folder, segment.slice(source.length + 1));
    await truncate(copy, cut);

    const journal = await FileJournal.open(folder);
    assert.equal(journal.lastSeq, RECORDS - 1, `cut at ${cut}`);
    const records = await replayAll(journal);
    assert.deepEqual(
      records.map((r) => r.seq),
      [1, 2, 3, 4],
      `cut at ${cut}`,
    );
    for (const record of records) assert.deepEqual(record.payload, payloadFor(record.seq, 50));
    assert.equal((await stat(copy)).size, lastRecordStart, `torn bytes removed for cut at ${cut}`);
    // The journal continues where the durable records end: the lost record's number is reused.
    assert.equal(await journal.append(payloadFor(77)), RECORDS);
    await journal.close();

    const reopened = await FileJournal.open(folder);
    const after = await replayAll(reopened, RECORDS - 1);
    assert.deepEqual(after, [{ seq: RECORDS, payload: payloadFor(77) }], `cut at ${cut}`);
    await reopened.close();
  }
});

void test('junk after the last record (zeros or random bytes of an unsynced write) is truncated away', async (t) => {
  for (const junk of [
    Buffer.alloc(4096),
    Buffer.from(Array.from({ length: 333 }, (_, i) => (i * 97 + 13) % 256)),
  ]) {
    const folder = await tempFolder(t);
    const { segment, size } = await writeJournal(folder);
    await appendFile(segment, junk);
    const journal = await FileJournal.open(folder);
    assert.equal(journal.lastSeq, RECORDS);
    assert.equal((await replayAll(journal)).length, RECORDS);
    assert.equal((await stat(segment)).size, size);
    await journal.close();
  }
});
