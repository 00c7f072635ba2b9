import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testApp, addCollectionCfg, type TestApp } from '../http/helpers.js';
import { SearchError } from '../../src/errors.js';
import {
  assertSearchTiming,
  pushAndCommit,
  searchJson,
  urls,
  writeConf,
  type TestDocument,
} from './helpers.js';

const NEWS_APPLE = 'http://example.com/news/apple-banana';
const SHOP_PIE = 'http://example.com/shop/apple-pie';
const NEWS_SPLIT = 'http://example.com/news/banana-split';

const DOCUMENTS: TestDocument[] = [
  {
    key: NEWS_APPLE,
    body: 'An apple banana smoothie with fresh fruit.',
    metadata: { author: 'Ann', price: '5' },
  },
  {
    key: SHOP_PIE,
    body: 'Apple pie recipe with cinnamon and butter.',
    metadata: { author: 'Bob', price: '15' },
  },
  {
    key: NEWS_SPLIT,
    body: 'Banana split dessert recipe for summer.',
    metadata: { author: 'Ann', price: '25' },
  },
  ...Array.from({ length: 25 }, (_, i): TestDocument => ({
    key: `http://example.com/list/${i + 1}`,
    body: `Catalogue entry number ${i + 1}: a widget of the ${i % 2 === 0 ? 'even' : 'odd'} series.`,
    metadata: { author: 'Cy', price: String(100 + i) },
  })),
];

const RESULT_FIELDS = [
  'clickTrackingUrl',
  'collection',
  'date',
  'displayUrl',
  'fileSize',
  'fileType',
  'gscopesSet',
  'listMetadata',
  'liveUrl',
  'rank',
  'score',
  'summary',
  'title',
];
const SUMMARY_FIELDS = [
  'currEnd',
  'currStart',
  'fullyMatching',
  'nextStart',
  'numRanks',
  'partiallyMatching',
  'prevStart',
  'totalMatching',
];

