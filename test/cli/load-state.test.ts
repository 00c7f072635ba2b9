import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  AcknowledgedRecords,
  defaultStatePath,
  identityMismatch,
  readLoadState,
  writeLoadState,
  type LoadIdentity,
} from '../../src/cli/load-state.js';
import { SearchError } from '../../src/errors.js';

const IDENTITY: LoadIdentity = {
  source: '/data/pages.jsonl',
  fingerprint: 'sha256:abc',
  collection: 'rfc',
  url: 'http://127.0.0.1:8080',
  keyPrefix: null,
};

describe('AcknowledgedRecords', () => {
  it('answers like a set of the records added, in any order, and survives its JSON form', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 400 }), (records) => {
        const ranges = new AcknowledgedRecords();
        const oracle = new Set<number>();
        for (const n of records) {
          ranges.add(n);
          oracle.add(n);
        }
        const reread = new AcknowledgedRecords(ranges.toJSON());
        for (let n = 1; n <= 301; n++) {
          assert.equal(ranges.has(n), oracle.has(n), `has(${n})`);
          assert.equal(reread.has(n), oracle.has(n), `reread has(${n})`);
        }
        assert.equal(ranges.size, oracle.size);
        const upTo = 150;
        assert.equal(ranges.countUpTo(upTo), [...oracle].filter((n) => n <= upTo).length);
        // Ranges are kept merged: as many as there are runs of consecutive records.
        const sorted = [...oracle].sort((a, b) => a - b);
        const runs = sorted.filter((n, i) => i === 0 || sorted[i - 1] !== n - 1).length;
        assert.equal(ranges.toJSON().length, runs);
      }),
    );
  });

  it('refuses ranges that overlap or are out of order', () => {
    assert.throws(
      () =>
        new AcknowledgedRecords([
          [5, 9],
          [7, 12],
        ]),
      TypeError,
    );
    assert.throws(() => new AcknowledgedRecords([[0, 3]]), TypeError);
    assert.throws(() => new AcknowledgedRecords([[4, 3]]), TypeError);
  });
});

describe('load state file', () => {
  it('round-trips, and refuses a file changed by hand with LOAD_STATE_INVALID', () => {
    const folder = mkdtempSync(join(tmpdir(), 'pushsearch-load-state-'));
    try {
      const path = join(folder, 'nested', 'state.json');
      assert.equal(readLoadState(path), undefined);
      const acknowledged = new AcknowledgedRecords([
        [1, 40],
        [42, 50],
      ]);
      writeLoadState(path, { ...IDENTITY, acknowledged, updated: '2026-11-27T00:00:00.000Z' });
      const read = readLoadState(path);
      assert.ok(read !== undefined);
      assert.deepEqual(read.acknowledged.toJSON(), [
        [1, 40],
        [42, 50],
      ]);
      assert.equal(identityMismatch(read, IDENTITY), undefined);

      writeFileSync(path, readFileSync(path, 'utf8').replace('[42,50]', '[42,60]'));
      assert.throws(
        () => readLoadState(path),
        (error) =>
          error instanceof SearchError &&
          error.code === 'LOAD_STATE_INVALID' &&
          /checksum/.test(error.message),
      );
      writeFileSync(path, '{"acknowledged": []}');
      assert.throws(
        () => readLoadState(path),
        (error) => error instanceof SearchError && error.code === 'LOAD_STATE_INVALID',
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('names what differs when the state is of another load', () => {
    assert.match(
      identityMismatch(IDENTITY, { ...IDENTITY, fingerprint: 'sha256:def' }) ?? '',
      /changed since/,
    );
    assert.match(identityMismatch(IDENTITY, { ...IDENTITY, collection: 'news' }) ?? '', /collection rfc/);
    assert.match(
      identityMismatch(IDENTITY, { ...IDENTITY, url: 'http://other:8080' }) ?? '',
      /127\.0\.0\.1:8080/,
    );
    assert.match(identityMismatch(IDENTITY, { ...IDENTITY, keyPrefix: 'https://x/' }) ?? '', /key-prefix/);
  });

  it('keeps a state per source, collection and server under XDG_STATE_HOME', () => {
    const env = { XDG_STATE_HOME: '/var/tmp/state' };
    const a = defaultStatePath(IDENTITY, env);
    assert.match(a, /^\/var\/tmp\/state\/pushsearch\/loads\/rfc-pages\.jsonl-[0-9a-f]{12}\.json$/);
    assert.notEqual(defaultStatePath({ ...IDENTITY, collection: 'news' }, env), a);
    assert.notEqual(defaultStatePath({ ...IDENTITY, url: 'http://127.0.0.1:9090' }, env), a);
    assert.equal(defaultStatePath({ ...IDENTITY }, env), a);
  });
});
