import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  commit,
  getDocument,
  isAbsent,
  keyQuery,
  route,
  VERSIONS,
  testApp,
  type TestApp,
} from '../http/helpers.js';
import {
  docxFixture,
  MEDIA_TYPES,
  pdfFixture,
  pptxFixture,
  xlsxFixture,
} from '../support/binary-fixtures.js';

/** The production filter chain of the publishing CMS, sent on every URL. */
const CMS_CHAIN =
  'TikaFilterProvider,ExternalFilterProvider:JSoupProcessingFilterProvider:DocumentFixerFilterProvider';

interface Result {
  title: string;
  liveUrl: string;
  summary: string;
}

describe('binary documents (TikaFilterProvider): PDF, docx, xlsx, pptx', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp(['docs']);
  });
  after(() => t.close());

  const put = (v: string, key: string, body: Buffer, contentType: string, chain?: string) =>
    t.app.inject({
      method: 'PUT',
      url: route(v, 'docs', `/documents${keyQuery(key, chain === undefined ? {} : { filters: chain })}`),
      headers: { 'content-type': contentType },
      payload: body,
    });
  const search = async (query: string): Promise<Result[]> => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/s/search.json?collection=docs&query=${query}`,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ response: { resultPacket: { results: Result[] } } }>().response.resultPacket
      .results;
  };

  const fixtures = [
    {
      kind: 'pdf',
      body: pdfFixture({
        title: 'Pharmacy rota',
        author: 'NHS',
        pages: ['Open late on Thursdays', 'Closed on Sundays'],
      }),
      words: ['thursdays', 'sundays'],
      title: 'Pharmacy rota',
    },
    {
      kind: 'docx',
      body: docxFixture({
        title: 'Ferry report',
        author: 'Ann',
        paragraphs: ['Sailings to Orkney', 'Delays in winter'],
      }),
      words: ['orkney', 'winter'],
      title: 'Ferry report',
    },
    {
      kind: 'xlsx',
      body: xlsxFixture({
        title: 'Budget sheet',
        strings: ['Lighthouse maintenance', 'Harbour dredging'],
        numbers: [31415],
      }),
      words: ['lighthouse', 'dredging', '31415'],
      title: 'Budget sheet',
    },
    {
      kind: 'pptx',
      body: pptxFixture({
        title: 'Quarterly briefing',
        slides: [['Renewable targets'], ['Offshore turbines', 'Grid upgrades']],
      }),
      words: ['renewable', 'turbines', 'grid'],
      title: 'Quarterly briefing',
    },
  ] as const;

  it('extracts text and title with the CMS chain and with the default chain; GET returns the bytes as pushed', async () => {
    for (const v of VERSIONS)
      for (const fixture of fixtures) {
        const media = MEDIA_TYPES[fixture.kind];
        const cmsKey = `https://files.example/${v}/cms/${fixture.kind}`;
        const stored = await put(v, cmsKey, fixture.body, media, CMS_CHAIN);
        assert.equal(stored.statusCode, 200, `${fixture.kind}: ${stored.body}`);
        // No filters parameter, and a generic type: the key's extension (or %PDF-) says what it is.
        const autoKey = `https://files.example/${v}/auto/file.${fixture.kind}`;
        const auto = await put(v, autoKey, fixture.body, 'application/octet-stream');
        assert.equal(auto.statusCode, 200, `${fixture.kind}: ${auto.body}`);
        const got = await getDocument(t.app, v, 'docs', cmsKey);
        const content = got.json<{ pushContent: { content: string } }>().pushContent.content;
        assert.deepEqual(
          Buffer.from(content, 'base64'),
          fixture.body,
          'the pushed bytes, not the extraction',
        );
      }
    assert.equal((await commit(t.app, 'v1', 'docs')).statusCode, 200);
    for (const fixture of fixtures)
      for (const word of fixture.words) {
        const results = await search(word);
        assert.equal(results.length, 4, `${fixture.kind} "${word}": ${JSON.stringify(results)}`);
        assert.ok(
          results.every((r) => r.title === fixture.title),
          JSON.stringify(results),
        );
      }
  });

  it('a file that cannot be read fails its request with FILTER_FAILED naming the filter, and stores nothing', async () => {
    const broken: [string, Buffer, string][] = [
      ['pdf', Buffer.from('%PDF-1.4 this is no PDF at all'), MEDIA_TYPES.pdf],
      ['pdf', pdfFixture({ pages: ['x'] }).subarray(0, 60), MEDIA_TYPES.pdf],
      ['docx', Buffer.from('PK\u0003\u0004 not really a zip'), MEDIA_TYPES.docx],
      ['docx', pptxFixture({ slides: [['a slide, not a document']] }), MEDIA_TYPES.docx],
      ['xlsx', Buffer.from('plain text claiming to be a workbook'), MEDIA_TYPES.xlsx],
    ];
    for (const [i, [kind, body, media]] of broken.entries()) {
      const key = `https://files.example/broken/${i}`;
      const response = await put('v2', key, body, media, CMS_CHAIN);
      assert.equal(response.statusCode, 400, `${kind} ${i}: ${response.body}`);
      const error = response.json<{ error: string; message: string }>();
      assert.equal(error.error, 'FILTER_FAILED');
      assert.match(error.message, /TikaFilterProvider/);
      assert.match(error.message, new RegExp(kind.toUpperCase()));
      assert.ok(isAbsent(await getDocument(t.app, 'v2', 'docs', key)), `${kind} ${i} stored nothing`);
    }
    // A filter of ours asked for explicitly is not Tika: the PDF is read as text (no extraction).
    const plain = await put(
      'v2',
      'https://files.example/plain',
      Buffer.from('%PDF-1.4 x'),
      MEDIA_TYPES.pdf,
      'PlainText',
    );
    assert.equal(plain.statusCode, 200, plain.body);
  });

  it('ExternalFilterProvider is skipped with one push.log note; an unknown filter name is a 400', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await put(
        'v1',
        `https://files.example/page-${i}`,
        Buffer.from('<p>page</p>'),
        'text/html',
        CMS_CHAIN,
      );
      assert.equal(response.statusCode, 200, response.body);
    }
    const notes = readFileSync(join(t.home, 'web', 'log', 'push.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('ExternalFilterProvider'));
    assert.equal(notes.length, 1, notes.join('\n'));
    assert.match(notes[0]!, /no external filter program/);
    assert.match(notes[0]!, /"collection":"docs"/);
    const unknown = await put(
      'v1',
      'https://files.example/x',
      Buffer.from('x'),
      'text/plain',
      'TikaFilterProvider:NoSuchFilterProvider',
    );
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json<{ error: string }>().error, 'FILTER_UNKNOWN');
  });

  it('extracted text survives a restart before the commit (journal replay) and a RE_INDEX vacuum', async () => {
    const key = 'https://files.example/replayed.pdf';
    const response = await put(
      'v1',
      key,
      pdfFixture({ title: 'Tide tables', pages: ['Spring tides at Leith'] }),
      MEDIA_TYPES.pdf,
      CMS_CHAIN,
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: route('v1', 'docs', '/state/stop') })).statusCode,
      200,
    );
    assert.equal((await commit(t.app, 'v1', 'docs')).statusCode, 200);
    assert.deepEqual(
      (await search('leith')).map((r) => r.title),
      ['Tide tables'],
    );
    const vacuum = await t.app.inject({
      method: 'POST',
      url: route('v1', 'docs', '/vacuum?vacuum-type=RE_INDEX&wait=true'),
    });
    assert.equal(vacuum.statusCode, 200, vacuum.body);
    assert.deepEqual(
      (await search('leith')).map((r) => r.title),
      ['Tide tables'],
    );
    assert.equal((await search('thursdays')).length, 4);
  });
});
