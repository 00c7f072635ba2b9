import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { SEARCH_RESPONSE_SCHEMA } from '../../src/search/result-packet.js';
import { SearchService, type SearchParams, type SearchResponse } from '../../src/search/search-service.js';
import { parseSearchParams } from '../../src/http/search-routes.js';
import { testApp, type TestApp } from '../http/helpers.js';
import { pushAndCommit, writeConf, type TestDocument } from './helpers.js';

/**
 * `/s/search.json` sends the result packet as bytes serialised where the query ran (a search
 * thread) instead of letting Fastify serialise the object: the bytes must be those Fastify
 * sends for the same packet with the route's 200 schema, whatever the packet holds.
 */

const DOCUMENTS: TestDocument[] = [
  {
    key: 'http://example.com/news/apple',
    body: 'An apple banana smoothie with fresh fruit « déjà vu » "quoted" \\ back\u2028slash.',
    metadata: { author: 'Ann', place: '54.15;-0.89' },
  },
  {
    key: 'http://example.com/shop/pie?x=1&y=%3C2%3E',
    body: 'Apple pie recipe with cinnamon and butter.',
    metadata: { author: 'Bob' },
  },
  ...Array.from({ length: 14 }, (_, i): TestDocument => ({
    key: `http://example.com/list/${i}`,
    body: `Catalogue apple entry ${i}: a widget of the ${i % 2 === 0 ? 'even' : 'odd'} series.`,
    metadata: { author: 'Cy' },
  })),
];

/** The bytes Fastify itself sends for `packet` on a route with SEARCH_RESPONSE_SCHEMA. */
async function fastifyBytes(reference: FastifyInstance, packet: SearchResponse): Promise<Buffer> {
  const response = await reference.inject({
    method: 'POST',
    url: '/',
    payload: packet,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.rawPayload;
}

type Packet = SearchResponse['response'];

/** Each case, and what its packet holds that makes it one (so that the case stays what it says). */
const CASES: Record<string, [string, (packet: Packet) => boolean]> = {
  'results, facets and a metadata class': [
    'collection=docs&query=apple',
    (p) => p.resultPacket.results.length === 10 && (p.facets[0]?.values.length ?? 0) > 0,
  ],
  'a selected facet value, a second page': [
    'collection=docs&query=apple&f.Author=Cy&start_rank=3&num_ranks=4',
    (p) =>
      p.resultPacket.resultsSummary.prevStart === 1 && p.facets[0]?.values.some((v) => v.selected) === true,
  ],
  'a spelling suggestion': [
    'collection=docs&query=cataloge',
    (p) => p.resultPacket.spell?.text === 'catalogue',
  ],
  'no results': ['collection=docs&query=zzzqqxxwv', (p) => p.resultPacket.results.length === 0],
  'an empty query': ['collection=docs&query=', (p) => p.resultPacket.resultsSummary.totalMatching === 0],
  'distances from an origin, sorted by title': [
    'collection=docs&query=smoothie%20OR%20pie&origin=54.1,-0.8&sort=title',
    (p) => p.resultPacket.results.some((r) => typeof r.kmFromOrigin === 'number'),
  ],
  'a meta collection': [
    'collection=both&query=apple',
    (p) => new Set(p.resultPacket.results.map((r) => r.collection)).size === 2,
  ],
};

for (const threads of [0, 1]) {
  describe(`/s/search.json bytes (${threads === 0 ? 'queries on the event loop' : 'a search thread'})`, () => {
    let t: TestApp;
    let reference: FastifyInstance;
    before(async () => {
      t = await testApp(['docs', 'other'], {
        collectionCfg: ['facet.Author=author'],
        searchThreads: threads,
      });
      writeConf(t.home, 'docs', 'metamap.cfg', ['author,0,author', 'place,2,place']);
      await pushAndCommit(t.app, 'docs', DOCUMENTS);
      await pushAndCommit(t.app, 'other', [{ key: 'http://other.example/a', body: 'apple orchard' }]);
      t.manager.create('both', 'meta', ['docs', 'other']);
      reference = Fastify();
      reference.post(
        '/',
        { schema: { response: { 200: SEARCH_RESPONSE_SCHEMA } } },
        (request) => request.body,
      );
      await reference.ready();
    });
    after(async () => {
      await reference.close();
      await t.close();
    });

    for (const [name, [query, isCase]] of Object.entries(CASES)) {
      it(`are Fastify's for the packet: ${name}`, async () => {
        const response = await t.app.inject({ method: 'GET', url: `/s/search.json?${query}` });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(response.headers['content-length'], String(response.rawPayload.length));
        const params: SearchParams = parseSearchParams(
          new URLSearchParams(query),
          new URLSearchParams(query).get('collection')!,
          () => 'author',
        );
        const packet = await t.searchService.search(params);
        assert.ok(isCase(packet.response), JSON.stringify(packet.response));
        assert.ok(response.rawPayload.equals(await fastifyBytes(reference, packet)), response.body);
      });
    }

    it('keep the timedOut flag of an over-budget query', async () => {
      // A budget of 0 ms: the engine stops at its first check and answers what it found.
      const overBudget = new SearchService(t.manager, { threads, timeoutMs: 0 });
      try {
        const params = parseSearchParams(new URLSearchParams('query=apple*'), 'docs');
        const bytes = Buffer.from((await overBudget.searchJson(params)).json);
        const packet = JSON.parse(bytes.toString('utf8')) as SearchResponse;
        assert.equal(packet.response.resultPacket.resultsSummary.timedOut, true);
        assert.ok(bytes.equals(await fastifyBytes(reference, packet)), bytes.toString('utf8'));
        assert.equal(overBudget.threads?.stats().TotTimedOut ?? 1, 1, 'the pool counts it');
      } finally {
        await overBudget.close();
      }
    });
  });
}
