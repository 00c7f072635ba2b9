/**
 * The collection state machine as GET state shows it: STOPPED → STARTING → RUNNING →
 * STOPPING → STOPPED, and FAILED (with the reason, and the file when known) when the index
 * cannot open.
 *
 * STARTING and STOPPING last only as long as opening and closing the index take. The service
 * has no test hook to hold them, so the tests below hold them deterministically by wrapping
 * `SearchIndex.open` and `SearchIndex.prototype.close` (the app runs in this process) with a
 * gate the test opens; what is asserted is only what GET state and the push API answer.
 * One more test, without gates, checks that whatever fast polls happen to see during real
 * starts and stops is a valid walk of the machine.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { StateResponse } from '../../src/client/types.js';
import { SearchIndex } from '../../src/index/search-index.js';
import { errorOf } from '../support/response-body.js';
import {
  VERSIONS,
  addCollectionCfg,
  commit,
  contentOf,
  getDocument,
  putDocument,
  route,
  state,
  type TestApp,
  appPerTest,
} from './helpers.js';

type State = 'STOPPED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'FAILED';

/**
 * Replaces the method `name` of `target` by one that waits for `release()` before running
 * the original. `entered` resolves at the first call; `calls` counts them; `restore()` puts
 * the original back and lets waiting calls through.
 */
function gate(
  target: object,
  name: string,
): { entered: Promise<void>; calls: () => number; release: () => void; restore: () => void } {
  const holder = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = holder[name]!;
  let release!: () => void;
  const open = new Promise<void>((resolve) => (release = resolve));
  let signalEntered!: () => void;
  const entered = new Promise<void>((resolve) => (signalEntered = resolve));
  let calls = 0;
  holder[name] = async function (this: unknown, ...args: unknown[]) {
    calls++;
    signalEntered();
    await open;
    return original.apply(this, args);
  };
  return {
    entered,
    calls: () => calls,
    release,
    restore: () => {
      holder[name] = original;
      release();
    },
  };
}

