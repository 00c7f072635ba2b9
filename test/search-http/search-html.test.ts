import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Parser } from 'htmlparser2';
import type { LightMyRequestResponse } from 'fastify';
import { testApp, type TestApp } from '../http/helpers.js';
import { assertSearchTiming, pushAndCommit, searchJson, writeConf, type TestDocument } from './helpers.js';

/** Elements the page is made of; anything else (script, img, iframe…) is injected markup. */
const ALLOWED_ELEMENTS = new Set([
  'html',
  'head',
  'meta',
  'title',
  'link', // only the icon, from our own origin (checked in assertInert)
  'style',
  'body',
  'a',
  'header',
  'h1',
  'h2',
  'h3',
  'span',
  'form',
  'input',
  'label',
  'button',
  'div',
  'main',
  'aside',
  'p',
  'ol',
  'ul',
  'li',
  'q',
  'b',
  'dl',
  'dt',
  'dd',
  'nav',
  'section',
  'strong',
  'time',
  'code',
]);

interface ParsedPage {
  /** Every element with the names of its ancestors (outermost first). */
  elements: { name: string; attributes: Record<string, string>; ancestors: string[] }[];
  /** Text content, entities decoded, whitespace collapsed. */
  text: string;
  /** `<b>` texts and where they are (the class of the closest ancestor with one). */
  bold: { text: string; within: string }[];
}

/** Parses the page like a browser would tokenise it (entities decoded). */
function parsePage(html: string): ParsedPage {
  const elements: ParsedPage['elements'] = [];
  const stack: { name: string; className: string }[] = [];
  const bold: ParsedPage['bold'] = [];
  let text = '';
  let inStyle = false;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        elements.push({ name, attributes, ancestors: stack.map((e) => e.name) });
        text += ' ';
        stack.push({ name, className: attributes.class ?? '' });
        if (name === 'style') inStyle = true;
        if (name === 'b')
          bold.push({
            text: '',
            within: [...stack].reverse().find((e) => e.className !== '')?.className ?? '',
          });
      },
      ontext(data) {
        if (inStyle) return;
        text += data;
        if (stack.some((e) => e.name === 'b')) bold[bold.length - 1]!.text += data;
      },
      onclosetag(name) {
        if (name === 'style') inStyle = false;
        text += ' ';
        stack.pop();
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  return { elements, text: text.replace(/\s+/g, ' ').trim(), bold };
}

/** No element or attribute that could run or load anything. */
function assertInert(page: ParsedPage): void {
  for (const element of page.elements) {
    assert.ok(ALLOWED_ELEMENTS.has(element.name), `unexpected <${element.name}>`);
    if (element.name === 'link') {
      assert.equal(element.attributes.rel, 'icon');
      assert.match(element.attributes.href ?? '', /^\/[^/]/, 'the icon comes from our origin');
    }
    for (const [name, value] of Object.entries(element.attributes)) {
      assert.ok(!name.startsWith('on'), `event handler attribute ${name}`);
      if (name === 'href' || name === 'action')
        assert.ok(!/^\s*(javascript|data|vbscript):/i.test(value), `${name}=${value}`);
    }
  }
}

function paramsOf(href: string): URLSearchParams {
  return new URL(href, 'http://localhost/s/').searchParams;
}

const XSS_QUERY = '<img src=x onerror=alert(1)>';

const DOCUMENTS: TestDocument[] = [
  {
    key: 'http://example.com/news/apple-banana',
    body: 'An apple banana smoothie with fresh fruit.',
    metadata: { author: 'Ann' },
  },
  {
    key: 'http://example.com/shop/apple-pie?size=2&shape=round',
    body: 'Apple pie recipe with cinnamon.',
    metadata: { author: 'Bob' },
  },
  {
    key: 'http://example.com/news/banana-split',
    body: 'Banana split dessert recipe.',
    metadata: { author: 'Ann' },
  },
  {
    key: 'http://example.com/evil',
    type: 'text/html',
    body: '<html><head><title>&lt;img src=x onerror=alert(2)&gt; tart</title></head><body><p>Plum tart with &lt;script&gt;alert(4)&lt;/script&gt; inside</p><script>alert(5)</script></body></html>',
    metadata: { author: '<script>alert(3)</script>' },
  },
  ...Array.from({ length: 35 }, (_, i): TestDocument => ({
    key: `http://example.com/list/${i + 1}`,
    body: `Catalogue entry ${i + 1}: a widget.`,
    metadata: { author: 'Cy' },
  })),
];

