/**
 * The first-search benchmark end to end on a few hundred pages of the RFC corpus (skipped when
 * the corpus is absent): it builds its collection, starts our server and a baseline (here the
 * same build) in turn, and prints each one's start, first search, longest /health meanwhile and
 * second search.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { corpusAvailable } from '../../bench/lib/rfc-corpus.js';
import { runBench } from '../support/run-bench.js';
import { MAIN } from '../support/server-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'bench-first-search-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const skip = corpusAvailable() ? false : 'the RFC corpus is not there (see bench/lib/rfc-corpus.ts)';

void describe('first-search benchmark', { skip }, () => {
  void it('times the first search after a start on our server and a baseline, taking turns', async () => {
    const { code, output } = await runBench('first-search', [
      '--pages',
      '300',
      '--repeats',
      '2',
      '--home',
      join(scratch, 'home'),
      '--baseline-server',
      MAIN,
    ]);
    assert.equal(code, 0, output);
    for (const repeat of [1, 2])
      for (const server of ['ours', 'baseline'])
        assert.match(
          output,
          new RegExp(
            `repeat ${repeat}, ${server}: start \\d+ ms, first search \\d+ ms, longest /health during it \\d+ ms, second search \\d+ ms`,
          ),
        );
    assert.match(output, /\nours +\d+ ms +\d+ ms +\d+ ms +\d+ ms\n/);
    assert.match(output, /\nbaseline +\d+ ms +\d+ ms +\d+ ms +\d+ ms\n/);
  });
});
