import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import type { DocumentInput, StoredRecord } from '../../src/index/document.js';
import { SpellingTable } from '../../src/index/analysis/spelling-table.js';
import { bufferSource, invertBuffer, invertedSource } from '../../src/index/generation/buffer-source.js';
import type { SourceField } from '../../src/index/generation/generation-writer.js';
import {
  GenerationBuffer,
  VALUE_POSITION_GAP,
  type GenerationBufferOptions,
} from '../../src/index/generation/generation-buffer.js';
import {
  decompressStoredBlock,
  readStoredRecord,
  recordsOfBlocks,
  StoredBlockWriter,
  writeStoredRecord,
  type StoredBlock,
} from '../../src/index/generation/stored-record-codec.js';
import { STORED_FORMAT_VERSION } from '../../src/index/generation/generation-files.js';
import { Schema, type SchemaOptions } from '../../src/index/schema.js';
import { ByteReader } from '../../src/index/store/byte-reader.js';
import { ByteWriter } from '../../src/index/store/byte-writer.js';

/**
 * The indexing buffer against a naive inversion built from `Analyzer.forEachTerm`: the buffer
 * maps tokens to terms through spelling tables and sorts its postings at flush, and whatever
 * path a token takes, the postings must be exactly those of the naive inversion.
 */

// Spellings that share terms (case, diacritics, apostrophes), numbers, long tokens, scripts
// cut by the segmenter, stop words: every path of the analyzer.
const TEXTS = [
  'The Protocol protocol PROTOCOL protocols, the end.',
  "don't DON'T dont O’Reilly IETF's ietf",
  'Café CAFÉ cafe\u0301 café naïve NAIVE Straße STRASSE strasse',
  'HTTP/1.1 http 1.1 RFC2616 rfc2616 3.14 v1.2 192.0.2.1',
  '東京都に住んでいます 東京 ภาษาไทย Thai123 thai123',
  'emoji 😀 a\u200db soft\u00adhyphen ab softhyphen',
  `${'x'.repeat(70)} ${'y'.repeat(200)} ${'X'.repeat(70)} short`,
  // A spelling too long for the spelling table whose term is also the term of short spellings.
  `a${'\u0301'.repeat(70)} a A á${'\u0301'.repeat(80)}`,
  'to be or not to be, that is the question',
  '',
];

type Postings = Map<string, { docs: number[]; freqs: number[]; positions: number[] | null }>;

function naiveField(schema: Schema, docs: DocumentInput[], name: string): Postings {
  const analyzer = schema.analyzerFor(name);
  const byTerm = new Map<string, [number, number][]>();
  const add = (term: string, docId: number, at: number) => {
    const list = byTerm.get(term);
    if (list === undefined) byTerm.set(term, [[docId, at]]);
    else list.push([docId, at]);
  };
  docs.forEach((doc, docId) => {
    const value = doc.fields[name];
    if (value === undefined) return;
    const values = typeof value === 'string' ? [value] : value;
    if (name.startsWith('$')) {
      for (const term of values) add(term, docId, 0);
      return;
    }
    let position = 0;
    for (const text of values) {
      position =
        analyzer.forEachTerm(text, position, (term, at) => add(term, docId, at)) + VALUE_POSITION_GAP;
    }
  });
  const out: Postings = new Map();
  for (const term of [...byTerm.keys()].sort()) {
    const docsOut: number[] = [];
    const freqs: number[] = [];
    for (const [docId] of byTerm.get(term)!) {
      if (docsOut.at(-1) === docId) freqs[freqs.length - 1]!++;
      else {
        docsOut.push(docId);
        freqs.push(1);
      }
    }
    out.set(term, {
      docs: docsOut,
      freqs,
      positions: name.startsWith('$') ? null : byTerm.get(term)!.map(([, at]) => at),
    });
  }
  return out;
}

function bufferedFields(buffer: GenerationBuffer): Map<string, Postings> {
  const out = new Map<string, Postings>();
  for (const field of bufferSource(buffer).fields) {
    const postings: Postings = new Map();
    for (const [term, data] of field.terms()) {
      postings.set(term, {
        docs: Array.from(data.docs).slice(0, data.count),
        freqs: Array.from(data.freqs).slice(0, data.count),
        positions: data.positions === null ? null : Array.from(data.positions),
      });
    }
    out.set(field.name, postings);
  }
  return out;
}

