/**
 * The serving benchmark end to end on a few hundred pages of the RFC corpus (skipped when
 * the corpus is absent): it builds its collection once and reuses it, measures every way of
 * running the mixed set (engine, query processor, HTTP at 1 and 2 connections), prints the
 * ratios the issue targets and the fixed reference line, with `--baseline-server`
 * compares the answers of two servers (here the same build twice: every answer alike), and
 * with `--per-query` prints each query's medians.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { corpusAvailable } from '../../bench/lib/rfc-corpus.js';
import { runBench } from '../support/run-bench.js';
import { MAIN } from '../support/server-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'bench-http-search-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const run = (args: string[]) => runBench('http-search', args);

const skip = corpusAvailable() ? false : 'the RFC corpus is not there (see bench/lib/rfc-corpus.ts)';

void describe('http-search benchmark', { skip }, () => {
  void it('measures engine, query processor and HTTP on one collection, built once and reused', async () => {
    const home = join(scratch, 'home');
    // One warm-up burst, not the benchmark's 100: this test checks what the benchmark prints and
    // that both servers answer alike, not its figures, and the bursts would be most of its queries.
    const common = [
      '--warm-up-bursts',
      '1',
      '--pages',
      '300',
      '--repeats',
      '1',
      '--rounds',
      '1',
      '--connections',
      '2',
      '--home',
      home,
    ];
    const first = await run([...common, '--baseline-server', MAIN]);
    assert.equal(first.code, 0, first.output);
    assert.match(first.output, /building the collection/);
    for (const row of [
      /engine in-process \(executeQuery only\) +\d/,
      /query processor in-process \(SearchService\) +\d/,
      /ours through HTTP \/s\/search\.json +\d/,
      /baseline through HTTP \/s\/search\.json +\d/,
      /C\+\+ reference of the issue .* 0\.500 ms .* 1491 \(8\)/,
      /HTTP p50 \/ engine p50 \(target <= 1\.2x\)/,
      /q\/s 2 conn \/ 1 conn \(target >= 1\.8x\)/,
      /floor: bare node:http \+ a worker thread, no work \(same client, same sizes\) +\d/,
      /floor busy for each query's engine median \(same client, same sizes\) +\d/,
      /floor busy for each query's engine median \/ engine: p50 \d+\.\d\dx, p99 \d+\.\d\dx/,
    ])
      assert.match(first.output, row);
    assert.match(first.output, /answers: all \d+ queries answered alike by ours and the baseline/);
    // Both servers are this build: each answer's Server-Timing splits the time of each.
    const timing = first.output.slice(first.output.indexOf('where a query spends its time at 1 connection'));
    assert.match(timing, /server +client measured +outside +wait +hop +search +serialize +handler/);
    for (const server of ['ours', 'baseline'])
      assert.match(timing, new RegExp(`\\n${server} +(\\d+\\.\\d{3} +){6}-?\\d+\\.\\d{3}`));

    assert.doesNotMatch(first.output, /each query at 1 connection/);

    const second = await run([...common, '--per-query']);
    assert.equal(second.code, 0, second.output);
    assert.match(second.output, /reusing the collection of 300 pages/);
    assert.doesNotMatch(second.output, /baseline through HTTP/);
    // --per-query: a row per query of the set, each with its engine, query processor, floor and HTTP medians.
    const table = second.output.slice(second.output.indexOf('each query at 1 connection'));
    assert.match(table, /query +engine +service +floor busy +ours HTTP +ours \/ engine/);
    assert.match(
      table,
      /\+routing protocol +\d[\d.]* m?s +\d[\d.]* m?s +\d[\d.]* m?s +\d[\d.]* m?s +\d+\.\d\dx/,
    );
  });
});