describe('GET /s/search.html', () => {
  let t: TestApp;
  const get = (query: string | [string, string][]): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'GET',
      url: `/s/search.html?${typeof query === 'string' ? query : new URLSearchParams(query).toString()}`,
    });

  before(async () => {
    t = await testApp(['docs'], { collectionCfg: ['facet.Author=author'] });
    writeConf(t.home, 'docs', 'metamap.cfg', ['author,0,author']);
    await pushAndCommit(t.app, 'docs', DOCUMENTS);
  });
  after(async () => {
    await t.close();
  });

  it('renders an accessible page with the search box, the count and the results', async () => {
    const response = await get('collection=docs&query=apple+banana');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(response.body, /^<!doctype html>\n<html lang="en">/);
    const csp = response.headers['content-security-policy'] as string;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /style-src 'sha256-[A-Za-z0-9+/=]+'/);
    const page = parsePage(response.body);
    assertInert(page);
    const names = page.elements.map((e) => e.name);
    for (const landmark of ['header', 'main', 'nav', 'aside', 'form', 'label', 'h1']) {
      if (landmark === 'nav') continue; // one page of results: no page links
      assert.ok(names.includes(landmark), `<${landmark}>`);
    }
    const form = page.elements.find((e) => e.name === 'form')!;
    assert.equal(form.attributes.role, 'search');
    assert.equal(form.attributes.method, 'get');
    const input = page.elements.find((e) => e.name === 'input' && e.attributes.name === 'query')!;
    assert.equal(input.attributes.value, 'apple banana');
    const label = page.elements.find((e) => e.name === 'label')!;
    assert.equal(label.attributes.for, input.attributes.id);
    assert.ok(
      page.elements.some(
        (e) => e.name === 'input' && e.attributes.name === 'collection' && e.attributes.value === 'docs',
      ),
    );
    assert.match(page.text, /3 results \(1 fully matching, 2 partially matching\); showing 1–3/);

    // Title links go through the click-tracking URL of the JSON packet, in rank order.
    const packet = await searchJson(t.app, { collection: 'docs', query: 'apple banana' });
    const resultLinks = page.elements
      .filter((e) => e.name === 'a' && (e.attributes.href ?? '').startsWith('/s/redirect?'))
      .map((e) => e.attributes.href);
    assert.deepEqual(
      resultLinks,
      packet.response.resultPacket.results.map((r) => r.clickTrackingUrl),
    );
    assert.match(page.text, /example\.com\/shop\/apple-pie\?size=2&shape=round/);
    // Highlights are the query's words, inside the snippets.
    assert.ok(page.bold.length >= 4);
    for (const b of page.bold) {
      assert.equal(b.within, 'snippet');
      assert.match(b.text.trim(), /^(apple|banana)$/i);
    }
    assert.match(page.text, /author Ann/);
  });

  it("says where the page's time went in a Server-Timing header, rendering included", async () => {
    const response = await get('collection=docs&query=apple');
    assert.equal(response.statusCode, 200);
    assertSearchTiming(response.headers['server-timing'], 'render');
    // An error page has no search to time.
    const error = await get('collection=nope&query=apple');
    assert.equal(error.statusCode, 404);
    assert.equal(error.headers['server-timing'], undefined);
  });

  it('lists facet values with counts, each a link that toggles f.<Name>|<class>', async () => {
    const page = parsePage((await get('collection=docs&query=apple+banana')).body);
    const aside = page.text.slice(page.text.indexOf('Refine'));
    assert.match(aside, /Author Ann 2 results Bob 1 results/);
    const ann = page.elements.find(
      (e) => e.name === 'a' && paramsOf(e.attributes.href ?? '').get('f.Author|author') === 'Ann',
    )!;
    assert.ok(ann !== undefined);
    const toggled = paramsOf(ann.attributes.href!);
    assert.equal(toggled.get('collection'), 'docs');
    assert.equal(toggled.get('query'), 'apple banana');

    // Following it selects Ann; the same value's link then removes the selection.
    const selectedResponse = await get([
      ['collection', 'docs'],
      ['query', 'apple banana'],
      ['f.Author|author', 'Ann'],
    ]);
    const selected = parsePage(selectedResponse.body);
    const selectedLink = selected.elements.find(
      (e) => e.name === 'a' && e.attributes['aria-current'] === 'true',
    )!;
    assert.ok(selectedLink !== undefined);
    assert.equal(paramsOf(selectedLink.attributes.href!).getAll('f.Author|author').length, 0);
    assert.match(selected.text, /Ann \(selected: follow to remove\)/);
  });

  it('pages with previous, numbered and next links', async () => {
    const first = parsePage((await get('collection=docs&query=widget')).body);
    const inNav = (page: ParsedPage) =>
      page.elements.filter((e) => e.name === 'a' && e.ancestors.includes('nav'));
    const pageLinks = inNav(first);
    const starts = pageLinks.map((e) => paramsOf(e.attributes.href!).get('start_rank'));
    assert.deepEqual(starts, ['11', '21', '31', '11']); // pages 2, 3, 4, then Next
    assert.equal(pageLinks.at(-1)!.attributes.rel, 'next');
    assert.ok(first.elements.some((e) => e.name === 'span' && e.attributes['aria-current'] === 'page'));
    assert.match(first.text, /35 results; showing 1–10/);

    const third = parsePage((await get('collection=docs&query=widget&start_rank=21')).body);
    const prev = third.elements.find((e) => e.name === 'a' && e.attributes.rel === 'prev')!;
    assert.equal(paramsOf(prev.attributes.href!).get('start_rank'), '11');
    const next = third.elements.find((e) => e.name === 'a' && e.attributes.rel === 'next')!;
    assert.equal(paramsOf(next.attributes.href!).get('start_rank'), '31');
    assert.match(third.text, /showing 21–30/);

    const last = parsePage((await get('collection=docs&query=widget&start_rank=31')).body);
    assert.ok(!last.elements.some((e) => e.attributes.rel === 'next'));
    const back = last.elements.find((e) => e.attributes.rel === 'prev')!;
    assert.equal(paramsOf(back.attributes.href!).get('start_rank'), '21');
    // Page 1's link leaves start_rank out.
    const one = inNav(last)[1]!;
    assert.equal(paramsOf(one.attributes.href!).get('query'), 'widget');
    assert.equal(paramsOf(one.attributes.href!).get('start_rank'), null);
  });

  it('offers "did you mean" as a link to the corrected search', async () => {
    const page = parsePage((await get('collection=docs&query=recipie')).body);
    assert.match(page.text, /Did you mean recipe ?\?/);
    const link = page.elements.find(
      (e) => e.name === 'a' && paramsOf(e.attributes.href ?? '').get('query') === 'recipe',
    );
    assert.ok(link !== undefined);
    assert.equal(paramsOf(link.attributes.href!).get('collection'), 'docs');
  });

  it('shows an empty state without a query and without results', async () => {
    const blank = await get('collection=docs');
    assert.equal(blank.statusCode, 200);
    assert.match(parsePage(blank.body).text, /Type some words in the search box/);
    const none = await get('collection=docs&query=zzzyzzy');
    assert.equal(none.statusCode, 200);
    const page = parsePage(none.body);
    assert.match(page.text, /No results for zzzyzzy/);
    assert.ok(!page.elements.some((e) => e.name === 'ol'));
  });

  it('shows errors as pages with the status, what to fix and the code', async () => {
    const bad = await get('collection=docs&query=apple&start_rank=0');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.headers['content-type'], 'text/html; charset=utf-8');
    const badPage = parsePage(bad.body);
    assertInert(badPage);
    assert.match(badPage.text, /start_rank must be a whole number from 1 to 10000/);
    assert.match(badPage.text, /PARAMETER_INVALID/);
    assert.ok(
      badPage.elements.some((e) => e.name === 'form'),
      'the search box stays, to try again',
    );

    const missing = await get('collection=nope&query=apple');
    assert.equal(missing.statusCode, 404);
    assert.match(parsePage(missing.body).text, /collection nope does not exist/);
  });

  it('escapes the query, the collection name, titles, metadata and text everywhere', async () => {
    const query = await get([
      ['collection', 'docs'],
      ['query', XSS_QUERY],
    ]);
    assert.equal(query.statusCode, 200);
    assert.ok(!query.body.includes('<img'), 'query injected as markup');
    const queryPage = parsePage(query.body);
    assertInert(queryPage);
    assert.ok(queryPage.text.includes(XSS_QUERY), 'the query shows as text');
    assert.equal(queryPage.elements.find((e) => e.attributes.name === 'query')!.attributes.value, XSS_QUERY);

    const collection = await get([
      ['collection', '<script>alert(1)</script>'],
      ['query', XSS_QUERY],
    ]);
    assert.equal(collection.statusCode, 400);
    assert.ok(!/<script/i.test(collection.body));
    const collectionPage = parsePage(collection.body);
    assertInert(collectionPage);
    assert.ok(collectionPage.text.includes('<script>alert(1)</script>'), 'the name shows as text');

    // A document whose title, text and metadata are markup: shown as text.
    const documentPage = await get('collection=docs&query=tart');
    assert.equal(documentPage.statusCode, 200);
    assert.ok(!/<script|<img/i.test(documentPage.body));
    const page = parsePage(documentPage.body);
    assertInert(page);
    assert.ok(page.text.includes('<img src=x onerror=alert(2)> tart'), 'the title as text');
    assert.ok(page.text.includes('<script>alert(4)</script>'), 'the snippet as text');
    assert.ok(page.text.includes('<script>alert(3)</script>'), 'the metadata and its facet as text');
    assert.ok(!page.text.includes('alert(5)'), 'scripts of the content are not text');
    // The facet link of a markup value round-trips.
    const facetLink = page.elements.find(
      (e) =>
        e.name === 'a' &&
        paramsOf(e.attributes.href ?? '').get('f.Author|author') === '<script>alert(3)</script>',
    );
    assert.ok(facetLink !== undefined);
    const selected = await t.app.inject({ method: 'GET', url: `/s/${facetLink.attributes.href!}` });
    assert.equal(selected.statusCode, 200);
    assert.ok(!/<script/i.test(selected.body));
  });
});