/** Documents over TEXTS in varied combinations, multi-valued bodies and keyword values. */
function documents(count: number): DocumentInput[] {
  return Array.from({ length: count }, (_, i) => ({
    key: `https://example.test/${i}`,
    fields: {
      body:
        i % 3 === 0
          ? [TEXTS[i % TEXTS.length]!, TEXTS[(i * 7 + 1) % TEXTS.length]!]
          : TEXTS[(i * 5) % TEXTS.length]!,
      t: `Title ${i % 10} ${TEXTS[(i + 2) % TEXTS.length]!.slice(0, 20)}`,
      $facet: i % 4 === 0 ? [] : [`v${i % 5}`, 'Common'],
    },
  }));
}

function checkAgainstNaive(
  schemaOptions: SchemaOptions,
  docs: DocumentInput[],
  options?: GenerationBufferOptions,
): void {
  const schema = new Schema(schemaOptions);
  const buffer = new GenerationBuffer(schema, options);
  for (const doc of docs) buffer.put(doc);
  const fields = bufferedFields(buffer);
  for (const name of ['body', 't', '$facet']) {
    const expected = naiveField(schema, docs, name);
    const actual = fields.get(name)!;
    assert.deepEqual([...actual.keys()], [...expected.keys()], `terms of ${name}`);
    for (const [term, postings] of expected)
      assert.deepEqual(actual.get(term), postings, `postings of ${name}:${term}`);
  }
  // Field lengths count the kept tokens of each document.
  const source = bufferSource(buffer);
  const body = source.fields.find((f) => f.name === 'body')!;
  const analyzer = schema.analyzerFor('body');
  docs.forEach((doc, docId) => {
    const values = typeof doc.fields.body === 'string' ? [doc.fields.body] : doc.fields.body!;
    let kept = 0;
    for (const text of values) analyzer.forEachTerm(text, 0, () => kept++);
    assert.equal(body.lengths![docId], kept, `length of doc ${docId}`);
  });
}

