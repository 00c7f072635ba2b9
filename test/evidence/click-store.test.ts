import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  ClickStore,
  normalizeClickQuery,
  type ClickStoreData,
} from '../../src/collection/evidence/click-store.js';
import { parseClickLine } from '../../src/collection/evidence/click-log-files.js';
import { quantizeClickScore } from '../../src/collection/evidence/collection-evidence.js';
import {
  EvidenceFileError,
  readEvidenceFile,
  writeEvidenceFile,
} from '../../src/collection/evidence/evidence-file.js';

const DAY = 86_400_000;
const T0 = Date.parse('2024-05-01T00:00:00Z');
const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

describe('ClickStore', () => {
  it('halves a click every half-life', () => {
    const store = new ClickStore(30, T0);
    store.add('k', 'q', T0);
    store.advance(T0 + 30 * DAY);
    close(store.evidenceFor('k')!.total, 0.5);
    store.advance(T0 + 60 * DAY);
    close(store.evidenceFor('k')!.total, 0.25);
    // Advancing in steps or at once gives the same weight.
    const once = new ClickStore(30, T0);
    once.add('k', 'q', T0);
    once.advance(T0 + 60 * DAY);
    close(once.evidenceFor('k')!.total, 0.25);
  });

  it('weighs a click by its age when it is added late, and a click from the future as a fresh one', () => {
    const store = new ClickStore(30, T0);
    close(store.add('k', 'old', T0 - 30 * DAY), 0.5);
    close(store.add('k', 'future', T0 + DAY), 1);
    assert.deepEqual(
      store.evidenceFor('k')!.queries.map((q) => q.query),
      ['future', 'old'],
    );
  });

  it('forgets weights that decayed to almost nothing, and never goes back in time', () => {
    const store = new ClickStore(30, T0);
    store.add('k', 'q', T0);
    assert.deepEqual(store.advance(T0 - DAY), []);
    close(store.evidenceFor('k')!.total, 1);
    assert.deepEqual(store.advance(T0 + 365 * DAY), ['k']);
    assert.equal(store.evidenceFor('k'), undefined);
    assert.equal(store.size, 0);
  });

  it('round-trips through its serialised form', () => {
    const store = new ClickStore(30, T0);
    store.add('a', 'x', T0);
    store.add('a', 'x', T0);
    store.add('b', 'y', T0 - 10 * DAY);
    const copy = ClickStore.fromData(JSON.parse(JSON.stringify(store.toData())) as ClickStoreData, 30);
    assert.deepEqual(copy.evidenceFor('a'), store.evidenceFor('a'));
    assert.deepEqual(copy.evidenceFor('b'), store.evidenceFor('b'));
    assert.equal(copy.asOf, T0);
    assert.throws(
      () => ClickStore.fromData({ asOf: 0, keys: [['a', [['x', 'heavy']]]] } as never, 30),
      TypeError,
    );
  });

  it('rounds the indexed click score to steps, so ageing re-indexes only on visible change', () => {
    assert.equal(quantizeClickScore(0), 0);
    assert.equal(quantizeClickScore(5), quantizeClickScore(5.05));
    assert.ok(quantizeClickScore(5) > quantizeClickScore(4));
    assert.ok(Math.abs(Math.log1p(quantizeClickScore(7.3)) - Math.log1p(7.3)) <= 0.05 + 1e-9);
  });
});

describe('click queries and lines', () => {
  it('keeps the words of a query as evidence, without operators', () => {
    assert.equal(normalizeClickQuery('  Kerberos   TUTORIAL '), 'kerberos tutorial');
    assert.equal(normalizeClickQuery('+kerberos -windows t:"setup guide" [a b]'), 'kerberos setup guide a b');
    assert.equal(normalizeClickQuery('-only'), '');
  });

  it('reads the click log format of /s/redirect and skips what is not a click', () => {
    assert.deepEqual(
      parseClickLine(
        '{"time":"2024-05-01T00:00:00.000Z","collection":"c","query":"q","rank":3,"url":"https://e/x","ip":"::1"}',
      ),
      {
        time: T0,
        query: 'q',
        rank: 3,
        url: 'https://e/x',
      },
    );
    assert.equal(parseClickLine('{"time":"yesterday","url":"https://e/x"}'), undefined);
    assert.equal(parseClickLine('{"time":"2024-05-01T00:00:00.000Z"}'), undefined);
    assert.equal(parseClickLine('not json'), undefined);
  });
});

describe('evidence files', () => {
  it('round-trip, and a changed or foreign file is refused naming it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'pushsearch-evidence-file-'));
    try {
      const file = join(folder, 'x.json');
      assert.equal(readEvidenceFile(file, 'links', 1), undefined);
      await writeEvidenceFile(file, 'links', 1, { a: [1, 2] });
      assert.deepEqual(readEvidenceFile(file, 'links', 1), { a: [1, 2] });
      assert.throws(
        () => readEvidenceFile(file, 'clicks', 1),
        (e: unknown) => e instanceof EvidenceFileError && e.message.includes(file),
      );
      assert.throws(() => readEvidenceFile(file, 'links', 2), EvidenceFileError);
      writeFileSync(file, readFileSync(file, 'utf8').replace('[1,2]', '[1,3]'));
      assert.throws(() => readEvidenceFile(file, 'links', 1), /checksum/);
      writeFileSync(file, readFileSync(file, 'utf8').slice(0, 20));
      assert.throws(() => readEvidenceFile(file, 'links', 1), EvidenceFileError);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
