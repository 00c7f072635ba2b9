import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { SaxesParser } from 'saxes';
import type { CompareResults } from '../../bench/lib/peers/compare-results.js';
import { plainWords } from '../../bench/lib/peers/check-hits.js';
import { PEER_NAMES } from '../../bench/lib/peers/peer.js';
import { QUERY_CLASSES } from '../../bench/lib/query-set.js';
import { corpusAvailable, corpusMissingMessage, readRfcCorpus } from '../../bench/lib/rfc-corpus.js';
import { sqliteUnavailable } from '../../bench/lib/sqlite-available.js';

const LIMIT = 300;
const scratch = mkdtempSync(join(tmpdir(), 'bench-compare-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The pages among the first LIMIT that have `word` (the expected answer, computed here). */
async function pagesWith(word: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of readRfcCorpus({ limit: LIMIT })) {
    if (plainWords(`${page.title} ${page.text}`).includes(word)) keys.push(page.key);
  }
  return keys.sort();
}

// Every peer runs, SQLite FTS5 among them: without its native module (which `npm ci` does not
// build; `.ci/run` does) the run is skipped with the command that builds it, as the FTS5
// peer's own test is, instead of failing on a fresh install.
void describe(
  'bench/compare end to end',
  { skip: corpusAvailable() ? (sqliteUnavailable() ?? false) : corpusMissingMessage() },
  () => {
    const out = join(scratch, 'compare');
    const script = fileURLToPath(new URL('../../bench/compare.js', import.meta.url));
    const run = spawnSync(
      process.execPath,
      [script, '--limit', String(LIMIT), '--runs', '2', '--change-rounds', '2', '--out', out],
      {
        encoding: 'utf8',
        timeout: 120_000,
      },
    );

    void it('runs every peer and writes the markdown, the chart and the raw results', () => {
      assert.equal(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
      for (const ext of ['md', 'svg', 'json'])
        assert.ok(existsSync(`${out}.${ext}`), `${out}.${ext} missing`);
      assert.match(run.stdout, /Ratios to ours/);
    });

    void it('names every peer and every query class in the markdown and the chart', () => {
      const md = readFileSync(`${out}.md`, 'utf8');
      const svg = readFileSync(`${out}.svg`, 'utf8');
      for (const name of PEER_NAMES) {
        assert.match(md, new RegExp(`\\| ${name} \\|`), `markdown lacks a column or row for ${name}`);
        assert.ok(svg.includes(`>${name}</text>`), `chart legend lacks ${name}`);
      }
      for (const queryClass of QUERY_CLASSES) {
        assert.ok(md.includes(`| ${queryClass} median |`), `markdown lacks ${queryClass}`);
        assert.ok(svg.includes(`>${queryClass}</text>`), `chart lacks ${queryClass}`);
      }
      assert.match(md, /## Ratios to ours/);
      assert.match(md, /first 300 pages/);
      assert.match(md, /\| ours \| 300 \| 300 pages: completed in /);
    });

    void it('writes a well-formed SVG document', () => {
      const parser = new SaxesParser({ xmlns: true });
      let root: string | undefined;
      let rects = 0;
      parser.on('opentag', (tag) => {
        root ??= tag.local;
        if (tag.local === 'rect') rects++;
      });
      parser.write(readFileSync(`${out}.svg`, 'utf8')).close();
      assert.equal(root, 'svg');
      // Background and legend, plus a bar per peer and class (phrase for two of them) and three small panels.
      assert.ok(rects >= 1 + 5 + (4 * 5 + 2) + 3 * 5, `only ${rects} rectangles`);
    });

    void it('has every peer answer real queries: the expected pages, and hits that have the words', async () => {
      const results = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as CompareResults;
      const expected = new Map([
        ['congestion', await pagesWith('congestion')],
        ['telnet', await pagesWith('telnet')],
      ]);
      for (const [word, keys] of expected)
        assert.ok(keys.length > 0 && keys.length <= 10, `${word}: ${keys.length} pages`);
      for (const outcome of results.peers) {
        const used = outcome.used;
        assert.ok(used !== undefined, `${outcome.peer} did not complete`);
        assert.equal(used.docs, LIMIT);
        assert.deepEqual(
          used.changeFound,
          [true, true],
          `${outcome.peer} did not find the page it was given`,
        );
        for (const [word, keys] of expected) {
          assert.deepEqual([...(used.topKeys[word] ?? [])].sort(), keys, `${outcome.peer}: ${word}`);
        }
        const check = used.hitCheck;
        assert.ok(check !== undefined && check.checked > 50, `${outcome.peer}: hits not checked`);
        // Orama's AND lets two forms of one word stand in for another (see orama-peer.ts).
        if (outcome.peer !== 'orama')
          assert.equal(check.ok, check.checked, `${outcome.peer}: ${check.misses.join(', ')}`);
      }
    });
  },
);