describe('GenerationBuffer', () => {
  const configurations: [string, SchemaOptions][] = [
    ['default analyzer (stemming)', {}],
    ['no stemming', { defaultAnalyzer: { stem: false } }],
    ['stop words, stemming', { defaultAnalyzer: { stem: true, stopWords: true } }],
    [
      'no folding, short tokens',
      { defaultAnalyzer: { stem: false, caseFold: false, foldDiacritics: false, maxTokenLength: 6 } },
    ],
  ];
  for (const [name, options] of configurations) {
    it(`inverts like forEachTerm with ${name}`, () => checkAgainstNaive(options, documents(60)));
  }

  it('inverts like forEachTerm when the spelling table is full (tokens take the slow path)', () => {
    // A table of 3 spellings: most tokens miss it, and one term is reached both through a
    // known spelling and through unknown ones.
    const docs = documents(40);
    checkAgainstNaive({ defaultAnalyzer: { stem: false } }, docs, {
      spellings: (analyzer) => new SpellingTable(analyzer, 3),
    });
    checkAgainstNaive({}, docs, { spellings: (analyzer) => new SpellingTable(analyzer, 0) });
  });

  it('keeps postings in order across many chunks of the token stream', () => {
    const words = Array.from({ length: 400 }, (_, i) => `w${i % 97} W${i % 13} x${i}`).join(' ');
    const docs: DocumentInput[] = Array.from({ length: 300 }, (_, i) => ({
      key: `k${i}`,
      fields: { body: `${words} doc${i}` },
    }));
    const schema = new Schema({ defaultAnalyzer: { stem: false } });
    const buffer = new GenerationBuffer(schema);
    for (const doc of docs) buffer.put(doc);
    assert.ok(buffer.fields.get('body')!.chunks.length > 2, 'the stream spans several chunks');
    const actual = bufferedFields(buffer).get('body')!;
    const expected = naiveField(schema, docs, 'body');
    assert.deepEqual([...actual.keys()], [...expected.keys()]);
    for (const [term, postings] of expected) assert.deepEqual(actual.get(term), postings, term);
  });

  it('keeps large term ids and large position gaps exact', () => {
    // 20,000 distinct words need 3-byte term ids; 300 stop words in a row leave a gap of 300 positions.
    const many = Array.from({ length: 20_000 }, (_, i) => `t${i}`).join(' ');
    const gap = `${'the '.repeat(300)}after`;
    const docs: DocumentInput[] = [
      { key: 'a', fields: { body: [many, gap, 'end'] } },
      { key: 'b', fields: { body: `start ${gap} ${many}` } },
    ];
    const options: SchemaOptions = { defaultAnalyzer: { stem: false, stopWords: true } };
    const schema = new Schema(options);
    const buffer = new GenerationBuffer(schema);
    for (const doc of docs) buffer.put(doc);
    const actual = bufferedFields(buffer).get('body')!;
    const expected = naiveField(schema, docs, 'body');
    assert.deepEqual(actual.get('after'), {
      docs: [0, 1],
      freqs: [1, 1],
      positions: [20_000 + VALUE_POSITION_GAP + 300, 301],
    });
    assert.deepEqual([...actual.keys()], [...expected.keys()]);
    for (const [term, postings] of expected) assert.deepEqual(actual.get(term), postings, term);
  });

  it('writes several buffers as one source, documents one after the other, like one buffer holding them all', () => {
    const schema = new Schema({ defaultAnalyzer: { stem: false } });
    const docs: DocumentInput[] = documents(50).map(
      (doc, i) => ({ ...doc, numbers: i % 2 === 0 ? { n: i } : { m: -i }, stored: { i } }) as DocumentInput,
    );
    const whole = new GenerationBuffer(schema);
    for (const doc of docs) whole.put(doc);
    const parts = [docs.slice(0, 20), docs.slice(20, 21), docs.slice(21)].map((slice) => {
      const buffer = new GenerationBuffer(schema);
      for (const doc of slice) buffer.put(doc);
      return invertBuffer(buffer);
    });
    const expected = bufferSource(whole);
    const actual = invertedSource(parts);
    assert.equal(actual.docCount, expected.docCount);
    assert.deepEqual(actual.numbers, expected.numbers);
    assert.deepEqual(
      [...recordsOfBlocks(actual.storedBlocks())].map((r) => Buffer.from(r)),
      [...recordsOfBlocks(expected.storedBlocks())].map((r) => Buffer.from(r)),
    );
    assert.deepEqual(
      actual.fields.map((f) => [
        f.name,
        f.positions,
        f.lengths === null ? null : [...f.lengths],
        f.sumLength,
        f.docCount,
      ]),
      expected.fields.map((f) => [
        f.name,
        f.positions,
        f.lengths === null ? null : [...f.lengths],
        f.sumLength,
        f.docCount,
      ]),
    );
    // Copied while iterating: a source reuses its arrays from one term to the next.
    const postings = (field: SourceField) => {
      const out: unknown[] = [];
      for (const [term, data] of field.terms()) {
        out.push([
          term,
          Array.from(data.docs).slice(0, data.count),
          Array.from(data.freqs).slice(0, data.count),
          data.positions === null ? null : Array.from(data.positions),
        ]);
      }
      return out;
    };
    actual.fields.forEach((field, i) =>
      assert.deepEqual(postings(field), postings(expected.fields[i]!), field.name),
    );
  });

  it('returns every stored record as written, small and large, in docId order', () => {
    const buffer = new GenerationBuffer(new Schema());
    const records: StoredRecord[] = [
      { title: 'a', n: 1 },
      { text: 'é'.repeat(700_000), list: ['x', 'y'] },
      { bytes: new Uint8Array([1, 2, 3]) },
      ...Array.from({ length: 500 }, (_, i) => ({ text: `record ${i} ${'z'.repeat(i * 10)}` })),
    ];
    records.forEach((stored, i) => buffer.put({ key: `k${i}`, fields: {}, stored }));
    const source = bufferSource(buffer);
    const out = [...recordsOfBlocks(source.storedBlocks())];
    assert.equal(out.length, records.length);
    // The blocks compressed as documents arrived are those the writer makes from the records.
    const expectedBlocks: StoredBlock[] = [];
    const writer = new StoredBlockWriter((block) =>
      expectedBlocks.push({ firstDoc: block.firstDoc, bytes: block.bytes.slice() }),
    );
    for (const record of out) writer.add(record);
    writer.finishBlock();
    assert.deepEqual(
      [...source.storedBlocks()].map((b) => ({ firstDoc: b.firstDoc, bytes: Buffer.from(b.bytes) })),
      expectedBlocks.map((b) => ({ firstDoc: b.firstDoc, bytes: Buffer.from(b.bytes) })),
    );
    out.forEach((bytes, i) => {
      const expected = new ByteWriter();
      writeStoredRecord(expected, { ...records[i], $key: `k${i}` });
      assert.deepEqual(Buffer.from(bytes), Buffer.from(expected.view0()), `record ${i}`);
      const plain = (record: StoredRecord) =>
        Object.entries(record).map(([name, value]) => [
          name,
          value instanceof Uint8Array ? [...value] : value,
        ]);
      assert.deepEqual(
        plain(readStoredRecord(new ByteReader(bytes))),
        plain({ ...records[i], $key: `k${i}` }),
      );
    });
  });

  it('decompresses blocks of the current .fdt format and of format 1 (raw deflate, written by earlier versions)', () => {
    const plainBlock = new ByteWriter();
    for (let i = 0; i < 300; i++) {
      const record = new ByteWriter();
      writeStoredRecord(record, {
        $key: `k${i}`,
        text: `page ${i} of the request for comments ${'é'.repeat(i % 7)}`,
      });
      plainBlock.writeVInt(record.length);
      plainBlock.writeBytes(record.view0());
    }
    const expected = Buffer.from(plainBlock.view0());
    const blocks: StoredBlock[] = [];
    const writer = new StoredBlockWriter((block) =>
      blocks.push({ firstDoc: block.firstDoc, bytes: block.bytes.slice() }),
    );
    for (let i = 0; i < 300; i++) {
      const record = new ByteWriter();
      writeStoredRecord(record, {
        $key: `k${i}`,
        text: `page ${i} of the request for comments ${'é'.repeat(i % 7)}`,
      });
      writer.add(record.view0());
    }
    writer.finishBlock();
    const current = Buffer.concat(
      blocks.map((block) => decompressStoredBlock(block.bytes, STORED_FORMAT_VERSION)),
    );
    assert.deepEqual(current, expected);
    assert.ok(
      blocks.reduce((n, block) => n + block.bytes.length, 0) < expected.length / 2,
      'text compresses',
    );
    assert.deepEqual(decompressStoredBlock(deflateRawSync(expected, { level: 1 }), 1), expected);
  });

  it('kills superseded documents of a key and reports the live one', () => {
    const buffer = new GenerationBuffer(new Schema());
    buffer.put({ key: 'a', fields: { body: 'one' } });
    buffer.put({ key: 'b', fields: { body: 'two' } });
    buffer.put({ key: 'a', fields: { body: 'three' } });
    buffer.delete('b');
    assert.deepEqual([...buffer.killed].sort(), [0, 1]);
    assert.equal(buffer.liveDoc('a'), 2);
    assert.equal(buffer.liveDoc('b'), undefined);
    assert.deepEqual([...buffer.changedKeys].sort(), ['a', 'b']);
  });
});