describe('GET /s/search.json', () => {
  let t: TestApp;

  before(async () => {
    t = await testApp(['docs'], { collectionCfg: ['facet.Author=author'] });
    writeConf(t.home, 'docs', 'metamap.cfg', ['author,0,author', 'price,3,price']);
    writeConf(t.home, 'docs', 'gscopes.cfg', ['news /news/']);
    await pushAndCommit(t.app, 'docs', DOCUMENTS);
  });
  after(async () => {
    await t.close();
  });

  it('says where the time went in a Server-Timing header', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/s/search.json?collection=docs&query=apple' });
    assert.equal(response.statusCode, 200, response.body);
    assertSearchTiming(response.headers['server-timing']);
  });

  it('answers the result packet with the contract field names', async () => {
    const packet = await searchJson(t.app, { collection: 'docs', query: 'apple' });
    assert.deepEqual(Object.keys(packet).sort(), ['question', 'response']);
    assert.equal(packet.question.query, 'apple');
    assert.equal(packet.question.collection, 'docs');
    const resultPacket = packet.response.resultPacket;
    assert.equal(resultPacket.query, 'apple');
    for (const field of SUMMARY_FIELDS)
      assert.ok(field in resultPacket.resultsSummary, `resultsSummary.${field}`);
    assert.ok(Array.isArray(packet.response.facets));
    assert.equal(resultPacket.results.length, 2);
    for (const result of resultPacket.results) {
      for (const field of RESULT_FIELDS) assert.ok(field in result, `result.${field}`);
      assert.equal(result.collection, 'docs');
      assert.equal(typeof result.score, 'number');
      assert.equal(result.fileType, 'txt');
      assert.ok(result.fileSize > 0);
    }
    const pie = resultPacket.results.find((r) => r.liveUrl === SHOP_PIE)!;
    assert.equal(pie.displayUrl, 'example.com/shop/apple-pie');
    assert.match(pie.clickTrackingUrl, /^\/s\/redirect\?/);
    const link = new URL(pie.clickTrackingUrl, 'http://localhost');
    assert.equal(link.searchParams.get('url'), SHOP_PIE);
    assert.equal(link.searchParams.get('collection'), 'docs');
    assert.equal(link.searchParams.get('query'), 'apple');
    assert.equal(link.searchParams.get('rank'), String(pie.rank));
  });

  it('pages with start_rank and num_ranks, with nextStart and prevStart', async () => {
    const page = (start: number) =>
      searchJson(t.app, { collection: 'docs', query: 'widget', start_rank: String(start), num_ranks: '10' });
    const first = await page(1);
    const summary1 = first.response.resultPacket.resultsSummary;
    assert.deepEqual(
      { ...summary1, totalMatchingExact: undefined },
      {
        totalMatching: 25,
        totalMatchingExact: undefined,
        fullyMatching: 25,
        partiallyMatching: 0,
        currStart: 1,
        currEnd: 10,
        numRanks: 10,
        nextStart: 11,
        prevStart: null,
        timedOut: false,
        prefixTermsCapped: false,
      },
    );
    assert.deepEqual(
      first.response.resultPacket.results.map((r) => r.rank),
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    const second = await page(11);
    const summary2 = second.response.resultPacket.resultsSummary;
    assert.equal(summary2.currStart, 11);
    assert.equal(summary2.currEnd, 20);
    assert.equal(summary2.prevStart, 1);
    assert.equal(summary2.nextStart, 21);
    assert.deepEqual(
      second.response.resultPacket.results.map((r) => r.rank),
      Array.from({ length: 10 }, (_, i) => i + 11),
    );
    const third = await page(21);
    const summary3 = third.response.resultPacket.resultsSummary;
    assert.equal(summary3.currStart, 21);
    assert.equal(summary3.currEnd, 25);
    assert.equal(summary3.nextStart, null);
    assert.equal(summary3.prevStart, 11);
    // The pages cut one ranking: together they hold every match once.
    const all = [...urls(first), ...urls(second), ...urls(third)];
    assert.equal(new Set(all).size, 25);
    const whole = await searchJson(t.app, { collection: 'docs', query: 'widget', num_ranks: '25' });
    assert.deepEqual(urls(whole), all);
    // Past the end: no results, totals still said.
    const beyond = await page(31);
    assert.equal(beyond.response.resultPacket.results.length, 0);
    assert.equal(beyond.response.resultPacket.resultsSummary.totalMatching, 25);
    assert.equal(beyond.response.resultPacket.resultsSummary.prevStart, 21);
  });

  it('uses 10 results from rank 1 by default', async () => {
    const packet = await searchJson(t.app, { collection: 'docs', query: 'widget' });
    assert.equal(packet.response.resultPacket.results.length, 10);
    assert.equal(packet.response.resultPacket.resultsSummary.currStart, 1);
    assert.equal(packet.response.resultPacket.resultsSummary.numRanks, 10);
  });

  it('counts fully and partially matching documents and ranks the full match first', async () => {
    const packet = await searchJson(t.app, { collection: 'docs', query: 'apple banana' });
    const summary = packet.response.resultPacket.resultsSummary;
    assert.equal(summary.totalMatching, 3);
    assert.equal(summary.fullyMatching, 1);
    assert.equal(summary.partiallyMatching, 2);
    assert.equal(urls(packet)[0], NEWS_APPLE);
    assert.deepEqual(urls(packet).slice(1).sort(), [NEWS_SPLIT, SHOP_PIE].sort());
  });

  it('returns only fully matching documents with fmo=on', async () => {
    const packet = await searchJson(t.app, { collection: 'docs', query: 'apple banana', fmo: 'on' });
    assert.deepEqual(urls(packet), [NEWS_APPLE]);
    assert.equal(packet.response.resultPacket.resultsSummary.partiallyMatching, 0);
    assert.equal(packet.question.fmo, true);
  });

  it('marks the query words in the summary with <b>', async () => {
    const packet = await searchJson(t.app, { collection: 'docs', query: 'cinnamon' });
    const [result] = packet.response.resultPacket.results;
    assert.ok(result !== undefined);
    assert.match(result.summary, /<b>cinnamon<\/b>/);
    assert.match(result.summary, /Apple pie recipe/);
  });

  it('lists the metadata classes of metamap.cfg', async () => {
    const packet = await searchJson(t.app, { collection: 'docs', query: 'cinnamon' });
    assert.deepEqual(packet.response.resultPacket.results[0]!.listMetadata, {
      author: ['Bob'],
      price: ['15'],
    });
  });

  it('counts facet values (facet.Author=author) over the matches', async () => {
    const packet = await searchJson(t.app, { collection: 'docs', query: 'apple banana' });
    assert.deepEqual(packet.response.facets, [
      {
        name: 'Author',
        className: 'author',
        values: [
          { label: 'Ann', count: 2, selected: false },
          { label: 'Bob', count: 1, selected: false },
        ],
      },
    ]);
  });

  it('filters on a selected facet value (f.Author|author=Ann)', async () => {
    const packet = await searchJson(t.app, [
      ['collection', 'docs'],
      ['query', 'apple banana'],
      ['f.Author|author', 'Ann'],
    ]);
    assert.deepEqual(urls(packet).sort(), [NEWS_APPLE, NEWS_SPLIT].sort());
    const ann = packet.response.facets[0]!.values.find((v) => v.label === 'Ann');
    assert.deepEqual(ann, { label: 'Ann', count: 2, selected: true });
    // f.<Name> without the class takes it from facet.<Name>.
    const short = await searchJson(t.app, [
      ['collection', 'docs'],
      ['query', 'apple banana'],
      ['f.Author', 'Bob'],
    ]);
    assert.deepEqual(urls(short), [SHOP_PIE]);
  });

  it('restricts to a gscope (gscope1) and names the gscopes of each result', async () => {
    const packet = await searchJson(t.app, { collection: 'docs', query: 'apple banana', gscope1: 'news' });
    assert.deepEqual(urls(packet).sort(), [NEWS_APPLE, NEWS_SPLIT].sort());
    for (const result of packet.response.resultPacket.results) assert.deepEqual(result.gscopesSet, ['news']);
    const all = await searchJson(t.app, { collection: 'docs', query: 'cinnamon' });
    assert.deepEqual(all.response.resultPacket.results[0]!.gscopesSet, []);
  });

  it('filters a numeric class with ge_ and le_', async () => {
    const between = await searchJson(t.app, {
      collection: 'docs',
      query: 'apple banana',
      ge_price: '10',
      le_price: '20',
    });
    assert.deepEqual(urls(between), [SHOP_PIE]);
    const above = await searchJson(t.app, { collection: 'docs', query: 'apple banana', ge_price: '15' });
    assert.deepEqual(urls(above).sort(), [NEWS_SPLIT, SHOP_PIE].sort());
    const upTo = await searchJson(t.app, {
      collection: 'docs',
      query: 'widget',
      le_price: '104.5',
      num_ranks: '50',
    });
    assert.equal(upTo.response.resultPacket.resultsSummary.totalMatching, 5);
  });

  it('suggests a spelling from the collection vocabulary for a misspelt word', async () => {
    const packet = await searchJson(t.app, { collection: 'docs', query: 'recipie' });
    assert.deepEqual(packet.response.resultPacket.spell, { text: 'recipe' });
    const right = await searchJson(t.app, { collection: 'docs', query: 'recipe' });
    assert.equal(right.response.resultPacket.spell, null);
  });

  it('answers an empty query with no results, not an error', async () => {
    const packet = await searchJson(t.app, { collection: 'docs' });
    assert.equal(packet.response.resultPacket.results.length, 0);
    assert.equal(packet.response.resultPacket.resultsSummary.totalMatching, 0);
  });

  it('refuses bad parameters with 400 and a message naming the parameter', async () => {
    const cases: [string, string, RegExp][] = [
      ['query=apple', 'PARAMETER_INVALID', /collection parameter is missing/],
      [
        'collection=docs&query=apple&start_rank=0',
        'PARAMETER_INVALID',
        /start_rank must be a whole number from 1/,
      ],
      ['collection=docs&query=apple&start_rank=-3', 'PARAMETER_INVALID', /start_rank/],
      ['collection=docs&query=apple&start_rank=1.5', 'PARAMETER_INVALID', /start_rank/],
      [
        'collection=docs&query=apple&start_rank=10001',
        'PARAMETER_INVALID',
        /start_rank must be a whole number from 1 to 10000/,
      ],
      [
        'collection=docs&query=apple&num_ranks=0',
        'PARAMETER_INVALID',
        /num_ranks must be a whole number from 1 to 1000/,
      ],
      ['collection=docs&query=apple&num_ranks=1001', 'PARAMETER_INVALID', /num_ranks/],
      ['collection=docs&query=apple&num_ranks=ten', 'PARAMETER_INVALID', /num_ranks.*"ten"/],
      ['collection=docs&query=apple&fmo=maybe', 'PARAMETER_INVALID', /fmo must be on or off/],
      ['collection=docs&query=apple&ge_price=cheap', 'PARAMETER_INVALID', /ge_price must be a number/],
      ['collection=docs&query=apple&le_pr%20ice=3', 'PARAMETER_INVALID', /le_pr ice: the class/],
      ['collection=docs&query=apple&gscope1=a%2Bb', 'PARAMETER_INVALID', /gscope1/],
      ['collection=docs&query=apple&f.Nope=x', 'PARAMETER_INVALID', /no facet Nope is defined/],
      ['collection=%3Cscript%3E&query=apple', 'COLLECTION_NAME_INVALID', /collection name/],
    ];
    for (const [query, code, message] of cases) {
      const response = await t.app.inject({ method: 'GET', url: `/s/search.json?${query}` });
      assert.equal(response.statusCode, 400, query);
      const body = response.json<{ status: number; error: string; message: string }>();
      assert.equal(body.status, 400);
      assert.equal(body.error, code, query);
      assert.match(body.message, message, query);
    }
  });

  it('answers 404 for an unknown collection', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/s/search.json?collection=nope&query=apple' });
    assert.equal(response.statusCode, 404);
    assert.equal(response.json<{ error: string }>().error, 'COLLECTION_NOT_FOUND');
    assert.match(response.json<{ message: string }>().message, /collection nope does not exist/);
  });
});

