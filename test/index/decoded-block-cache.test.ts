import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DecodedBlockCache, decodedBlocks } from '../../src/index/generation/decoded-block-cache.js';
import { GenerationReader } from '../../src/index/generation/generation-reader.js';
import { writeGeneration, type GenerationSource } from '../../src/index/generation/generation-writer.js';
import {
  StoredBlockWriter,
  writeStoredRecord,
  type StoredBlock,
} from '../../src/index/generation/stored-record-codec.js';
import { ByteWriter } from '../../src/index/store/byte-writer.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';

function block(bytes: number): { bytes: Uint8Array; starts: Int32Array; ends: Int32Array } {
  return { bytes: new Uint8Array(bytes), starts: new Int32Array(0), ends: new Int32Array(0) };
}

/** A generation of `docs` documents whose stored records span many blocks. */
function generationWithRecords(docs: number): MemoryDirectory {
  const blocks: StoredBlock[] = [];
  const writer = new StoredBlockWriter((b) => blocks.push({ firstDoc: b.firstDoc, bytes: b.bytes.slice() }));
  for (let doc = 0; doc < docs; doc++) {
    const out = new ByteWriter(256);
    writeStoredRecord(out, { $key: `doc-${doc}`, text: `text of document ${doc} `.repeat(200), n: doc });
    writer.add(out.view0().slice());
  }
  writer.finishBlock();
  const source: GenerationSource = {
    docCount: docs,
    fields: [],
    numbers: [],
    storedBlocks: () => blocks,
  };
  const dir = new MemoryDirectory();
  writeGeneration(dir, 1, source);
  return dir;
}

describe('DecodedBlockCache', () => {
  it('keeps the most recently used blocks within its bytes and evicts the least recently used', () => {
    const cache = new DecodedBlockCache(300);
    cache.set(1, 0, block(100));
    cache.set(1, 1, block(100));
    cache.set(2, 0, block(100));
    assert.ok(cache.get(1, 0) !== undefined); // now the most recently used
    cache.set(2, 1, block(100)); // evicts (1, 1), the least recently used
    assert.equal(cache.get(1, 1), undefined);
    assert.ok(cache.get(1, 0) !== undefined);
    assert.ok(cache.get(2, 0) !== undefined);
    assert.ok(cache.get(2, 1) !== undefined);
    assert.equal(cache.bytes, 300);
    cache.set(3, 0, block(1000)); // larger than the whole cache: not kept, nothing evicted
    assert.equal(cache.get(3, 0), undefined);
    assert.equal(cache.bytes, 300);
    cache.forget(2);
    assert.equal(cache.get(2, 0), undefined);
    assert.equal(cache.get(2, 1), undefined);
    assert.ok(cache.get(1, 0) !== undefined);
    assert.equal(cache.bytes, 100);
  });

  it('serves the stored records of readers as written, in any order, and lets go of a closed reader', () => {
    const docs = 300;
    const dir = generationWithRecords(docs);
    const first = GenerationReader.open(dir, 1);
    const second = GenerationReader.open(dir, 1);
    const before = decodedBlocks.bytes;
    const order = Array.from({ length: docs }, (_, i) => (i * 97) % docs);
    for (const reader of [first, second, first]) {
      for (const doc of order) {
        const record = reader.stored(doc);
        assert.equal(record.$key, `doc-${doc}`);
        assert.equal(record.n, doc);
        assert.equal(record.text, `text of document ${doc} `.repeat(200));
      }
    }
    const held = decodedBlocks.bytes;
    assert.ok(held > before, 'the readers decoded blocks into the thread cache');
    first.close();
    const afterFirst = decodedBlocks.bytes;
    assert.ok(afterFirst < held && afterFirst > before);
    assert.equal(second.stored(5).$key, 'doc-5');
    second.close();
    assert.equal(decodedBlocks.bytes, before);
  });
});
