import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { escapeXml } from '../../bench/lib/peers/compare-chart.js';
import { runRows } from '../../bench/lib/peers/compare-report.js';
import type { CompareResults } from '../../bench/lib/peers/compare-results.js';
import { pageMatches, plainWords } from '../../bench/lib/peers/check-hits.js';
import { jsonByteLength } from '../../bench/lib/peers/json-size.js';
import { medianRun } from '../../bench/lib/peers/median-run.js';
import type { PeerRun } from '../../bench/lib/peers/peer-run.js';
import { nextSmallerSize } from '../../bench/lib/peers/spawn-peer.js';

void describe('jsonByteLength', () => {
  void it('equals the UTF-8 length of JSON.stringify for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(jsonByteLength(value), Buffer.byteLength(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });

  void it('follows toJSON, skips undefined and functions in objects, writes them as null in arrays', () => {
    const value = {
      a: undefined,
      f: () => 1,
      list: [undefined, () => 1, Number.NaN, 'é"\n'],
      when: { toJSON: () => ({ x: 1 }) },
      map: new Map([[1, 2]]),
    };
    assert.equal(jsonByteLength(value), Buffer.byteLength(JSON.stringify(value)));
  });
});

void describe('nextSmallerSize', () => {
  void it('steps below 80% of where a run failed', () => {
    assert.equal(nextSmallerSize(180_000, 209_738), 100_000);
    assert.equal(nextSmallerSize(209_738, 209_738), 150_000);
    assert.equal(nextSmallerSize(60_000, 100_000), 25_000);
  });

  void it('gives up when nothing smaller is left or nothing was indexed', () => {
    assert.equal(nextSmallerSize(1_000, 1_000), undefined);
    assert.equal(nextSmallerSize(0, 0), undefined);
  });
});

void describe('pageMatches', () => {
  const words = (title: string, text: string) => {
    const fields = [plainWords(title), plainWords(text)];
    return { fields, all: new Set(fields.flat()) };
  };
  const page = words('RFC 5681: TCP Congestion Control', 'The congestion window (cwnd) grows; Résumé.');

  void it('requires every word for AND and one for OR, folding case and diacritics', () => {
    assert.equal(pageMatches({ class: 'and', terms: ['congestion', 'window'] }, page, false), true);
    assert.equal(pageMatches({ class: 'and', terms: ['congestion', 'windows'] }, page, false), false);
    assert.equal(pageMatches({ class: 'or', terms: ['windows', 'resume'] }, page, false), true);
  });

  void it('requires consecutive words within one field for a phrase', () => {
    assert.equal(pageMatches({ class: 'phrase', terms: ['congestion', 'control'] }, page, false), true);
    assert.equal(pageMatches({ class: 'phrase', terms: ['control', 'the'] }, page, false), false);
  });

  void it('accepts a longer word for a peer that matches prefixes', () => {
    assert.equal(pageMatches({ class: 'single', terms: ['congest'] }, page, true), true);
    assert.equal(pageMatches({ class: 'single', terms: ['congest'] }, page, false), false);
  });
});

void describe('medianRun', () => {
  const run = (indexMs: number, median: number, found: boolean): PeerRun => ({
    peer: 'fts5',
    setup: { description: 'd', unsupported: { phrase: 'none' }, prefixMatching: false, inMemory: false },
    docs: 100,
    indexMs,
    settleMs: 0,
    rssAfterIndexBytes: indexMs * 10,
    changeMs: [indexMs],
    changeFound: [found],
    queries: {
      'single-common': { median, p99: median * 2, samples: 5 },
      single: { median, p99: median * 2, samples: 10 },
      and: { median, p99: median * 2, samples: 10 },
      or: { median, p99: median * 2, samples: 10 },
      phrase: { na: 'none' },
    },
    topKeys: { the: [`k${indexMs}`] },
    rssServingBytes: indexMs,
    persisted: { bytes: 7, what: 'file' },
  });

  void it('takes the median of every number and pools the change rounds', () => {
    const m = medianRun([run(30, 3, true), run(10, 1, true), run(20, 9, false)]);
    assert.equal(m.indexMs, 20);
    assert.equal(m.rssAfterIndexBytes, 200);
    assert.deepEqual(m.queries.single, { median: 3, p99: 6, samples: 30 });
    assert.deepEqual(m.queries.phrase, { na: 'none' });
    assert.deepEqual(m.changeFound, [true, true, false]);
    assert.deepEqual(m.topKeys, { the: ['k30'] });
    assert.equal(m.runs, 3);
  });

  void it('refuses runs on different pages', () => {
    assert.throws(() => medianRun([run(1, 1, true), { ...run(2, 2, true), docs: 50 }]), /same pages/);
  });
});

void describe('runRows', () => {
  void it('says where a peer ran out of memory, and groups the runs that completed', () => {
    const attempt = (limit: number | undefined, wallMs: number, atDocs?: number) => ({
      peer: 'orama' as const,
      limit,
      run: {},
      wallMs,
      ...(atDocs === undefined
        ? {}
        : {
            failure: {
              phase: 'indexing' as const,
              atDocs,
              outOfMemory: true,
              reason: 'JavaScript heap out of memory, heap limit 8192 MiB',
            },
          }),
    });
    const results = {
      peers: [
        {
          peer: 'orama',
          attempts: [attempt(undefined, 9000, 123_456), attempt(75_000, 2000), attempt(75_000, 3000)],
        },
      ],
    } as unknown as CompareResults;
    assert.deepEqual(runRows(results), [
      {
        peer: 'orama',
        'pages indexed': 'none',
        attempts:
          'whole corpus: ran out of memory while indexing at 123,456 pages (JavaScript heap out of memory, heap limit 8192 MiB); ' +
          '75,000 pages: 2 runs completed in 2.00 s, 3.00 s',
      },
    ]);
  });
});

void describe('escapeXml', () => {
  void it('escapes the characters that would break SVG text or attributes', () => {
    assert.equal(escapeXml('a < b & "c" > d'), 'a &lt; b &amp; &quot;c&quot; &gt; d');
  });
});