describe('a meta collection over two push collections', () => {
  let t: TestApp;

  before(async () => {
    t = await testApp(['alpha', 'beta']);
    await pushAndCommit(t.app, 'alpha', [
      { key: 'http://alpha.example/one', body: 'Shared topic: lighthouses of the northern coast.' },
      { key: 'http://alpha.example/two', body: 'Only alpha talks about harbours.' },
    ]);
    await pushAndCommit(t.app, 'beta', [
      { key: 'http://beta.example/one', body: 'Shared topic: lighthouses and their keepers.' },
      { key: 'http://beta.example/two', body: 'Only beta talks about beacons.' },
    ]);
    t.manager.create('both', 'meta', ['alpha', 'beta']);
  });
  after(async () => {
    await t.close();
  });

  it('returns results from both members, each naming its collection', async () => {
    const packet = await searchJson(t.app, { collection: 'both', query: 'lighthouses' });
    const results = packet.response.resultPacket.results;
    assert.deepEqual(results.map((r) => `${r.collection} ${r.liveUrl}`).sort(), [
      'alpha http://alpha.example/one',
      'beta http://beta.example/one',
    ]);
    assert.equal(packet.response.resultPacket.resultsSummary.totalMatching, 2);
    assert.deepEqual(
      results.map((r) => r.rank),
      [1, 2],
    );
    // Clicks are logged under the result's own collection: its click evidence lives there.
    for (const result of results) {
      assert.equal(
        new URL(result.clickTrackingUrl, 'http://localhost').searchParams.get('collection'),
        result.collection,
      );
    }
    const single = await searchJson(t.app, { collection: 'both', query: 'beacons' });
    assert.deepEqual(
      single.response.resultPacket.results.map((r) => r.collection),
      ['beta'],
    );
  });
});

