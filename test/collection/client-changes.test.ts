/**
 * A client's changes on a real index over the in-memory journal: what a put, a delete and a
 * redirect become in the journal and in the index, a put its filters refuse leaving nothing
 * behind, and auto-commit told of every staged change.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { decodeChange, type ChangeRecord } from '../../src/collection/change-record.js';
import { ClientChanges, putChangeOf } from '../../src/collection/client-changes.js';
import { lookUpDocument } from '../../src/collection/document-lookup.js';
import { RECEIVED_TIME_METADATA } from '../../src/collection/received-time.js';
import { pdfFixture } from '../support/binary-fixtures.js';
import { openRuntime, type RuntimeFixture } from './runtime-fixture.js';

describe('putChangeOf', () => {
  const received = new Date('2026-03-04T05:06:07.089Z');

  it('records the received time in the metadata, replacing a value the client sent for it', () => {
    const metadata = { author: ['ann'], [RECEIVED_TIME_METADATA]: ['19990101000000.000Z'] };
    const change = putChangeOf(
      'local:k',
      { content: Buffer.from('x'), contentType: 'text/plain', metadata },
      received,
    );
    assert.equal(change.receivedTime, '20260304050607.089Z');
    assert.deepEqual(change.metadata, { author: ['ann'], [RECEIVED_TIME_METADATA]: ['20260304050607.089Z'] });
    assert.deepEqual(
      metadata[RECEIVED_TIME_METADATA],
      ['19990101000000.000Z'],
      "the client's object is not changed",
    );
  });

  it("an empty filter chain is recorded as none (collection.cfg's applies); a named one is kept", () => {
    const input = { content: Buffer.from('x'), contentType: 'text/plain', metadata: {} };
    assert.equal(putChangeOf('local:k', { ...input, filters: '' }, received).filters, undefined);
    assert.equal(putChangeOf('local:k', input, received).filters, undefined);
    assert.equal(putChangeOf('local:k', { ...input, filters: 'Xml' }, received).filters, 'Xml');
  });
});

describe('ClientChanges', () => {
  let fixture: RuntimeFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  async function open(cfg: string[] = []): Promise<{ fixture: RuntimeFixture; changes: ClientChanges }> {
    fixture = await openRuntime(cfg);
    return { fixture, changes: new ClientChanges(fixture.stager, fixture.commits) };
  }

  /** The changes the journal holds (durable, not yet released by a commit). */
  const journaled = (fixture: RuntimeFixture): ChangeRecord[] =>
    fixture.store.records.map((record) => decodeChange(record.payload));

  const text = (body: string, metadata: Record<string, string[]> = {}) => ({
    content: Buffer.from(body),
    contentType: 'text/plain',
    metadata,
  });

  it('a put is durable in the journal with its received time, and staged as pushed', async () => {
    const { fixture, changes } = await open();
    await changes.put(fixture.runtime, 'local:a', text('hello', { author: ['ann'] }));
    const [change] = journaled(fixture);
    assert.ok(change?.op === 'put', JSON.stringify(change));
    assert.equal(change.key, 'local:a');
    assert.equal(Buffer.from(change.content).toString(), 'hello');
    assert.match(change.receivedTime, /^\d{14}\.\d{3}Z$/);
    assert.deepEqual(change.metadata, { author: ['ann'], [RECEIVED_TIME_METADATA]: [change.receivedTime] });
    assert.equal(change.extracted, undefined, 'a text document has nothing extracted');
    const view = lookUpDocument(fixture.runtime.index, 'local:a');
    assert.equal(view?.committed, false);
    assert.deepEqual(view.pushContent.metadata, change.metadata);
    assert.equal(view.pushContent.receivedTime, change.receivedTime);
  });

  it('a put its filters refuse is thrown with nothing journaled or staged', async () => {
    const { fixture, changes } = await open();
    await assert.rejects(
      changes.put(fixture.runtime, 'local:bad', {
        ...text('<?xml version="1.0"?><doc><a></doc>'),
        contentType: 'application/xml',
        filters: 'Xml',
      }),
      /malformed XML/,
    );
    assert.equal(fixture.store.records.length, 0);
    assert.equal(fixture.runtime.index.stagedDocument('local:bad'), undefined);
    await changes.put(fixture.runtime, 'local:good', text('fine'));
    assert.equal(fixture.runtime.appliedSeq, 1, 'the refused put took no sequence number');
  });

  it("a PDF's extracted text is journaled with the put, so a replay does not extract it again", async () => {
    const { fixture, changes } = await open();
    const pdf = pdfFixture({ title: 'Annual report', pages: ['Revenue grew in the third quarter'] });
    await changes.put(fixture.runtime, 'local:report.pdf', {
      content: pdf,
      contentType: 'application/pdf',
      metadata: {},
      filters: 'TikaFilterProvider',
    });
    const [change] = journaled(fixture);
    assert.ok(change?.op === 'put', JSON.stringify(change));
    assert.match(change.extracted ?? '', /Revenue grew in the third quarter/);
  });

  it('a delete is journaled and staged as absent', async () => {
    const { fixture, changes } = await open();
    await changes.put(fixture.runtime, 'local:gone', text('soon gone'));
    await changes.delete(fixture.runtime, 'local:gone');
    assert.deepEqual(journaled(fixture)[1], { op: 'delete', key: 'local:gone' });
    assert.equal(fixture.runtime.index.stagedDocument('local:gone'), null);
    assert.equal(lookUpDocument(fixture.runtime.index, 'local:gone'), null);
  });

  it('a redirect is journaled and staged as a redirect to its target', async () => {
    const { fixture, changes } = await open();
    await changes.redirect(fixture.runtime, 'local:old', 'local:new');
    assert.deepEqual(journaled(fixture), [{ op: 'redirect', key: 'local:old', target: 'local:new' }]);
    assert.equal(lookUpDocument(fixture.runtime.index, 'local:old')?.redirect, 'local:new');
  });

  it('every staged change counts toward push.auto-commit.max-changes', async () => {
    const { fixture, changes } = await open(['push.auto-commit.max-changes=3']);
    const { runtime } = fixture;
    await changes.put(runtime, 'local:1', text('one'));
    await changes.redirect(runtime, 'local:2', 'local:1');
    assert.equal(runtime.commitsInFlight.size, 0, 'two changes are below the count');
    await changes.delete(runtime, 'local:3');
    assert.equal(runtime.commitsInFlight.size, 1, 'the third change starts a commit');
    await Promise.all([...runtime.commitsInFlight]);
    assert.equal(runtime.index.stagedChanges, 0);
    assert.equal(runtime.index.lastCommit.journalSeq, 3);
  });
});
