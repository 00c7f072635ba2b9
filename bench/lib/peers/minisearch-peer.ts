/**
 * MiniSearch 7 as its README shows it: `fields: ['title', 'text']`, the key as `idField`,
 * the title stored for a results list, default tokenizer (split on spaces and punctuation)
 * and term processing (lower case), no prefix or fuzzy search. Ranking is its BM25+ with the
 * title boosted 2.5. AND is `combineWith: 'AND'`, OR its default. MiniSearch has no phrase
 * query. Persisted form: `JSON.stringify(miniSearch)`, which `MiniSearch.loadJSON` reads back.
 */
import MiniSearch from 'minisearch';
import type { BenchQuery } from '../query-set.js';
import type { RfcPage } from '../rfc-corpus.js';
import { jsonByteLength } from './json-size.js';
import type { BenchPeer, PersistedSize } from './peer.js';

/** MiniSearch behind the {@link BenchPeer} interface. */
export class MiniSearchPeer implements BenchPeer {
  readonly name = 'minisearch';
  readonly description =
    "new MiniSearch({ fields: ['title', 'text'], storeFields: ['title'], idField: 'key' }), default tokenizer and lower-casing " +
    "(no stemming, no diacritic folding); BM25+ with boost { title: 2.5 }; AND = combineWith: 'AND'; results sliced to the top 10 " +
    '(search returns every match, sorted).';
  readonly unsupported = { phrase: 'MiniSearch has no phrase query' };
  readonly prefixMatching = false;
  readonly inMemory = true;
  private readonly miniSearch = new MiniSearch<RfcPage>({
    fields: ['title', 'text'],
    storeFields: ['title'],
    idField: 'key',
  });

  async indexAll(batches: AsyncIterable<readonly RfcPage[]>): Promise<void> {
    for await (const batch of batches) this.miniSearch.addAll(batch);
  }

  settle(): Promise<void> {
    return Promise.resolve();
  }

  change(page: RfcPage): Promise<void> {
    this.miniSearch.add(page);
    return Promise.resolve();
  }

  search(query: BenchQuery, k: number): string[] {
    if (query.class === 'phrase') throw new Error(this.unsupported.phrase);
    const results = this.miniSearch.search(query.terms.join(' '), {
      combineWith: query.class === 'or' ? 'OR' : 'AND',
      boost: { title: 2.5 },
    });
    return results.slice(0, k).map((result) => result.id as string);
  }

  persistedSize(): Promise<PersistedSize> {
    return Promise.resolve({
      bytes: jsonByteLength(this.miniSearch),
      what: 'JSON.stringify(miniSearch) (read back by MiniSearch.loadJSON)',
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