describe('search.public=false', () => {
  it('answers 401 without an authorizer, and lets the authorizer decide when there is one', async () => {
    const t = await testApp(['open', 'closed']);
    try {
      addCollectionCfg(t.home, 'closed', ['search.public=false']);
      await pushAndCommit(t.app, 'closed', [{ key: 'http://closed.example/', body: 'secret plans' }]);
      await pushAndCommit(t.app, 'open', [{ key: 'http://open.example/', body: 'public plans' }]);
      const refused = await t.app.inject({
        method: 'GET',
        url: '/s/search.json?collection=closed&query=plans',
      });
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json<{ error: string }>().error, 'UNAUTHENTICATED');
      assert.match(refused.json<{ message: string }>().message, /search\.public/);
      assert.ok(!refused.body.includes('secret'));
      const open = await searchJson(t.app, { collection: 'open', query: 'plans' });
      assert.deepEqual(urls(open), ['http://open.example/']);
      // A meta collection does not open a private member.
      t.manager.create('all', 'meta', ['open', 'closed']);
      const viaMeta = await t.app.inject({ method: 'GET', url: '/s/search.json?collection=all&query=plans' });
      assert.equal(viaMeta.statusCode, 401);
      const page = await t.app.inject({ method: 'GET', url: '/s/search.html?collection=closed&query=plans' });
      assert.equal(page.statusCode, 401);
      assert.match(page.headers['content-type'] as string, /^text\/html/);
      assert.ok(!page.body.includes('closed.example'));
    } finally {
      await t.close();
    }

    const seen: string[] = [];
    const withHook = await testApp(['closed'], {
      authorizeSearch: (request, collection) => {
        seen.push(collection);
        if (request.headers['x-let-me-in'] !== 'yes') throw new SearchError('FORBIDDEN', 'no entry');
      },
    });
    try {
      addCollectionCfg(withHook.home, 'closed', ['search.public=false']);
      await pushAndCommit(withHook.app, 'closed', [{ key: 'http://closed.example/', body: 'secret plans' }]);
      const denied = await withHook.app.inject({
        method: 'GET',
        url: '/s/search.json?collection=closed&query=plans',
      });
      assert.equal(denied.statusCode, 403);
      const allowed = await withHook.app.inject({
        method: 'GET',
        url: '/s/search.json?collection=closed&query=plans',
        headers: { 'x-let-me-in': 'yes' },
      });
      assert.equal(allowed.statusCode, 200);
      assert.equal(
        allowed.json<{ response: { resultPacket: { results: unknown[] } } }>().response.resultPacket.results
          .length,
        1,
      );
      assert.deepEqual(seen, ['closed', 'closed']);
    } finally {
      await withHook.close();
    }
  });

  it('fails closed on a value that is neither true nor false', async () => {
    const t = await testApp(['odd']);
    try {
      addCollectionCfg(t.home, 'odd', ['search.public=nope']);
      const response = await t.app.inject({
        method: 'GET',
        url: '/s/search.json?collection=odd&query=plans',
      });
      // Not the client's fault: 503 with the reason, until the file is fixed.
      assert.equal(response.statusCode, 503);
      assert.equal(response.json<{ error: string }>().error, 'COLLECTION_CONFIG_BROKEN');
      assert.match(response.json<{ message: string }>().message, /search\.public must be true or false/);
    } finally {
      await t.close();
    }
  });
});

