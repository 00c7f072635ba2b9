/**
 * Configuration files written on disk change what a push does: `filter.classes` in
 * conf/{c}/collection.cfg picks the filter chain of every pushed document, and conf/{c}/xml.cfg
 * maps XML elements and attributes to metadata classes. Checked through what a user sees: the
 * push answer, GET of the document, and /s/search.json (titles, words, `class:word`).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { VacuumProgress } from '../../src/client/types.js';
import type { SearchResponse } from '../../src/search/search-service.js';
import { errorOf } from '../support/response-body.js';
import {
  VERSIONS,
  addCollectionCfg,
  commit,
  contentOf,
  getDocument,
  keyQuery,
  putDocument,
  route,
  state,
  type TestApp,
  isAbsent,
  pushedOf,
  appPerTest,
} from './helpers.js';
import { searchJson } from '../search-http/helpers.js';

/** A page sent as text/plain although it is HTML; `zqmarkup` and `zqattr` appear only inside tags. */
const HTML_AS_TEXT =
  '<html><head><title>Quarterly zephyr report</title></head>' +
  '<body><div class="zqmarkup" id="zqattr">plainword appears in the body</div></body></html>';

/** Writes a configuration file of a collection (read when the collection starts). */
function writeConf(home: string, collection: string, file: string, lines: string[]): void {
  writeFileSync(join(home, 'conf', collection, file), lines.join('\n') + '\n');
}

async function search(
  t: TestApp,
  collection: string,
  query: string,
): Promise<SearchResponse['response']['resultPacket']> {
  return (await searchJson(t.app, { collection, query, num_ranks: '100' })).response.resultPacket;
}

/** Asserts that `query` finds exactly the documents `keys` (in any order); returns the results. */
async function expectHits(t: TestApp, collection: string, query: string, keys: string[]) {
  const packet = await search(t, collection, query);
  assert.deepEqual(packet.results.map((r) => r.liveUrl).sort(), [...keys].sort(), `${collection}: ${query}`);
  assert.equal(packet.resultsSummary.totalMatching, keys.length, `${collection}: ${query}`);
  return packet.results;
}

