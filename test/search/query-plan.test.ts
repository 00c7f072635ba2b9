/**
 * What a search asks of the engine (`planQuery`): a query of words, any of which may match, is
 * the engine's top-level any-of with the redirect exclusion beside its words (so MaxScore runs
 * it), and answers exactly what the same words nested under a `must` answer; with filters
 * (gscope, ranges, facets) the words stay nested, their clauses optional beside a filter.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { REDIRECT_FIELD } from '../../src/collection/stored-fields.js';
import type { Searcher } from '../../src/index/searcher.js';
import { statisticsFromGenerations } from '../../src/query/collection-statistics.js';
import { executeQuery } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';
import {
  firstPageParams,
  planQuery,
  type SearchParams,
  type SearchView,
} from '../../src/search/run-search.js';
import { SearchService } from '../../src/search/search-service.js';

const REDIRECTS: Query = { kind: 'term', field: REDIRECT_FIELD, term: 'true' };

describe('planQuery', () => {
  let root: string;
  let manager: CollectionManager;
  let view: SearchView;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'pushsearch-plan-'));
    manager = new CollectionManager(new SearchHome(root), silentPushLog());
    manager.create('plan', 'push');
    const collection = manager.collection('plan');
    const texts = [
      'http proxy settings',
      'http only',
      'proxy only',
      'neither word here',
      'an http proxy and another http proxy',
      'proxy servers forward http',
    ];
    for (const [i, text] of texts.entries())
      await collection.putDocument({
        key: `local:${i}`,
        content: Buffer.from(text),
        contentType: 'text/plain',
        metadata: {},
      });
    await collection.putRedirect('local:old', 'local:0');
    await collection.commit();
    view = await new SearchService(manager).openView('plan');
  });
  after(async () => {
    for (const member of view.members) (member.searcher as Searcher).release();
    await manager.closeAll();
    rmSync(root, { recursive: true, force: true });
  });

  const params = (query: string, extra: Partial<SearchParams> = {}): SearchParams => ({
    ...firstPageParams('plan', query, 10),
    ...extra,
  });
  const generations = () => view.members.flatMap((m) => [...m.searcher.generations]);
  const plan = (query: string, extra: Partial<SearchParams> = {}) =>
    planQuery(view, params(query, extra), statisticsFromGenerations(generations()));

  it('runs words any of which may match as a top-level any-of that excludes redirects', () => {
    const ranked = plan('http proxy').ranked;
    assert.ok(ranked !== null);
    const query = ranked.query;
    assert.equal(query.kind, 'bool');
    if (query.kind !== 'bool') return;
    assert.equal(query.must, undefined, 'not nested under a must');
    assert.equal(query.should?.length, 2);
    assert.deepEqual(query.mustNot, [REDIRECTS]);
  });

  it('answers the same hits, scores and counts as the words nested under a must', () => {
    for (const text of ['http proxy', 'http OR proxy', '[http proxy word]', 'http proxy -settings']) {
      const ranked = plan(text).ranked;
      assert.ok(ranked !== null);
      const flat = ranked.query;
      assert.ok(flat.kind === 'bool' && flat.must === undefined, `${text} is a top-level any-of`);
      const { mustNot, ...words } = flat;
      const nested: Query = {
        kind: 'bool',
        must: [{ ...words, mustNot: mustNot?.filter((q) => q !== mustNot.at(-1)) ?? [] }],
        filter: [],
        mustNot: [REDIRECTS],
      };
      const a = executeQuery(generations(), flat, ranked.options);
      const b = executeQuery(generations(), nested, ranked.options);
      assert.ok(a.hits.length > 0, `${text} finds documents`);
      assert.deepEqual(a.hits, b.hits, text);
      assert.equal(a.totalHits, b.totalHits, text);
    }
  });

  it('keeps the words nested when a filter is given (their clauses are optional beside a filter)', () => {
    const ranked = plan('http proxy', { gscope: 'manuals' }).ranked;
    assert.ok(ranked !== null && ranked.query.kind === 'bool');
    if (ranked.query.kind !== 'bool') return;
    assert.equal(ranked.query.must?.length, 1);
    assert.equal(ranked.query.filter?.length, 1);
    assert.deepEqual(ranked.query.mustNot, [REDIRECTS]);
  });

  it('nests a query with a required word as before', () => {
    const ranked = plan('+http proxy').ranked;
    assert.ok(ranked !== null && ranked.query.kind === 'bool');
    if (ranked.query.kind !== 'bool') return;
    assert.equal(ranked.query.must?.length, 1);
    assert.deepEqual(ranked.query.mustNot, [REDIRECTS]);
  });
});