describe('a collection deleted or created while the server runs', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp(['gone']);
    await pushAndCommit(t.app, 'gone', [{ key: 'http://gone.example/a', body: 'ephemeral words' }]);
  });
  after(async () => {
    await t.close();
  });

  it('answers 404 from the moment it is deleted, and is found again once created anew', async () => {
    assert.deepEqual(urls(await searchJson(t.app, { collection: 'gone', query: 'ephemeral' })), [
      'http://gone.example/a',
    ]);
    const deleted = await t.app.inject({ method: 'DELETE', url: '/admin-api/v1/collections/gone' });
    assert.equal(deleted.statusCode, 200, deleted.body);
    for (const page of ['search.json', 'search.html']) {
      const search = await t.app.inject({ method: 'GET', url: `/s/${page}?collection=gone&query=ephemeral` });
      assert.equal(search.statusCode, 404, `${page}: ${search.body}`);
      assert.match(search.body, /COLLECTION_NOT_FOUND/, page);
    }
    const created = await t.app.inject({
      method: 'PUT',
      url: '/admin-api/v1/collections/gone',
      payload: { type: 'push' },
    });
    assert.equal(created.statusCode, 200, created.body);
    assert.deepEqual(urls(await searchJson(t.app, { collection: 'gone', query: 'ephemeral' })), []);
  });
});
