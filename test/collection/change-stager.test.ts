/**
 * The stager on a real index over the in-memory journal: a client's change is staged only
 * once durable, and in journal order whatever order the appends' answers arrive in.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { ChangeRecord } from '../../src/collection/change-record.js';
import type { Journal } from '../../src/journal/journal.js';
import { openRuntime, putChange, stagePut, storedText, type RuntimeFixture } from './runtime-fixture.js';

describe('ChangeStager', () => {
  let fixture: RuntimeFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  /** Appends answered in the order the test releases them, durable in the memory journal underneath. */
  function reorderAppends(journal: Journal): { release: (seq: number) => void; waiting: () => number[] } {
    const held = new Map<number, () => void>();
    const append = journal.append.bind(journal);
    journal.append = async (payload) => {
      const seq = await append(payload);
      await new Promise<void>((resolve) => held.set(seq, resolve));
      return seq;
    };
    return {
      release: (seq) => held.get(seq)?.(),
      waiting: () => [...held.keys()].sort(),
    };
  }

  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('stages changes in journal order when the later append is answered first', async () => {
    fixture = await openRuntime();
    const { runtime } = fixture;
    const appends = reorderAppends(runtime.journal);
    const first = stagePut(fixture, 'local:k', 'first version');
    await settle();
    const second = stagePut(fixture, 'local:k', 'second version');
    await settle();
    assert.deepEqual(appends.waiting(), [1, 2]);

    appends.release(2);
    await second;
    assert.equal(runtime.index.stagedChanges, 0, 'seq 2 waits for seq 1');
    assert.equal(runtime.appliedSeq, 0);

    appends.release(1);
    await first;
    assert.equal(runtime.appliedSeq, 2);
    assert.equal(storedText(fixture, 'local:k'), 'second version', 'the later change wins, as in a replay');
  });

  it('an append that fails stages nothing and leaves the next change free to go on', async () => {
    fixture = await openRuntime();
    const { runtime, store } = fixture;
    store.failNextFlush(new Error('disk full'));
    await assert.rejects(stagePut(fixture, 'local:lost', 'never acknowledged'), /disk full/);
    assert.equal(runtime.index.stagedDocument('local:lost'), undefined);
    await stagePut(fixture, 'local:kept', 'acknowledged');
    assert.equal(runtime.appliedSeq, 1, 'the failed append took no sequence number');
    assert.equal(storedText(fixture, 'local:kept'), 'acknowledged');
  });

  it('a staged change is told to a running RE_INDEX, so that it keeps the client version', async () => {
    fixture = await openRuntime();
    const { runtime } = fixture;
    runtime.reindexTouched = new Set();
    await stagePut(fixture, 'local:touched', 'client text');
    assert.deepEqual([...runtime.reindexTouched], ['local:touched']);
  });

  it('a replayed change that cannot be indexed is logged and skipped; the others are staged', async () => {
    fixture = await openRuntime();
    const { runtime, stager, lines } = fixture;
    const broken: ChangeRecord = {
      ...putChange('local:bad', '<?xml version="1.0"?><doc><a></doc>'),
      filters: 'Xml',
    };
    stager.apply(runtime, broken, 'replay');
    stager.apply(runtime, { op: 'redirect', key: 'local:old', target: 'local:new' }, 'replay');
    stager.apply(runtime, { op: 'delete', key: 'local:gone' }, 'replay');
    assert.equal(runtime.index.stagedDocument('local:bad'), undefined);
    assert.notEqual(runtime.index.stagedDocument('local:old'), undefined);
    assert.equal(runtime.index.stagedDocument('local:gone'), null, 'a delete is staged as absent');
    const logged = lines.find((line) => line.msg === 'replay: change could not be indexed');
    assert.ok(logged !== undefined, JSON.stringify(lines));
    assert.equal(logged.key, 'local:bad');
    assert.equal(logged.origin, 'replay');
  });

  it('documentFor maps a put through the filters and throws for content they refuse', async () => {
    fixture = await openRuntime();
    const { runtime, stager } = fixture;
    const doc = stager.documentFor(runtime, {
      ...putChange('local:x', '<?xml version="1.0"?><doc><title>Hello</title></doc>'),
      filters: 'Xml',
    });
    assert.equal(doc.key, 'local:x');
    assert.throws(
      () =>
        stager.documentFor(runtime, {
          ...putChange('local:y', '<?xml version="1.0"?><doc><a></doc>'),
          filters: 'Xml',
        }),
      /malformed XML/,
    );
  });
});
