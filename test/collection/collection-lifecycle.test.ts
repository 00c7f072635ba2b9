/**
 * The collection's state machine on its own: what opens and closes are functions the test
 * holds, so every race (a stop while an operation runs, starts asked at once) happens in the
 * order the test chooses.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CollectionLifecycle } from '../../src/collection/collection-lifecycle.js';
import { CorruptIndexError, SearchError } from '../../src/errors.js';

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('CollectionLifecycle', () => {
  it('starts once for callers that ask at the same time, and is RUNNING afterwards', async () => {
    const lifecycle = new CollectionLifecycle('c');
    const opening = gate();
    let opens = 0;
    const open = async () => {
      opens++;
      await opening.promise;
    };
    const first = lifecycle.ensureRunning(() => {}, open);
    const second = lifecycle.ensureRunning(() => {}, open);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(lifecycle.state, 'STARTING');
    opening.open();
    await Promise.all([first, second]);
    assert.equal(opens, 1);
    assert.equal(lifecycle.state, 'RUNNING');
    await lifecycle.ensureRunning(() => assert.fail('a running collection is not refused'), open);
    assert.equal(opens, 1);
  });

  it('a refusal throws before anything opens', async () => {
    const lifecycle = new CollectionLifecycle('c');
    const refusal = new SearchError('COLLECTION_DISABLED', 'push.run=false');
    await assert.rejects(
      lifecycle.ensureRunning(
        () => {
          throw refusal;
        },
        () => assert.fail('nothing opens'),
      ),
      (error) => error === refusal,
    );
    assert.equal(lifecycle.state, 'STOPPED');
  });

  it('a start that throws makes it FAILED with the reason and file, and the next request tries again', async () => {
    const lifecycle = new CollectionLifecycle('docs');
    const told: Error[] = [];
    const broken = new CorruptIndexError('live/g1.post', 'checksum mismatch');
    await assert.rejects(
      lifecycle.ensureRunning(
        () => {},
        () => Promise.reject(broken),
        (error) => told.push(error),
      ),
      (error: SearchError) => {
        assert.equal(error.code, 'COLLECTION_FAILED');
        assert.match(error.message, /^collection docs cannot start: .*checksum mismatch/);
        assert.deepEqual(error.details, { file: 'live/g1.post' });
        return true;
      },
    );
    assert.deepEqual(told, [broken]);
    assert.equal(lifecycle.state, 'FAILED');
    assert.equal(lifecycle.failure?.file, 'live/g1.post');
    assert.match(lifecycle.failure?.reason ?? '', /checksum mismatch/);

    await lifecycle.ensureRunning(
      () => {},
      () => Promise.resolve(),
    );
    assert.equal(lifecycle.state, 'RUNNING');
    assert.equal(lifecycle.failure, undefined, 'a failure is only reported while FAILED');
  });

  it('a stop waits for held operations before it closes anything, and is STOPPING meanwhile', async () => {
    const lifecycle = new CollectionLifecycle('c');
    await lifecycle.ensureRunning(
      () => {},
      () => Promise.resolve(),
    );
    const operation = gate();
    const held = lifecycle.hold(() => operation.promise.then(() => 'answered'));
    let closed = false;
    const stopping = lifecycle.serial(() =>
      lifecycle.stop(() => {
        closed = true;
        return Promise.resolve();
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(lifecycle.state, 'STOPPING');
    assert.equal(closed, false, 'nothing is closed under a running operation');
    operation.open();
    assert.equal(await held, 'answered');
    await stopping;
    assert.equal(closed, true);
    assert.equal(lifecycle.state, 'STOPPED');
  });

  it('a held operation that throws still lets the stop go on', async () => {
    const lifecycle = new CollectionLifecycle('c');
    await lifecycle.ensureRunning(
      () => {},
      () => Promise.resolve(),
    );
    await assert.rejects(
      lifecycle.hold(() => Promise.reject(new Error('refused'))),
      /refused/,
    );
    await lifecycle.waitIdle();
    await lifecycle.serial(() => lifecycle.stop(() => Promise.resolve()));
    assert.equal(lifecycle.state, 'STOPPED');
  });

  it('stopping a FAILED collection makes it STOPPED without closing; clearFailure does too', async () => {
    for (const clear of [
      (l: CollectionLifecycle) => l.serial(() => l.stop(() => assert.fail('nothing was opened to close'))),
      (l: CollectionLifecycle) => {
        l.clearFailure();
        return Promise.resolve();
      },
    ]) {
      const lifecycle = new CollectionLifecycle('c');
      await lifecycle
        .ensureRunning(
          () => {},
          () => Promise.reject(new Error('no')),
        )
        .catch(() => undefined);
      assert.equal(lifecycle.state, 'FAILED');
      await clear(lifecycle);
      assert.equal(lifecycle.state, 'STOPPED');
    }
  });

  it('transitions run one after another, also after one that failed', async () => {
    const lifecycle = new CollectionLifecycle('c');
    const order: string[] = [];
    const first = gate();
    const a = lifecycle.serial(async () => {
      order.push('a begins');
      await first.promise;
      order.push('a ends');
      throw new Error('a failed');
    });
    const b = lifecycle.serial(async () => {
      order.push('b');
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['a begins']);
    first.open();
    await assert.rejects(a, /a failed/);
    await b;
    assert.deepEqual(order, ['a begins', 'a ends', 'b']);
  });

  it('a stop queued behind a start closes what that start opened', async () => {
    const lifecycle = new CollectionLifecycle('c');
    const opening = gate();
    const events: string[] = [];
    const starting = lifecycle.ensureRunning(
      () => {},
      async () => {
        await opening.promise;
        events.push('opened');
      },
    );
    const stopping = lifecycle.serial(() =>
      lifecycle.stop(() => {
        events.push('closed');
        return Promise.resolve();
      }),
    );
    opening.open();
    await Promise.all([starting, stopping]);
    assert.deepEqual(events, ['opened', 'closed']);
    assert.equal(lifecycle.state, 'STOPPED');
  });
});
