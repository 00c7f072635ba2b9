/**
 * The first-search benchmark end to end on a few hundred pages of the RFC corpus (skipped when
 * the corpus is absent): it builds its collection, starts our server and a baseline (here the
 * same build) in turn, and prints each one's start, first search, longest /health meanwhile and
 * second search.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { corpusAvailable } from '../../bench/lib/rfc-corpus.js';

const scratch = mkdtempSync(join(tmpdir(), 'bench-first-search-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const skip = corpusAvailable() ? false : 'the RFC corpus is not there (see bench/lib/rfc-corpus.ts)';

void describe('first-search benchmark', { skip }, () => {
  void it('times the first search after a start on our server and a baseline, taking turns', async () => {
    const script = fileURLToPath(new URL('../../bench/first-search.js', import.meta.url));
    const main = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
    const args = [
      '--pages',
      '300',
      '--repeats',
      '2',
      '--home',
      join(scratch, 'home'),
      '--baseline-server',
      main,
    ];
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.once('error', reject);
      child.once('exit', (exit) => resolve({ code: exit, output: text }));
    });
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
