import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { GenerationReader } from '../../src/index/generation/generation-reader.js';
import { writeGeneration, type PostingsData } from '../../src/index/generation/generation-writer.js';
import { TermFilter, termHash } from '../../src/index/generation/term-filter.js';
import { TermProbes } from '../../src/index/generation/term-probes.js';
import { FsDirectory } from '../../src/index/store/fs-directory.js';

/**
 * The body's term filter ("did you mean" turns away edits that are no term before reading the
 * dictionary): never turns a term of the dictionary away, turns most others away, and is built
 * once by the thread that opens a generation to share, the others reading its memory.
 */

const encoder = new TextEncoder();
const hashOf = (term: string) => {
  const bytes = encoder.encode(term);
  return termHash(bytes, 0, bytes.length);
};

describe('term filter', () => {
  it('lets every term added through and turns about 99% of the others away', () => {
    const added = Array.from(
      { length: 20000 },
      (_, i) => `w${i.toString(36)}${['', 'é', '中', '😀'][i % 4]}`,
    );
    const filter = TermFilter.sized(added.length, false);
    for (const term of added) filter.add(hashOf(term));
    for (const term of added) assert.ok(filter.mayContain(hashOf(term)), term);
    const others = Array.from({ length: 20000 }, (_, i) => `x${i.toString(36)}`);
    const passed = others.filter((term) => filter.mayContain(hashOf(term))).length;
    assert.ok(passed < others.length * 0.02, `${passed} of ${others.length} absent terms passed`);
  });

  it('is sized in powers of two, at least ten bits a term, and shared when asked', () => {
    const filter = TermFilter.sized(1000, true);
    assert.ok(filter.words.buffer instanceof SharedArrayBuffer);
    const bits = filter.words.length * 32;
    assert.equal(bits & (bits - 1), 0);
    assert.ok(bits >= 10_000 && bits < 20_000, `${bits} bits`);
    assert.ok(TermFilter.sized(0, false).words.buffer instanceof ArrayBuffer);
    // An empty filter turns everything away.
    assert.equal(TermFilter.sized(0, false).mayContain(hashOf('anything')), false);
  });

  it('is built by the opener of a shared generation and read from the same memory by other readers', () => {
    const folder = mkdtempSync(join(tmpdir(), 'pushsearch-term-filter-'));
    try {
      const terms = Array.from({ length: 3000 }, (_, i) => `t${i.toString(36)}`).sort();
      writeGeneration(new FsDirectory(folder), 1, {
        docCount: 1,
        fields: [
          {
            name: 'body',
            positions: false,
            lengths: null,
            sumLength: 0,
            docCount: 1,
            terms: () =>
              terms.map((term): [string, PostingsData] => [
                term,
                { count: 1, docs: [0], freqs: [1], positions: null },
              ]),
          },
        ],
        numbers: [],
        storedBlocks: () => [],
      });
      const opener = GenerationReader.open(new FsDirectory(folder), 1, { share: true });
      const shared = opener.shared!;
      assert.ok(shared.termFilter.buffer instanceof SharedArrayBuffer);
      const other = GenerationReader.openShared(shared);
      const asked = [...terms.filter((_, i) => i % 3 === 0), ...terms.map((term) => term + '!')];
      const probes = new TermProbes(asked);
      for (const reader of [opener, other]) {
        const found = new Int32Array(probes.terms.length);
        reader.probeDocFreqs('body', probes, found);
        assert.deepEqual(
          asked.map((_, i) => found[probes.slotOf[i]!]),
          asked.map((term) => (term.endsWith('!') ? 0 : 1)),
        );
      }
      // The other reader reads the opener's filter, not a copy of its own: with its bits
      // cleared, every term is turned away.
      shared.termFilter.fill(0);
      const none = new Int32Array(probes.terms.length);
      other.probeDocFreqs('body', probes, none);
      assert.deepEqual(
        [...none],
        probes.terms.map(() => 0),
      );
      other.close();
      opener.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
