import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { utf8Bytes } from '../../src/search/packet-json.js';

describe('utf8Bytes', () => {
  const encoder = new TextEncoder();

  it('encodes as TextEncoder does: every kind of character, lone surrogates, small and large texts', () => {
    const texts = [
      '',
      'plain ascii',
      '{"summary":"… déjà vu « » \\u2028"}',
      'emoji 😀 and 𝄞',
      '\uD800',
      'a\uDC00b\uD83D',
      'x'.repeat(64 * 1024),
      '€'.repeat(64 * 1024), // three bytes for each unit: the largest the scratch takes
      '€'.repeat(64 * 1024 + 1), // one more: encoded without it
      '😀'.repeat(40_000),
    ];
    for (const text of texts) assert.deepEqual(utf8Bytes(text), encoder.encode(text), text.slice(0, 40));
  });

  it('gives each text bytes of its own, which later texts do not change and a thread can transfer', () => {
    const first = utf8Bytes('first packet');
    const long = utf8Bytes('a longer second packet, written where the first one was encoded');
    const second = utf8Bytes('second');
    assert.equal(new TextDecoder().decode(first), 'first packet');
    assert.equal(new TextDecoder().decode(second), 'second');
    for (const bytes of [first, long, second]) {
      assert.equal(bytes.byteOffset, 0);
      assert.equal(bytes.buffer.byteLength, bytes.length);
    }
  });
});
