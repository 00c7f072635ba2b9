/**
 * `DocumentFixerFilterProvider` as the publishing CMS sends it on every URL: pages and PDFs
 * with useless or missing titles get a real one, and a PDF's creation date becomes the
 * result's date, so `sort=date` orders them. Through a real server on loopback.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH } from '../http/helpers.js';
import { pdfFixture } from '../support/binary-fixtures.js';
import { testServer, type TestServer } from '../support/test-server.js';

const C = 'govscot~ds-news-push';
const CHAIN =
  'TikaFilterProvider,ExternalFilterProvider:JSoupProcessingFilterProvider:DocumentFixerFilterProvider';

interface Result {
  title: string;
  liveUrl: string;
  date: string | null;
}

describe('compat: DocumentFixerFilterProvider repairs titles and dates', () => {
  let server: TestServer;

  before(async () => {
    server = await testServer({ collections: [C] });
  });
  after(async () => {
    await server.dispose();
  });

  async function push(key: string, body: Buffer | string, contentType: string, chain = CHAIN) {
    const put = await fetch(
      `${server.url}/push-api/v1/collections/${C}/documents?key=${encodeURIComponent(key)}&filters=${encodeURIComponent(chain)}`,
      { method: 'PUT', headers: { authorization: ADMIN_AUTH, 'content-type': contentType }, body },
    );
    assert.equal(put.status, 200, await put.text());
  }

  async function search(query: string, sort?: string): Promise<Result[]> {
    const answer = await fetch(
      `${server.url}/s/search.json?collection=${encodeURIComponent(C)}&query=${query}${sort === undefined ? '' : `&sort=${sort}`}`,
    );
    assert.equal(answer.status, 200);
    return ((await answer.json()) as { response: { resultPacket: { results: Result[] } } }).response
      .resultPacket.results;
  }

  it('titles an untitled page by its heading and an untitled PDF by its text, and dates the PDFs', async () => {
    await push(
      'https://www.gov.example/news/ferries',
      '<title>Untitled Document</title><nav>Skip to content</nav><h1>Ferry timetable changes</h1><p>Winter sailings to Orkney.</p>',
      'text/html',
    );
    await push(
      'https://www.gov.example/files/orkney-ferry-review_2024.pdf',
      pdfFixture({ created: "D:20240315093000+01'00'", pages: ['Ferry review for Orkney', 'Sailings data'] }),
      'application/pdf',
    );
    await push(
      'https://www.gov.example/files/older-ferry-note.pdf',
      pdfFixture({ title: 'Untitled', created: 'D:20190102', pages: ['Orkney ferry note'] }),
      'application/pdf',
    );
    // The same page without the fixer keeps its useless title: the repair is the fixer's.
    await push(
      'https://www.gov.example/news/ferries-raw',
      '<title>Untitled Document</title><h1>Raw ferry page</h1><p>Orkney</p>',
      'text/html',
      'JSoupProcessingFilterProvider',
    );
    const commit = await fetch(`${server.url}/push-api/v1/collections/${C}/commit`, {
      method: 'POST',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(commit.status, 200, await commit.text());

    const byUrl = new Map((await search('orkney')).map((r) => [r.liveUrl, r]));
    assert.equal(byUrl.get('https://www.gov.example/news/ferries')?.title, 'Ferry timetable changes');
    assert.equal(
      byUrl.get('https://www.gov.example/files/orkney-ferry-review_2024.pdf')?.title,
      'Ferry review for Orkney',
    );
    assert.equal(byUrl.get('https://www.gov.example/files/older-ferry-note.pdf')?.title, 'Orkney ferry note');
    assert.equal(byUrl.get('https://www.gov.example/news/ferries-raw')?.title, 'Untitled Document');

    // The PDFs' creation dates, written as ISO 8601, are the results' dates (default metamap d,0,date).
    assert.equal(
      byUrl.get('https://www.gov.example/files/orkney-ferry-review_2024.pdf')?.date,
      '2024-03-15T08:30:00Z',
    );
    assert.equal(byUrl.get('https://www.gov.example/files/older-ferry-note.pdf')?.date, '2019-01-02');
    const newestFirst = (await search('orkney', 'date')).map((r) => r.liveUrl);
    assert.deepEqual(newestFirst.slice(0, 2), [
      'https://www.gov.example/files/orkney-ferry-review_2024.pdf',
      'https://www.gov.example/files/older-ferry-note.pdf',
    ]);
  });
});
