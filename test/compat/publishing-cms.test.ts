/**
 * The government publishing CMS's flow, replayed as that Java client sends it, through a real
 * server on loopback: a `client~name` collection, its production filter chain on every URL,
 * the "journal position" document read back with GET (absent at first: 200 with
 * `pushContent: null`), then PUT, GET and DELETE of pages, each answer read the way it reads it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH } from '../http/helpers.js';
import { docxFixture, MEDIA_TYPES } from '../support/binary-fixtures.js';
import { testServer, type TestServer } from '../support/test-server.js';

const C = 'govscot~ds-news-push';
const FILTERS =
  'TikaFilterProvider,ExternalFilterProvider:JSoupProcessingFilterProvider:DocumentFixerFilterProvider';
const POSITION_KEY = 'journal-position://govscot/ds-news';

describe('compat: the publishing CMS (client~name, filter chain on every URL, absent GET is 200 null)', () => {
  let server: TestServer;

  before(async () => {
    server = await testServer({ collections: [C] });
  });
  after(async () => {
    await server.dispose();
  });

  /** As the CMS builds every URL: the collection path, the key, and its filter chain. */
  const url = (key: string, version = 'v2') =>
    `${server.url}/push-api/${version}/collections/${C}/documents?key=${encodeURIComponent(key)}&filters=${encodeURIComponent(FILTERS)}`;
  const call = (
    method: string,
    key: string,
    body?: Buffer | string,
    contentType?: string,
    version?: string,
  ) =>
    fetch(url(key, version), {
      method,
      headers: {
        authorization: ADMIN_AUTH,
        ...(contentType === undefined ? {} : { 'content-type': contentType }),
      },
      ...(body === undefined ? {} : { body }),
    });

  it('reads its journal position: absent at first (200, pushContent null), then what it stored', async () => {
    for (const version of ['v1', 'v2']) {
      const absent = await call('GET', POSITION_KEY, undefined, undefined, version);
      assert.equal(absent.status, 200, 'any other status is an error for this client');
      const answer = (await absent.json()) as { pushContent: unknown };
      assert.equal(answer.pushContent, null);
    }
    const stored = await call('PUT', POSITION_KEY, '{"position": 1234}', 'application/json');
    assert.equal(stored.status, 200, await stored.text());
    const back = (await (await call('GET', POSITION_KEY)).json()) as {
      pushContent: { content: string; contentType: string };
    };
    assert.deepEqual(JSON.parse(Buffer.from(back.pushContent.content, 'base64').toString('utf8')), {
      position: 1234,
    });
  });

  it('PUTs pages and a Word attachment through its chain, finds them, DELETEs one', async () => {
    const page = await call(
      'PUT',
      'https://www.gov.scot/news/ferries/',
      '<html><head><title></title></head><body><h1>Ferry services resume</h1><p>Sailings to Arran restart on Monday.</p></body></html>',
      'text/html; charset=utf-8',
    );
    const pageBody = await page.text();
    assert.equal(page.status, 200, pageBody);
    assert.deepEqual((JSON.parse(pageBody) as { storedKeys: string[] }).storedKeys, [
      'https://www.gov.scot/news/ferries/',
    ]);
    const attachment = await call(
      'PUT',
      'https://www.gov.scot/binaries/ferry-report.docx',
      docxFixture({ title: 'Ferry review', paragraphs: ['Arran timetable consultation'] }),
      MEDIA_TYPES.docx,
    );
    assert.equal(attachment.status, 200, await attachment.text());
    const commit = await fetch(`${server.url}/push-api/v2/collections/${C}/commit`, {
      method: 'POST',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(commit.status, 200);
    const titles = async () => {
      const answer = (await (
        await fetch(`${server.url}/s/search.json?collection=${C}&query=arran`)
      ).json()) as {
        response: { resultPacket: { results: { title: string }[] } };
      };
      return answer.response.resultPacket.results.map((r) => r.title).sort();
    };
    // The empty <title> repaired by DocumentFixerFilterProvider; the docx read by TikaFilterProvider.
    assert.deepEqual(await titles(), ['Ferry review', 'Ferry services resume']);

    const deleted = await call('DELETE', 'https://www.gov.scot/news/ferries/');
    assert.equal(deleted.status, 200);
    const gone = (await (await call('GET', 'https://www.gov.scot/news/ferries/')).json()) as {
      pushContent: unknown;
    };
    assert.equal(gone.pushContent, null);
    await fetch(`${server.url}/push-api/v2/collections/${C}/commit`, {
      method: 'POST',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.deepEqual(await titles(), ['Ferry review']);
  });
});
