import assert from 'node:assert/strict';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import { FileJournal } from '../../src/journal/file-journal.js';
import { JournalCorruptError } from '../../src/journal/journal-corrupt-error.js';
import { SearchError } from '../../src/errors.js';
import { payloadFor, replayAll, tempFolder } from './helpers.js';

const HEADER = 24;
const FRAMING = 16;
const PAYLOAD = 100;

async function flipBit(path: string, offset: number): Promise<void> {
  const bytes = await readFile(path);
  bytes[offset] ^= 0x10;
  await writeFile(path, bytes);
}

async function segmentPaths(folder: string): Promise<string[]> {
  return (await readdir(folder)).sort().map((name) => join(folder, name));
}

function isCorruptAt(file: string, offset: number) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof JournalCorruptError, `expected JournalCorruptError, got ${String(error)}`);
    assert.equal(error.code, 'JOURNAL_CORRUPT');
    assert.equal(error.file, file);
    assert.equal(error.offset, offset);
    assert.ok(error.message.includes(file) && error.message.includes(String(offset)), error.message);
    return true;
  };
}

async function journalOf(folder: string, records: number, segmentBytes?: number): Promise<void> {
  const journal = await FileJournal.open(folder, { segmentBytes });
  for (let i = 1; i <= records; i++) await journal.append(payloadFor(i, PAYLOAD));
  await journal.close();
}

void test('a flipped bit in the middle of the newest segment is JOURNAL_CORRUPT naming file and offset', async (t) => {
  // Payload byte, length field, seq field and crc field of record 5 of 10.
  const recordStart = HEADER + 4 * (FRAMING + PAYLOAD);
  for (const at of [recordStart + FRAMING + 30, recordStart + 1, recordStart + 6, recordStart + 13]) {
    const folder = await tempFolder(t);
    await journalOf(folder, 10);
    const [segment] = await segmentPaths(folder);
    await flipBit(segment, at);
    await assert.rejects(FileJournal.open(folder), isCorruptAt(segment, recordStart), `flip at ${at}`);
  }
});

void test('a flipped bit in an older segment is JOURNAL_CORRUPT when replay reaches it', async (t) => {
  const folder = await tempFolder(t);
  await journalOf(folder, 40, 600);
  const segments = await segmentPaths(folder);
  assert.ok(segments.length >= 3, `expected several segments, got ${segments.length}`);
  const secondRecord = HEADER + FRAMING + PAYLOAD;
  await flipBit(segments[0], secondRecord + FRAMING + 7);

  const journal = await FileJournal.open(folder);
  assert.equal(journal.lastSeq, 40);
  await assert.rejects(replayAll(journal), isCorruptAt(segments[0], secondRecord));
  // Replays that start after the damaged segment are unaffected.
  const fromSecond = Number(/journal-(\d{20})\.log$/.exec(segments[1])![1]);
  assert.equal((await replayAll(journal, fromSecond - 1)).length, 40 - fromSecond + 1);
  await journal.close();
});

void test('a bad segment header is JOURNAL_CORRUPT at open; a newer format version is JOURNAL_UNSUPPORTED_VERSION', async (t) => {
  const folder = await tempFolder(t);
  await journalOf(folder, 20, 600);
  const segments = await segmentPaths(folder);
  await flipBit(segments[0], 2);
  await assert.rejects(FileJournal.open(folder), isCorruptAt(segments[0], 0));

  const other = await tempFolder(t);
  await journalOf(other, 3);
  const [segment] = await segmentPaths(other);
  const bytes = await readFile(segment);
  bytes.writeUInt32LE(2, 8);
  bytes.writeUInt32LE(crc32(bytes.subarray(0, 20)), 20);
  await writeFile(segment, bytes);
  await assert.rejects(FileJournal.open(other), (error: unknown) => {
    assert.ok(error instanceof SearchError);
    assert.equal(error.code, 'JOURNAL_UNSUPPORTED_VERSION');
    return true;
  });
});

void test('a missing segment in the middle is JOURNAL_CORRUPT for replays that need it', async (t) => {
  const folder = await tempFolder(t);
  await journalOf(folder, 40, 600);
  const segments = await segmentPaths(folder);
  assert.ok(segments.length >= 4);
  await rm(segments[1]);
  const journal = await FileJournal.open(folder);
  await assert.rejects(replayAll(journal), isCorruptAt(segments[2], 0));
  await journal.close();
});
