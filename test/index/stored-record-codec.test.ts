import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredRecord } from '../../src/index/document.js';
import { readStoredRecord, writeStoredRecord } from '../../src/index/generation/stored-record-codec.js';
import { ByteReader } from '../../src/index/store/byte-reader.js';
import { ByteWriter } from '../../src/index/store/byte-writer.js';
import { seededRandom } from '../support/seeded-random.js';

/** A record with a value of every kind a record holds: short and long, ASCII and not. */
const RECORD: StoredRecord = {
  content: new Uint8Array([0, 1, 2, 255, 128]),
  title: 'Short title',
  empty: '',
  text: 'Long text. '.repeat(20),
  accents: 'Café',
  longAccents: 'Straße und Café '.repeat(5),
  tags: ['one', 'twée', '', 'x'.repeat(40)],
  none: [],
  fileSize: 12345.5,
  $key: 'https://example.org/a/page',
};

function encoded(record: StoredRecord): Uint8Array {
  const out = new ByteWriter();
  writeStoredRecord(out, record);
  // Bytes after the record: reading must stop at its end.
  out.writeByte(7);
  return out.view0().slice();
}

/** Values compared by content (a Uint8Array as its bytes). */
function plain(record: StoredRecord): [string, unknown][] {
  return Object.entries(record).map(([name, value]) => [
    name,
    value instanceof Uint8Array ? [...value] : value,
  ]);
}

describe('readStoredRecord', () => {
  it('reads back every kind of value as written, and stops at the record’s end', () => {
    const input = new ByteReader(encoded(RECORD));
    assert.deepEqual(plain(readStoredRecord(input)), plain(RECORD));
    assert.equal(input.readByte(), 7);
  });

  it('reads only the fields asked for, skipping every kind of value in between', () => {
    const names = Object.keys(RECORD);
    // Every subset of the fields (2^10).
    for (let mask = 0; mask < 1 << names.length; mask++) {
      const fields = new Set(names.filter((_, i) => (mask & (1 << i)) !== 0));
      const input = new ByteReader(encoded(RECORD));
      const read = readStoredRecord(input, fields);
      assert.deepEqual(
        plain(read),
        plain(RECORD).filter(([name]) => fields.has(name)),
        [...fields].join(','),
      );
      assert.equal(input.readByte(), 7, [...fields].join(','));
    }
  });

  it('reads many different short strings right, however often they are read (the recent strings are only a cache)', () => {
    // More distinct short strings than the cache has slots, so that some share a slot.
    const records: StoredRecord[] = Array.from({ length: 3000 }, (_, i) => ({
      [`name${i % 1500}`]: `v${i}`,
      kind: i % 2 === 0 ? 'html' : 'pdf',
      [`n${i}`]: [`a${i}`, `b${i % 7}`],
    }));
    for (let round = 0; round < 2; round++) {
      for (const record of records) {
        assert.deepEqual(readStoredRecord(new ByteReader(encoded(record))), record);
      }
    }
  });

  it('reads only the start of the strings limited by maxChars, as slice would cut the whole string', () => {
    // ASCII, 2-, 3- and 4-byte characters (a pair of surrogates), a byte-order mark first
    // (the decoder drops it), each cut at every length around where its bytes run out.
    const pieces = ['ab', 'é', '€', '😀', '\uFEFF'];
    const random = seededRandom(7);
    const strings = ['', 'x', 'plain ascii text', '😀😀😀', '\uFEFF' + 'abc', '\uFEFF😀é€'];
    for (let i = 0; i < 200; i++) {
      let text = random() < 0.2 ? '\uFEFF' : '';
      const length = Math.floor(random() * 40);
      for (let j = 0; j < length; j++) text += pieces[Math.floor(random() * pieces.length)]!;
      strings.push(text);
    }
    for (const text of strings) {
      const whole = readStoredRecord(new ByteReader(encoded({ text, title: text, after: 'end' })));
      for (let limit = 0; limit <= (whole.text as string).length + 2; limit++) {
        const input = new ByteReader(encoded({ text, title: text, after: 'end' }));
        const read = readStoredRecord(input, undefined, new Map([['text', limit]]));
        const expected = (whole.text as string).slice(0, limit);
        assert.equal(read.text, expected, JSON.stringify({ text, limit }));
        // Only the field named is cut; the record is read on to its end.
        assert.equal(read.title, whole.title);
        assert.equal(read.after, 'end');
        assert.equal(input.readByte(), 7);
      }
    }
    // Long texts, as a search reads them (most of the bytes left undecoded).
    const long = 'Long text. '.repeat(5000);
    const accented = 'Straße und Café '.repeat(3000);
    for (const text of [long, accented, '😀'.repeat(20_000)]) {
      const read = readStoredRecord(
        new ByteReader(encoded({ text })),
        new Set(['text']),
        new Map([['text', 20_001]]),
      );
      assert.equal(read.text, text.slice(0, 20_001));
    }
  });

  it('fails on an unknown value tag, asked for or skipped', () => {
    const out = new ByteWriter();
    out.writeVInt(2);
    out.writeString('skipped');
    out.writeByte(9);
    out.writeString('wanted');
    out.writeByte(0);
    out.writeString('value');
    const bytes = out.view0().slice();
    assert.throws(() => readStoredRecord(new ByteReader(bytes)), /unknown stored value tag 9/);
    assert.throws(
      () => readStoredRecord(new ByteReader(bytes), new Set(['wanted'])),
      /unknown stored value tag 9/,
    );
  });

  it('fails on a record cut short, asked for or skipped', () => {
    const bytes = encoded(RECORD);
    for (const end of [1, 3, 10, 40, 200, bytes.length - 2]) {
      const cut = bytes.subarray(0, end);
      assert.throws(() => readStoredRecord(new ByteReader(cut)), RangeError, `cut at ${end}`);
      assert.throws(
        () => readStoredRecord(new ByteReader(cut), new Set(['$key'])),
        RangeError,
        `cut at ${end}, $key`,
      );
    }
  });
});
