/**
 * The soak benchmark end to end with tiny settings: a real server child, 300 pages of a small
 * generated corpus, 12 s of mixed traffic, a restart. What a user of the benchmark relies on:
 * it writes the Markdown and JSON reports, every kind of call and check was exercised (so
 * "0 errors" is not "nothing ran"), its exit code says whether the server passed, and a
 * correct server passes: 0 errors, verification passed, exit 0.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync } from 'node:zlib';
import { RFC_CORPUS_ENV } from '../../bench/lib/rfc-corpus.js';
import { runBench } from '../support/run-bench.js';

const scratch = mkdtempSync(join(tmpdir(), 'bench-soak-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const WORDS = (
  'the protocol network data address congestion window multicast kerberos checksum fragmentation telnet ipv6 ' +
  'retransmission mime tls handshake certificate dns resolver cache tcp timeout mail header field routing table ' +
  'security considerations message body domain name system user datagram public key control round trip time'
).split(' ');

/** A corpus file in the RFC format: 400 pages of words the benchmark's queries use. */
function writeCorpus(): string {
  let seed = 7;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const lines = Array.from({ length: 400 }, (_, i) => {
    const rfc = 1000 + Math.floor(i / 4);
    const text = Array.from({ length: 300 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
    return JSON.stringify({
      key: `https://rfc.example.org/rfc${rfc}/page-${(i % 4) + 1}`,
      rfc,
      page: (i % 4) + 1,
      title: `RFC ${rfc}: Test`,
      text,
    });
  });
  const path = join(scratch, 'corpus.jsonl.br');
  writeFileSync(path, brotliCompressSync(Buffer.from(lines.join('\n'))));
  return path;
}

const run = (args: string[], env: NodeJS.ProcessEnv) => runBench('soak', args, env);

interface SoakJson {
  passed: boolean;
  errors: number;
  verificationPassed: boolean;
  load: { docs: number; documentsAfter: number };
  mix: { autoCommitsAtLeast: number; apiCommits: number; snapshots: number };
  calls: { call: string; count: number; errors: number; p50Ms: number; p99Ms: number }[];
  checks: { check: string; checked: number; failed: number; failures: string[] }[];
  samples: { phase: string; rss: number; fds: number; heapUsed: number }[];
}

void describe('soak benchmark (tiny settings)', () => {
  const out = join(scratch, 'report', 'soak');
  const home = join(scratch, 'homes');
  let result: { code: number | null; output: string };
  let report: SoakJson;

  before(async () => {
    mkdirSync(join(scratch, 'report'), { recursive: true });
    mkdirSync(home, { recursive: true });
    result = await run(
      [
        '--docs',
        '300',
        '--minutes',
        '0.2',
        '--concurrency',
        '8',
        '--load-connections',
        '16',
        '--sample-seconds',
        '1',
        '--commit-seconds',
        '2',
        '--snapshot-seconds',
        '3',
        '--auto-commit-seconds',
        '1',
        '--verify',
        '100',
        '--out',
        out,
        '--folder',
        home,
      ],
      { ...process.env, [RFC_CORPUS_ENV]: writeCorpus() },
    );
    report = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as SoakJson;
  });

  void it('runs load, mix, verification and restart against a real server, and writes both reports', () => {
    // 0: passed; 1: the server failed a call or a check. Anything else is the benchmark's own failure.
    assert.ok(result.code === 0 || result.code === 1, result.output);
    assert.equal(result.code === 0, report.passed);
    assert.equal(report.load.docs, 300);

    // Every kind of call ran, and latencies were measured.
    const calls = new Map(report.calls.map((c) => [c.call, c]));
    for (const name of [
      'put-replace',
      'put-add',
      'delete',
      'get',
      'search',
      'commit',
      'commit-async',
      'snapshot-create',
      'snapshot-list',
      'snapshot-delete',
      'state',
      'metrics',
    ]) {
      const call = calls.get(name);
      assert.ok(call !== undefined && call.count > 0, `${name} never ran`);
      assert.ok(call.p50Ms > 0 && call.p99Ms >= call.p50Ms, name);
    }
    assert.ok(report.mix.apiCommits > 0 && report.mix.snapshots > 0);

    // The content checks did check something, before and after the restart.
    const checked = (words: string): number =>
      report.checks.find((c) => c.check.startsWith(words))?.checked ?? 0;
    for (const prefix of ['', 'after a restart: ']) {
      assert.ok(checked(`${prefix}GET of keys put during the mix`) > 0, prefix);
      assert.ok(checked(`${prefix}GET of deleted keys`) > 0, prefix);
      assert.ok(checked(`${prefix}search for a live key's unique word`) > 0, prefix);
      assert.ok(checked(`${prefix}search for the unique word of a replaced or deleted version`) > 0, prefix);
    }

    // The server was sampled in every phase, from /proc and /metrics.
    for (const phase of ['load', 'mix', 'verify'])
      assert.ok(
        report.samples.some((s) => s.phase === phase),
        phase,
      );
    for (const s of report.samples) assert.ok(s.rss > 0 && s.fds > 0 && s.heapUsed > 0);

    const markdown = readFileSync(`${out}.md`, 'utf8');
    assert.match(
      markdown,
      report.passed ? /\*\*errors: 0\*\*/ : /\*\*errors: \d+ — FAILED\*\*|\*\*errors: 0\*\*/,
    );
    assert.match(
      markdown,
      report.verificationPassed ? /\*\*verification: passed\*\*/ : /\*\*verification: FAILED\*\*/,
    );
    assert.match(markdown, /\| put-replace \|/);
    assert.match(markdown, /## Time series/);
    // The temporary SEARCH_HOME is removed afterwards.
    assert.deepEqual(readdirSync(home), []);
  });

  void it('reports 0 errors and a passed verification, with auto-commits, and exits 0', () => {
    const failures = report.checks.filter((c) => c.failed > 0).map((c) => `${c.check}: ${c.failures[0]}`);
    assert.deepEqual(failures, []);
    assert.equal(report.errors, 0);
    assert.equal(report.verificationPassed, true);
    assert.equal(report.load.documentsAfter, 300);
    assert.ok(report.mix.autoCommitsAtLeast > 0, 'no auto-commit seen');
    for (const call of report.calls) assert.equal(call.errors, 0, call.call);
    assert.equal(result.code, 0);
    assert.match(readFileSync(`${out}.md`, 'utf8'), /\*\*errors: 0\*\*[\s\S]*\*\*verification: passed\*\*/);
  });
});