async function stateOf(
  t: TestApp,
  v: string,
  c = 'c',
): Promise<{ state: State; reason?: string; file?: string; documents?: number; stagedChanges?: number }> {
  const response = await state(t.app, v, c);
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/**
 * Polls GET state until `operation` settles; the states seen, repeats collapsed. An injected
 * request can complete without the event loop turning, so each poll also waits one
 * setImmediate: otherwise the polls would starve the file I/O the operation waits for.
 */
async function statesDuring<T>(
  t: TestApp,
  v: string,
  operation: Promise<T>,
): Promise<{ seen: State[]; result: T }> {
  let settled = false;
  const done = operation.finally(() => (settled = true));
  const seen: State[] = [];
  while (!settled) {
    const s = (await stateOf(t, v)).state;
    if (seen.at(-1) !== s) seen.push(s);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { seen, result: await done };
}

describe('collection state machine', () => {
  const openApp = appPerTest();

  for (const v of VERSIONS) {
    it(`${v}: an index that cannot open: GET state answers FAILED with the reason and the file; repairing it and any push request brings it back`, async () => {
      const t = await openApp(['c']);
      for (let i = 0; i < 5; i++)
        assert.equal((await putDocument(t.app, v, 'c', `local:${i}`, `apple number ${i}`)).statusCode, 200);
      assert.equal((await commit(t.app, v, 'c')).statusCode, 200);
      assert.equal(
        (await t.app.inject({ method: 'POST', url: route(v, 'c', '/state/stop') })).statusCode,
        200,
      );

      // Flip one bit in the middle of a generation file, as a failing disk would.
      const file = join(t.home, 'data', 'c', 'live', 'g1.doc');
      const good = readFileSync(file);
      const bad = Buffer.from(good);
      bad[Math.floor(bad.length / 2)]! ^= 0x10;
      writeFileSync(file, bad);

      // GET state does not start the collection, so it cannot know yet.
      const before = await stateOf(t, v);
      assert.equal(before.state, 'STOPPED');
      assert.equal(before.reason, undefined);

      const refused = await getDocument(t.app, v, 'c', 'local:1');
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(errorOf(refused).error, 'COLLECTION_FAILED');
      for (const version of VERSIONS) {
        const failed = await stateOf(t, version);
        assert.equal(failed.state, 'FAILED');
        assert.equal(typeof failed.reason, 'string');
        assert.ok(failed.reason!.length > 0, 'a non-empty reason');
        assert.match(failed.reason!, /g1\.doc/);
        assert.equal(failed.file, 'g1.doc');
        assert.equal(failed.documents, undefined, 'no index, no counts');
      }
      // Every push request tries again, and fails again while the file is bad.
      assert.equal((await putDocument(t.app, v, 'c', 'local:new', 'x')).statusCode, 503);
      assert.equal((await stateOf(t, v)).state, 'FAILED');

      // The operator repairs the file: the next push request starts it, the reason is gone.
      writeFileSync(file, good);
      const got = await getDocument(t.app, v, 'c', 'local:1');
      assert.equal(got.statusCode, 200, got.body);
      assert.equal(contentOf(got), 'apple number 1');
      const running = await stateOf(t, v);
      assert.equal(running.state, 'RUNNING');
      assert.equal(running.reason, undefined);
      assert.equal(running.file, undefined);
      assert.equal(running.documents, 5);
    });
  }

  it('a collection.cfg that does not validate: FAILED with a reason naming the file and the key; stop takes it to STOPPED', async () => {
    const t = await openApp(['c']);
    addCollectionCfg(t.home, 'c', ['push.max-generations=lots']);
    const refused = await putDocument(t.app, 'v2', 'c', 'local:a', 'a');
    assert.equal(refused.statusCode, 503, refused.body);
    const failed = await stateOf(t, 'v1');
    assert.equal(failed.state, 'FAILED');
    assert.match(failed.reason!, /collection\.cfg/);
    assert.match(failed.reason!, /push\.max-generations/);

    const stopped = await t.app.inject({ method: 'POST', url: route('v1', 'c', '/state/stop') });
    assert.equal(stopped.statusCode, 200, stopped.body);
    assert.equal(stopped.json<StateResponse>().state, 'STOPPED');
    const after = await stateOf(t, 'v2');
    assert.equal(after.state, 'STOPPED');
    assert.equal(after.reason, undefined);
  });

  it('STARTING is visible while the index opens (requests during it wait, one start); STOPPING while it closes (a push request then restarts it)', async () => {
    const t = await openApp(['c']);
    const walk: State[] = [];
    const observe = async (expected: State): Promise<void> => {
      for (const v of VERSIONS) {
        const view = await stateOf(t, v);
        assert.equal(view.state, expected, v);
        if (walk.at(-1) !== view.state) walk.push(view.state);
      }
    };
    await observe('STOPPED');

    const opening = gate(SearchIndex, 'open');
    try {
      const put = putDocument(t.app, 'v1', 'c', 'local:a', 'first document');
      await opening.entered;
      await observe('STARTING');
      // Another request meanwhile waits for the same start.
      const second = putDocument(t.app, 'v2', 'c', 'local:b', 'second document');
      const view = await stateOf(t, 'v2');
      assert.equal(view.state, 'STARTING');
      assert.equal(view.documents, undefined, 'no counts before the index is open');
      await observe('STARTING');
      opening.release();
      assert.equal((await put).statusCode, 200);
      assert.equal((await second).statusCode, 200);
      assert.equal(opening.calls(), 1, 'the index was opened once');
    } finally {
      opening.restore();
    }
    await observe('RUNNING');
    assert.equal((await stateOf(t, 'v1')).stagedChanges, 2);
    assert.equal((await commit(t.app, 'v2', 'c')).statusCode, 200);

    const closing = gate(SearchIndex.prototype, 'close');
    try {
      const stop = t.app.inject({ method: 'POST', url: route('v1', 'c', '/state/stop') });
      await closing.entered;
      await observe('STOPPING');
      closing.release();
      const stopped = await stop;
      assert.equal(stopped.statusCode, 200, stopped.body);
      assert.equal(stopped.json<StateResponse>().state, 'STOPPED');
    } finally {
      closing.restore();
    }
    await observe('STOPPED');
    assert.deepEqual(walk, ['STOPPED', 'STARTING', 'RUNNING', 'STOPPING', 'STOPPED']);

    // A push request that arrives while the collection stops waits, then starts it again.
    assert.equal((await getDocument(t.app, 'v1', 'c', 'local:a')).statusCode, 200);
    await observe('RUNNING');
    const closingAgain = gate(SearchIndex.prototype, 'close');
    try {
      const stop = t.app.inject({ method: 'POST', url: route('v2', 'c', '/state/stop') });
      await closingAgain.entered;
      const put = putDocument(t.app, 'v2', 'c', 'local:c', 'pushed while stopping');
      await observe('STOPPING');
      closingAgain.release();
      assert.equal((await stop).statusCode, 200);
      const answered = await put;
      assert.equal(answered.statusCode, 200, answered.body);
    } finally {
      closingAgain.restore();
    }
    await observe('RUNNING');
    assert.equal(contentOf(await getDocument(t.app, 'v1', 'c', 'local:c')), 'pushed while stopping');
    assert.equal(contentOf(await getDocument(t.app, 'v1', 'c', 'local:a')), 'first document');
  });

  it('without gates: the states fast polls see during real starts and stops only ever move forward', async (context) => {
    const t = await openApp(['c']);
    const ROUNDS = 6;
    const START_ORDER: State[] = ['STOPPED', 'STARTING', 'RUNNING'];
    const STOP_ORDER: State[] = ['RUNNING', 'STOPPING', 'STOPPED'];
    let starting = 0;
    let stopping = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const v = VERSIONS[round % 2]!;
      // Some staged changes make the start replay the journal and the stop wait for a commit.
      const started = await statesDuring(
        t,
        v,
        putDocument(t.app, v, 'c', `local:${round}`, `round ${round}`),
      );
      assert.equal(started.result.statusCode, 200);
      assertForward(started.seen, START_ORDER, `start ${round}`);
      assert.equal((await stateOf(t, v)).state, 'RUNNING', 'answered only once running');
      if (started.seen.includes('STARTING')) starting++;

      // Every third stop has a background commit to wait for.
      if (round % 3 === 0) assert.equal((await commit(t.app, v, 'c', false)).statusCode, 202);
      const stopped = await statesDuring(
        t,
        v,
        t.app.inject({ method: 'POST', url: route(v, 'c', '/state/stop') }),
      );
      assert.equal(stopped.result.statusCode, 200);
      assert.equal(stopped.result.json<StateResponse>().state, 'STOPPED');
      assertForward(stopped.seen, STOP_ORDER, `stop ${round}`);
      assert.equal((await stateOf(t, v)).state, 'STOPPED');
      if (stopped.seen.includes('STOPPING')) stopping++;
    }
    // Every change survived the stops.
    assert.equal((await commit(t.app, 'v1', 'c')).statusCode, 200);
    assert.equal((await stateOf(t, 'v1')).documents, ROUNDS);
    // Informational only: how often polls caught the short states depends on the machine.
    context.diagnostic(`polls saw STARTING in ${starting} and STOPPING in ${stopping} of ${ROUNDS} rounds`);
  });
});

/** `seen` (repeats collapsed) is a sub-sequence of `order`: the machine never went back nor sideways. */
function assertForward(seen: State[], order: State[], what: string): void {
  let at = -1;
  for (const s of seen) {
    const index = order.indexOf(s);
    assert.ok(index > at, `${what}: ${seen.join(' → ')} is not a forward walk of ${order.join(' → ')}`);
    at = index;
  }
}
