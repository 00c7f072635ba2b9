/**
 * A document read back as pushed, on a real index over the in-memory journal: an admin's
 * staged version before its committed one (a staged delete hides it), a query processor's
 * committed documents only, and every searcher it takes given back.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { lookUpCommitted, lookUpDocument } from '../../src/collection/document-lookup.js';
import type { Searcher } from '../../src/index/searcher.js';
import { openRuntime, stagePut, type RuntimeFixture } from './runtime-fixture.js';

describe('document lookup', () => {
  let fixture: RuntimeFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  const text = (base64: string | undefined) =>
    base64 === undefined ? undefined : Buffer.from(base64, 'base64').toString('utf8');

  it('a document not pushed is null', async () => {
    fixture = await openRuntime();
    assert.equal(lookUpDocument(fixture.runtime.index, 'local:none'), null);
    assert.equal(lookUpCommitted(fixture.runtime.index, 'local:none'), null);
  });

  it('a staged document is read as pushed, not committed; after the commit, committed', async () => {
    fixture = await openRuntime();
    const { runtime, commits } = fixture;
    await stagePut(fixture, 'local:a', 'first text');
    const staged = lookUpDocument(runtime.index, 'local:a');
    assert.deepEqual(staged, {
      key: 'local:a',
      pushContent: {
        content: Buffer.from('first text').toString('base64'),
        contentType: 'text/plain',
        metadata: {},
        receivedTime: '2026-01-01T00:00:00Z',
      },
      committed: false,
    });
    assert.equal(lookUpCommitted(runtime.index, 'local:a'), null, 'a query processor sees commits only');
    await commits.commit(runtime);
    assert.deepEqual(lookUpDocument(runtime.index, 'local:a'), { ...staged, committed: true });
    assert.deepEqual(lookUpCommitted(runtime.index, 'local:a'), { ...staged, committed: true });
  });

  it('a staged replacement is read before the committed version, which a query processor keeps reading', async () => {
    fixture = await openRuntime();
    const { runtime, commits } = fixture;
    await stagePut(fixture, 'local:a', 'committed text');
    await commits.commit(runtime);
    await stagePut(fixture, 'local:a', 'staged text');
    const view = lookUpDocument(runtime.index, 'local:a');
    assert.equal(text(view?.pushContent.content), 'staged text');
    assert.equal(view?.committed, false);
    assert.equal(text(lookUpCommitted(runtime.index, 'local:a')?.pushContent.content), 'committed text');
  });

  it('a staged delete hides the committed document', async () => {
    fixture = await openRuntime();
    const { runtime, commits, stager } = fixture;
    await stagePut(fixture, 'local:a', 'committed text');
    await commits.commit(runtime);
    await stager.appendAndApply(runtime, { op: 'delete', key: 'local:a' }, null, () =>
      runtime.index.delete('local:a'),
    );
    assert.equal(lookUpDocument(runtime.index, 'local:a'), null);
    assert.equal(lookUpCommitted(runtime.index, 'local:a')?.committed, true);
  });

  it('every searcher taken is released, found or not', async () => {
    fixture = await openRuntime();
    const { runtime, commits } = fixture;
    await stagePut(fixture, 'local:a', 'text');
    await commits.commit(runtime);
    let taken = 0;
    let held = 0;
    const counted = {
      acquireSearcher(): Searcher {
        const searcher = runtime.index.acquireSearcher();
        taken++;
        held++;
        const release = searcher.release.bind(searcher);
        searcher.release = () => {
          held--;
          release();
        };
        return searcher;
      },
      stagedDocument: (key: string) => runtime.index.stagedDocument(key),
    };
    assert.notEqual(lookUpDocument(counted, 'local:a'), null);
    assert.equal(lookUpDocument(counted, 'local:b'), null);
    assert.notEqual(lookUpCommitted(counted, 'local:a'), null);
    assert.equal(lookUpCommitted(counted, 'local:b'), null);
    assert.equal(taken, 4, 'each lookup read the committed index');
    assert.equal(held, 0);
  });
});