for (const v of VERSIONS) {
  describe(`push API ${v}: filter.classes in collection.cfg`, () => {
    const openApp = appPerTest();

    it('filter.classes=Html reads a text/plain PUT as HTML (its <title> is the result title, tags are no words); the default chain does not', async () => {
      const t = await openApp(['forced', 'plain']);
      addCollectionCfg(t.home, 'forced', ['filter.classes=Html']);
      const key = 'http://example.com/report';
      for (const c of ['forced', 'plain']) {
        const put = await putDocument(t.app, v, c, key, HTML_AS_TEXT, { 'content-type': 'text/plain' });
        assert.equal(put.statusCode, 200, put.body);
        assert.equal((await commit(t.app, v, c)).statusCode, 200);
      }

      // HTML filter: the title comes from <title>, the markup is not text.
      const [forced] = await expectHits(t, 'forced', 'plainword', [key]);
      assert.equal(forced!.title, 'Quarterly zephyr report');
      await expectHits(t, 'forced', 'zqmarkup', []);
      await expectHits(t, 'forced', 'zqattr', []);
      await expectHits(t, 'forced', 'div', []);

      // Default chain, chosen by content type: text/plain is plain text, markup and all.
      const [plain] = await expectHits(t, 'plain', 'plainword', [key]);
      assert.equal(plain!.title, key, 'no title: the result title is the key');
      await expectHits(t, 'plain', 'zqmarkup', [key]);
      await expectHits(t, 'plain', 'zqattr', [key]);

      // The filter changes what is indexed, never what is stored.
      for (const c of ['forced', 'plain']) {
        const got = await getDocument(t.app, v, c, key);
        assert.equal(contentOf(got), HTML_AS_TEXT);
        assert.equal(pushedOf(got).contentType, 'text/plain');
      }
    });

    it('filter.classes that cannot read the document (Xml on non-XML, Json on non-JSON) refuses the PUT with 400 FILTER_FAILED and stores nothing', async () => {
      const t = await openApp(['xml', 'json']);
      addCollectionCfg(t.home, 'xml', ['filter.classes=Xml']);
      addCollectionCfg(t.home, 'json', ['filter.classes=Json']);
      const cases = [
        { c: 'xml', filter: /Xml filter/, body: 'just some words, no XML at all' },
        // An explicit Xml ignores the content type but still needs the declaration.
        {
          c: 'xml',
          filter: /Xml filter/,
          body: '<record><title>no declaration</title></record>',
          type: 'application/xml',
        },
        { c: 'json', filter: /Json filter/, body: 'not { json' },
      ];
      for (const [i, { c, filter, body, type }] of cases.entries()) {
        const key = `local:refused-${i}`;
        const put = await putDocument(t.app, v, c, key, body, { 'content-type': type ?? 'text/plain' });
        assert.equal(put.statusCode, 400, `${c} ${i}: ${put.body}`);
        assert.equal(errorOf(put).error, 'FILTER_FAILED');
        assert.match(errorOf(put).message, filter);
        const got = await getDocument(t.app, v, c, key);
        assert.ok(isAbsent(got), `${c} ${i}: refused, so not stored`);
      }
      for (const c of ['xml', 'json']) {
        assert.equal((await state(t.app, v, c)).json().stagedChanges, 0, `${c}: nothing staged`);
        const committed = await commit(t.app, v, c);
        assert.equal(committed.json().changes, 0);
        assert.equal((await state(t.app, v, c)).json().documents, 0);
      }
      await expectHits(t, 'xml', 'words', []);

      // Documents the chain can read are taken, and the request's `filters` replaces filter.classes.
      const xml = await putDocument(
        t.app,
        v,
        'xml',
        'local:ok',
        '<?xml version="1.0"?><r>readable words</r>',
        {
          'content-type': 'text/plain',
        },
      );
      assert.equal(xml.statusCode, 200, xml.body);
      const overridden = await t.app.inject({
        method: 'PUT',
        url: route(v, 'xml', `/documents${keyQuery('local:override', { filters: 'PlainText' })}`),
        headers: { 'content-type': 'text/plain' },
        payload: 'plain words pushed with filters=PlainText',
      });
      assert.equal(overridden.statusCode, 200, overridden.body);
      assert.equal((await commit(t.app, v, 'xml')).statusCode, 200);
      await expectHits(t, 'xml', 'words', ['local:ok', 'local:override']);
    });
  });

  describe(`push API ${v}: xml.cfg`, () => {
    const openApp = appPerTest();

    const RECORD =
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<record code="zx9">\n' +
      '  <headline>Nebula survey results</headline>\n' +
      '  <author>Grace Hopper</author>\n' +
      '  <body>telescope observations of the nebula</body>\n' +
      '</record>\n';

    it('maps XML fields to metadata classes: class:word finds the document by its mapped field, listMetadata shows the values', async () => {
      const t = await openApp(['c']);
      writeConf(t.home, 'c', 'xml.cfg', [
        'PADRE XML Mapping Version: 2',
        'author,0,,/record/author',
        't,1,,/record/headline',
        'code,0,,/record/@code',
      ]);
      const key = 'http://example.com/records/1';
      const put = await putDocument(t.app, v, 'c', key, RECORD, { 'content-type': 'application/xml' });
      assert.equal(put.statusCode, 200, put.body);
      // Another record, so that a class query that ignored the class would show it.
      const other = RECORD.replace('Grace Hopper', 'Ada Lovelace')
        .replace('zx9', 'zx8')
        .replace('telescope', 'hopper');
      assert.equal(
        (
          await putDocument(t.app, v, 'c', 'http://example.com/records/2', other, {
            'content-type': 'text/xml',
          })
        ).statusCode,
        200,
      );
      assert.equal((await commit(t.app, v, 'c')).statusCode, 200);

      const [hit] = await expectHits(t, 'c', 'author:hopper', [key]);
      assert.deepEqual(hit!.listMetadata.author, ['Grace Hopper']);
      assert.deepEqual(hit!.listMetadata.code, ['zx9']);
      assert.equal(hit!.title, 'Nebula survey results', 'class t is the title');
      await expectHits(t, 'c', 'author:"grace hopper"', [key]);
      await expectHits(t, 'c', 'code:zx9', [key]);
      await expectHits(t, 'c', 'author:lovelace', ['http://example.com/records/2']);
      // The word is in both documents, but in the author field of only one.
      await expectHits(t, 'c', 'hopper', [key, 'http://example.com/records/2']);
      await expectHits(t, 'c', 'author:telescope', []);
    });

    it('an XML document without the declaration: the default chain reads it as plain text (no mapping), filters=Xml refuses it and stores nothing', async () => {
      const t = await openApp(['c']);
      writeConf(t.home, 'c', 'xml.cfg', ['PADRE XML Mapping Version: 2', 'author,0,,/record/author']);
      const noDeclaration = '<record><author>Grace Hopper</author><body>undeclared record</body></record>';

      const refused = await t.app.inject({
        method: 'PUT',
        url: route(v, 'c', `/documents${keyQuery('local:refused', { filters: 'Xml' })}`),
        headers: { 'content-type': 'application/xml' },
        payload: noDeclaration,
      });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(errorOf(refused).error, 'FILTER_FAILED');
      assert.match(errorOf(refused).message, /declaration/);
      assert.ok(isAbsent(await getDocument(t.app, v, 'c', 'local:refused')));

      const plain = await putDocument(t.app, v, 'c', 'local:plain', noDeclaration, {
        'content-type': 'application/xml',
      });
      assert.equal(plain.statusCode, 200, plain.body);
      assert.equal((await commit(t.app, v, 'c')).json().changes, 1);
      const [hit] = await expectHits(t, 'c', 'undeclared', ['local:plain']);
      assert.equal(hit!.listMetadata.author, undefined, 'not read as XML: no mapped metadata');
      await expectHits(t, 'c', 'author:hopper', []);
      // Read as text: the element names are words.
      await expectHits(t, 'c', 'record', ['local:plain']);
    });

    it('a mapping added to xml.cfg later applies to stored documents after a RE_INDEX vacuum', async () => {
      const t = await openApp(['c']);
      writeConf(t.home, 'c', 'xml.cfg', ['PADRE XML Mapping Version: 2', 'author,0,,/record/author']);
      const key = 'http://example.com/records/1';
      assert.equal(
        (await putDocument(t.app, v, 'c', key, RECORD, { 'content-type': 'application/xml' })).statusCode,
        200,
      );
      assert.equal((await commit(t.app, v, 'c')).statusCode, 200);
      await expectHits(t, 'c', 'author:hopper', [key]);
      await expectHits(t, 'c', 'headline:nebula', []);

      writeConf(t.home, 'c', 'xml.cfg', [
        'PADRE XML Mapping Version: 2',
        'author,0,,/record/author',
        'headline,0,,/record/headline',
      ]);
      const vacuum = await t.app.inject({
        method: 'POST',
        url: route(v, 'c', '/vacuum?vacuum-type=RE_INDEX'),
      });
      assert.equal(vacuum.statusCode, 200, vacuum.body);
      assert.equal(vacuum.json<VacuumProgress>().state, 'DONE');
      const [hit] = await expectHits(t, 'c', 'headline:nebula', [key]);
      assert.deepEqual(hit!.listMetadata.headline, ['Nebula survey results']);
      await expectHits(t, 'c', 'author:hopper', [key]);
    });
  });
}

