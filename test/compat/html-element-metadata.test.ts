/**
 * metamap.cfg `<name>` sources as the original reads them: the text of HTML element `name`
 * (`t,1,<h1>`), while a `<meta name>` tag is mapped by its plain name, like pushed metadata.
 * Real HTML pushed through a real server on loopback, then searched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH } from '../http/helpers.js';
import { testServer, type TestServer } from '../support/test-server.js';

const C = 'site~pages';

const PAGE = `<!doctype html>
<html><head>
  <title>Example Council | Home</title>
  <meta name="author" content="Ann Author">
  <meta name="description" content="Bins, roads and parking">
</head><body>
  <nav>Skip to content</nav>
  <h1>Bin collection days</h1>
  <p>Your bin is collected every week.</p>
  <h2>Recycling</h2><p>Blue bins are emptied on Mondays.</p>
  <h2>Garden <em>waste</em></h2><p>Brown bins need a permit.</p>
</body></html>`;

interface Result {
  title: string;
  liveUrl: string;
  metaData: Record<string, string>;
}

describe('compat: metamap.cfg <element> sources and plain meta names', () => {
  let server: TestServer;

  before(async () => {
    server = await testServer({ collections: [C] });
  });
  after(async () => {
    await server.dispose();
  });

  function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: ADMIN_AUTH,
        ...(body === undefined || typeof body === 'string' ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  }

  async function search(query: string): Promise<Result[]> {
    const answer = await fetch(
      `${server.url}/s/search.json?collection=${encodeURIComponent(C)}&query=${encodeURIComponent(query)}`,
    );
    assert.equal(answer.status, 200, await answer.clone().text());
    const body = (await answer.json()) as { response: { resultPacket: { results: Result[] } } };
    return body.response.resultPacket.results;
  }

  it('refuses a <dc.title> source with a message saying how a meta tag is mapped, and writes nothing', async () => {
    const refused = await api('PUT', `/admin-api/v1/collections/${C}/config`, {
      files: { 'metamap.cfg': 't,1,<h1>\nt,1,<dc.title>\n' },
    });
    assert.equal(refused.status, 400);
    const error = (await refused.json()) as { error: string; message: string };
    assert.equal(error.error, 'CONFIG_INVALID');
    assert.match(error.message, /metamap\.cfg.*line 2/);
    assert.match(error.message, /plain name: dc\.title/);
    const files = (await (await api('GET', `/admin-api/v1/collections/${C}/config`)).json()) as {
      files: Record<string, string | null>;
    };
    assert.doesNotMatch(files.files['metamap.cfg'] ?? '', /dc\.title>/);
  });

  it('maps <h1> to the title, <h2> to a class (one value each), and plain names to meta tags and pushed metadata', async () => {
    const config = await api('PUT', `/admin-api/v1/collections/${C}/config`, {
      files: {
        'metamap.cfg': [
          't,1,<h1>',
          'section,1,<h2>',
          'a,1,author',
          'c,0,description',
          'dept,0,department',
        ].join('\n'),
        'collection.cfg': 'collection_type=push\nquery_processor_options=-SM=both -SF=[t,section,a,c,dept]\n',
      },
    });
    assert.equal(config.status, 200, await config.text());

    const key = 'https://council.example/bins';
    const put = await api(
      'PUT',
      `/push-api/v1/collections/${C}/documents?key=${encodeURIComponent(key)}`,
      PAGE,
      {
        'content-type': 'text/html; charset=utf-8',
        'X-Funnelback-Push-Meta-Data-department': 'Environment',
        // The same value as the page's meta tag: the class holds it once.
        'X-Funnelback-Push-Meta-Data-author': 'Ann Author',
      },
    );
    assert.equal(put.status, 200, await put.text());
    const commit = await api('POST', `/push-api/v1/collections/${C}/commit`);
    assert.equal(commit.status, 200, await commit.text());

    const [result] = await search('bins');
    assert.ok(result !== undefined, 'the page is found');
    assert.equal(result.liveUrl, key);
    // The <h1>, not the <title>: t,1,<h1> names the result as the original does.
    assert.equal(result.title, 'Bin collection days');
    assert.equal(result.metaData.t, 'Bin collection days');
    assert.equal(result.metaData.section, 'Recycling|Garden waste');
    assert.equal(result.metaData.a, 'Ann Author');
    assert.equal(result.metaData.c, 'Bins, roads and parking');
    assert.equal(result.metaData.dept, 'Environment');

    // Each class is searchable by itself: words of the second <h2>, of the meta author.
    assert.deepEqual(
      (await search('section:garden')).map((r) => r.liveUrl),
      [key],
    );
    assert.deepEqual((await search('section:skip')).length, 0, 'nav text is not an <h2>');
    assert.deepEqual(
      (await search('a:ann')).map((r) => r.liveUrl),
      [key],
    );
  });
  it('sorts the results page by title both ways, and -SM=off leaves summaries out', async () => {
    const key = 'https://council.example/aardvark';
    const put = await api(
      'PUT',
      `/push-api/v1/collections/${C}/documents?key=${encodeURIComponent(key)}`,
      '<title>x</title><h1>Aardvark bins</h1><p>Bins for aardvarks.</p>',
      { 'content-type': 'text/html' },
    );
    assert.equal(put.status, 200, await put.text());
    assert.equal((await api('POST', `/push-api/v1/collections/${C}/commit`)).status, 200);
    const titlesOnPage = async (sort: string) => {
      const answer = await fetch(
        `${server.url}/s/search.html?collection=${encodeURIComponent(C)}&query=bins&sort=${sort}`,
      );
      assert.equal(answer.status, 200);
      const body = await answer.text();
      return ['Aardvark bins', 'Bin collection days'].sort((a, b) => body.indexOf(a) - body.indexOf(b));
    };
    assert.deepEqual(await titlesOnPage('title'), ['Aardvark bins', 'Bin collection days']);
    assert.deepEqual(await titlesOnPage('dtitle'), ['Bin collection days', 'Aardvark bins']);

    const config = await api('PUT', `/admin-api/v1/collections/${C}/config`, {
      files: { 'collection.cfg': 'collection_type=push\nquery_processor_options=-SM=off -SF=[t]\n' },
    });
    assert.equal(config.status, 200, await config.text());
    const results = (await search('bins')) as (Result & { summary: string })[];
    assert.equal(results.length, 2);
    for (const result of results) {
      assert.equal(result.summary, '');
      assert.deepEqual(Object.keys(result.metaData), ['t']);
    }
  });
});
