import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { brotliCompressSync } from 'node:zlib';
import {
  RFC_CORPUS_ENV,
  type RfcPage,
  corpusAvailable,
  corpusPath,
  loadRfcCorpusIntoMemory,
  readRfcCorpus,
  readRfcCorpusBatches,
  repositoryRoot,
} from '../../bench/lib/rfc-corpus.js';

const scratch = mkdtempSync(join(tmpdir(), 'bench-corpus-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Pages big enough that the decompressed file spans several worker pieces (1 MiB each), so
 * lines cross piece boundaries, with non-ASCII text (multi-byte UTF-8 split across pieces) and
 * escaped newlines inside strings.
 */
function makePages(count: number): RfcPage[] {
  return Array.from({ length: count }, (_, i) => ({
    key: `https://rfc.example.org/rfc${i}/page-1`,
    rfc: i,
    page: 1,
    title: `RFC ${i}: Tést ${'é'.repeat(i % 7)}`,
    text: `line one of ${i}\nNetwork Working Group — Ünïcode 日本語 ${'x'.repeat(2000 + (i % 913))}\n\f`,
  }));
}

function writeCorpus(name: string, lines: string[]): string {
  const path = join(scratch, name);
  writeFileSync(path, brotliCompressSync(Buffer.from(lines.join('\n'))));
  return path;
}

const pages = makePages(1500);
// Ends without a final newline and has an empty line in the middle: both must be tolerated.
const lines = pages.map((p) => JSON.stringify(p));
lines.splice(700, 0, '');
const corpus = writeCorpus('corpus.jsonl.br', lines);

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

void describe('readRfcCorpus', () => {
  void it('yields every page of the file in order, whatever the piece boundaries', async () => {
    const read = await collect(readRfcCorpus({ path: corpus }));
    assert.equal(read.length, pages.length);
    assert.deepEqual(read, pages);
  });

  void it('stops after `limit` pages', async () => {
    assert.deepEqual(await collect(readRfcCorpus({ path: corpus, limit: 3 })), pages.slice(0, 3));
    assert.deepEqual(await collect(readRfcCorpus({ path: corpus, limit: 1234 })), pages.slice(0, 1234));
    assert.equal((await collect(readRfcCorpus({ path: corpus, limit: 10 ** 9 }))).length, pages.length);
    assert.deepEqual(await collect(readRfcCorpus({ path: corpus, limit: 0 })), []);
  });

  void it('can be abandoned early and read again', async () => {
    for await (const page of readRfcCorpus({ path: corpus })) {
      assert.equal(page.rfc, 0);
      break;
    }
    assert.equal((await collect(readRfcCorpus({ path: corpus }))).length, pages.length);
  });

  void it('batches hold the same pages, none empty', async () => {
    const batches = await collect(readRfcCorpusBatches({ path: corpus }));
    assert.ok(batches.length > 1, 'the test file should span several pieces');
    assert.ok(batches.every((b) => b.length > 0));
    assert.deepEqual(batches.flat(), pages);
  });

  void it('loadRfcCorpusIntoMemory returns the pages as one array', async () => {
    assert.deepEqual(await loadRfcCorpusIntoMemory(undefined, corpus), pages);
    assert.deepEqual(await loadRfcCorpusIntoMemory(20, corpus), pages.slice(0, 20));
  });

  void it('rejects a line that is not JSON, naming the file and the line', async () => {
    const bad = writeCorpus('bad.jsonl.br', [
      JSON.stringify(pages[0]),
      '{"key": broken',
      JSON.stringify(pages[1]),
    ]);
    await assert.rejects(collect(readRfcCorpus({ path: bad })), (err: Error) => {
      assert.match(err.message, /bad\.jsonl\.br: line 2 is not valid JSON/);
      return true;
    });
  });

  void it('rejects a file that is not brotli', async () => {
    const notBrotli = join(scratch, 'plain.jsonl.br');
    writeFileSync(notBrotli, lines.join('\n'));
    await assert.rejects(collect(readRfcCorpus({ path: notBrotli })), /reading .*plain\.jsonl\.br failed/);
  });

  void it('rejects a missing file with a message that says where to put it', async () => {
    const missing = join(scratch, 'nowhere.jsonl.br');
    await assert.rejects(collect(readRfcCorpus({ path: missing })), (err: Error) => {
      assert.ok(err.message.includes(missing));
      assert.ok(err.message.includes(RFC_CORPUS_ENV));
      return true;
    });
  });
});

void describe('corpusPath and corpusAvailable', () => {
  void it('default to ../shared/data/corpus beside the repository', () => {
    const saved = process.env[RFC_CORPUS_ENV];
    delete process.env[RFC_CORPUS_ENV];
    try {
      assert.equal(corpusPath(), resolve(repositoryRoot(), '../shared/data/corpus/rfc-pages.jsonl.br'));
    } finally {
      if (saved !== undefined) process.env[RFC_CORPUS_ENV] = saved;
    }
  });

  void it('follow the environment variable when it is set', () => {
    const saved = process.env[RFC_CORPUS_ENV];
    try {
      process.env[RFC_CORPUS_ENV] = corpus;
      assert.equal(corpusPath(), corpus);
      assert.equal(corpusAvailable(), true);
      process.env[RFC_CORPUS_ENV] = join(scratch, 'missing.jsonl.br');
      assert.equal(corpusAvailable(), false);
    } finally {
      if (saved === undefined) delete process.env[RFC_CORPUS_ENV];
      else process.env[RFC_CORPUS_ENV] = saved;
    }
  });
});
