import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DocumentInput } from '../../src/index/document.js';
import { receivedPut, stagedPut } from '../../src/index/staging/staged-op.js';

const text = 'congestion control '.repeat(40);
const other = 'retransmission timer '.repeat(40);

function roundTrip(doc: DocumentInput): DocumentInput {
  const op = structuredClone(stagedPut(doc));
  assert.ok('p' in op);
  return receivedPut(op);
}

describe('staged puts sent to indexing workers', () => {
  it('send a stored text that is also a field value once, and restore it', () => {
    const doc: DocumentInput = {
      key: 'k',
      fields: { t: 'Title', body: [other, text], $facet: ['a'] },
      numbers: { n: 1 },
      stored: { title: 'Title', text, copy: other, bytes: new Uint8Array([1, 2]), alone: 'x'.repeat(300) },
    };
    const op = stagedPut(doc);
    assert.ok('p' in op);
    assert.equal(op.p.stored!.text, '');
    assert.equal(op.p.stored!.copy, '');
    assert.equal(op.p.stored!.alone, 'x'.repeat(300), 'a value no field holds is sent as is');
    assert.equal(doc.stored!.text, text, 'the caller’s document is not changed');
    const received = roundTrip(doc);
    assert.deepEqual(received, doc);
    assert.deepEqual(
      Object.keys(received.stored!),
      Object.keys(doc.stored!),
      'stored names keep their order',
    );
  });

  it('restore a single-valued field match and leave documents without matches as they are', () => {
    const single: DocumentInput = { key: 'a', fields: { body: text }, stored: { text } };
    assert.deepEqual(roundTrip(single), single);
    const none: DocumentInput = { key: 'b', fields: { body: 'short' }, stored: { text: 'short', other } };
    const op = stagedPut(none);
    assert.ok('p' in op && op.s === undefined);
    assert.deepEqual(roundTrip(none), none);
    const noStored: DocumentInput = { key: 'c', fields: { body: text } };
    assert.deepEqual(roundTrip(noStored), noStored);
  });
});