describe('indexer_options in collection.cfg', () => {
  const openApp = appPerTest();

  /** A collection (stemming on, the default) holding "the runners were running", then `-stem=0` written to collection.cfg. */
  async function stemmedThenChanged(): Promise<TestApp> {
    const t = await openApp(['c']);
    assert.equal(
      (await putDocument(t.app, 'v1', 'c', 'local:a', 'the runners were running')).statusCode,
      200,
    );
    assert.equal((await commit(t.app, 'v1', 'c')).statusCode, 200);
    await expectHits(t, 'c', 'run', ['local:a']); // stemming is on by default
    await expectHits(t, 'c', 'running', ['local:a']);
    addCollectionCfg(t.home, 'c', ['indexer_options=-stem=0']);
    return t;
  }

  // An indexer_options change applies through a RE_INDEX (the spec's rule for index
  // configuration): until then the index keeps analysing, and queries keep being analysed, the
  // way its documents were indexed (the analysis is recorded in every manifest).
  it('after indexer_options changes and before the RE_INDEX, searches still find the words documents contain', async () => {
    const t = await stemmedThenChanged();
    await expectHits(t, 'c', 'running', ['local:a']);
    await expectHits(t, 'c', 'runners', ['local:a']);
    // A document pushed now is analysed like the others, not half-way to the new options.
    assert.equal((await putDocument(t.app, 'v1', 'c', 'local:b', 'jumping jumpers')).statusCode, 200);
    assert.equal((await commit(t.app, 'v1', 'c')).statusCode, 200);
    await expectHits(t, 'c', 'jump', ['local:b']);
  });

  it('the analysis the index was built with survives a restart before the RE_INDEX', async () => {
    const t = await stemmedThenChanged();
    const stop = await t.app.inject({ method: 'POST', url: route('v1', 'c', '/state/stop') });
    assert.equal(stop.statusCode, 200, stop.body);
    await expectHits(t, 'c', 'running', ['local:a']);
    await expectHits(t, 'c', 'run', ['local:a']);
  });

  it('-stem=0 written to indexer_options takes effect with a RE_INDEX vacuum of the running collection, and stays after a restart', async () => {
    const t = await stemmedThenChanged();
    // Staged before the vacuum: committed under the old analysis, then re-indexed with the rest.
    assert.equal((await putDocument(t.app, 'v1', 'c', 'local:b', 'jumping jumpers')).statusCode, 200);
    const vacuum = await t.app.inject({
      method: 'POST',
      url: route('v1', 'c', '/vacuum?vacuum-type=RE_INDEX'),
    });
    assert.equal(vacuum.statusCode, 200, vacuum.body);
    assert.equal(vacuum.json<VacuumProgress>().state, 'DONE');
    assert.equal(vacuum.json<VacuumProgress>().done, 2);
    await expectHits(t, 'c', 'run', []);
    await expectHits(t, 'c', 'jump', []);
    await expectHits(t, 'c', 'running', ['local:a']);
    await expectHits(t, 'c', 'jumping', ['local:b']);
    const stop = await t.app.inject({ method: 'POST', url: route('v1', 'c', '/state/stop') });
    assert.equal(stop.statusCode, 200, stop.body);
    await expectHits(t, 'c', 'run', []);
    await expectHits(t, 'c', 'running', ['local:a']);
    // And new documents are analysed the new way too.
    assert.equal((await putDocument(t.app, 'v1', 'c', 'local:c', 'walking walkers')).statusCode, 200);
    assert.equal((await commit(t.app, 'v1', 'c')).statusCode, 200);
    await expectHits(t, 'c', 'walk', []);
    await expectHits(t, 'c', 'walking', ['local:c']);
  });

  it('while that RE_INDEX runs, searches keep the old analysis: the re-indexed documents are published together at its end', async () => {
    const t = await openApp(['c']);
    const count = 1500;
    for (let i = 0; i < count; i++) {
      assert.equal(
        (await putDocument(t.app, 'v1', 'c', `local:${i}`, `the runners were running ${i}`)).statusCode,
        200,
      );
    }
    assert.equal((await commit(t.app, 'v1', 'c')).statusCode, 200);
    addCollectionCfg(t.home, 'c', ['indexer_options=-stem=0']);
    const started = await t.app.inject({
      method: 'POST',
      url: route('v1', 'c', '/vacuum?vacuum-type=RE_INDEX&wait=false'),
    });
    assert.equal(started.statusCode, 202, started.body);
    let seenRunning = 0;
    for (;;) {
      const { vacuum } = (await state(t.app, 'v1', 'c')).json();
      assert.ok(vacuum !== undefined, 'the state shows the vacuum');
      // "running" is "run" the old way, which every published document holds until the end.
      const total = (await search(t, 'c', 'running')).resultsSummary.totalMatching;
      if (vacuum.state !== 'RUNNING') break;
      seenRunning++;
      assert.equal(total, count, 'a search during the RE_INDEX finds every document');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await expectHits(t, 'c', 'run', []);
    assert.equal((await search(t, 'c', 'running')).resultsSummary.totalMatching, count);
    assert.ok(seenRunning > 0, 'searched at least once while the RE_INDEX ran');
  });
});