describe('ByteWriter.writeString', () => {
  it('writes length-prefixed UTF-8 that ByteReader reads back, at every length boundary', () => {
    const samples: string[] = ['', 'a', 'é', '😀', 'a😀é\u0000'];
    for (const length of [63, 64, 65, 127, 128, 129, 16383, 16384, 16385]) {
      samples.push('a'.repeat(length), 'é'.repeat(length), '€'.repeat(length), `${'a'.repeat(length - 1)}😀`);
    }
    // 43 three-byte characters are 129 bytes: the prefix needs 2 bytes though 43 needs 1.
    samples.push('€'.repeat(43), '€'.repeat(5462));
    const writer = new ByteWriter(16);
    writer.writeByte(7);
    for (const sample of samples) writer.writeString(sample);
    const reader = new ByteReader(writer.toBytes());
    assert.equal(reader.readByte(), 7);
    for (const sample of samples) assert.equal(reader.readString(), sample);
    assert.equal(reader.remaining, 0);
    // Byte for byte the encoding of TextEncoder behind a VInt length.
    const one = new ByteWriter(4);
    one.writeString('€'.repeat(43));
    const encoded = new TextEncoder().encode('€'.repeat(43));
    assert.deepEqual(one.toBytes(), Uint8Array.from([129, 1, ...encoded]));
  });
});

describe('invertBuffer on a broken buffer', () => {
  it('fails with the field named when its token stream holds more entries than its count, instead of looping for ever', () => {
    const buffer = new GenerationBuffer(new Schema({}));
    buffer.put({ key: 'k:1', fields: { body: 'alpha beta gamma' } });
    buffer.put({ key: 'k:2', fields: { body: 'delta epsilon' } });
    // The count is what the inversion trusts; two tokens fewer than the stream holds.
    buffer.fields.get('body')!.count -= 2;
    assert.throws(() => invertBuffer(buffer), /field body: the token stream holds more than its 3 tokens/);
  });
});
