/**
 * FlexSearch 0.8 as its README shows it for documents: `new Document({ document: { id: 'id',
 * index: ['title', 'text'], store: ['key', 'title'] } })` with the default preset (tokenize
 * "strict": whole words; the default encoder: lower case, charset normalisation, repeated
 * letters folded). Ids are numbers, as its README recommends ("Use numeric IDs": the length
 * of the ids drives the memory), and the key is stored with the title: results are read
 * with `enrich: true`, as we read keys from our stored records. FlexSearch does not rank by BM25: a result's place comes from where the term
 * occurs in the field (its "resolution" slots). A query of several words is an AND within a
 * field (its default); OR is the documented Resolver, `.or()` over every term in every
 * field. FlexSearch has no phrase query (its "context" option scores nearness, it does not
 * require adjacency). Persisted form: the chunks of `index.export()`.
 */
import FlexSearch from 'flexsearch';
import type { BenchQuery } from '../query-set.js';
import type { RfcPage } from '../rfc-corpus.js';
import type { BenchPeer, PersistedSize } from './peer.js';

const FIELDS = ['title', 'text'] as const;

type Page = { id: number; key: string; title: string; text: string };

type Enriched = Array<{ id: number; doc: { key: string } | null }>;

function keysOf(results: Enriched, k: number): string[] {
  return results.slice(0, k).map((result) => {
    if (result.doc === null) throw new Error(`flexsearch: no stored document for id ${result.id}`);
    return result.doc.key;
  });
}

/** FlexSearch behind the {@link BenchPeer} interface. */
export class FlexSearchPeer implements BenchPeer {
  readonly name = 'flexsearch';
  readonly description =
    "new Document({ document: { id: 'id', index: ['title', 'text'], store: ['key', 'title'] } }) with numeric ids (its README's advice), " +
    "default preset (tokenize 'strict', " +
    'default encoder); no BM25 (ranks by term position in the field), no field boost; AND = its default multi-word query ' +
    '(all words in one field), merge: true over fields; OR = Resolver .or() over every term and field; keys read with enrich: true. ' +
    'It ranks when indexing (a page is filed under the position of the word in the field), so a query reads the first ids of a list.';
  readonly unsupported = {
    phrase:
      "FlexSearch has no phrase query (its 'context' option scores nearness, it does not require adjacency)",
  };
  readonly prefixMatching = false;
  readonly inMemory = true;
  private readonly index = new FlexSearch.Document<Page>({
    document: { id: 'id', index: [...FIELDS], store: ['key', 'title'] },
  });
  private nextId = 0;

  async indexAll(batches: AsyncIterable<readonly RfcPage[]>): Promise<void> {
    for await (const batch of batches) {
      for (const page of batch) this.add(page);
    }
  }

  settle(): Promise<void> {
    return Promise.resolve();
  }

  change(page: RfcPage): Promise<void> {
    this.add(page);
    return Promise.resolve();
  }

  search(query: BenchQuery, k: number): string[] {
    switch (query.class) {
      case 'phrase':
        throw new Error(this.unsupported.phrase);
      case 'or': {
        const [first, ...rest] = query.terms.flatMap((term) =>
          FIELDS.map((field) => ({ index: this.index, field, query: term })),
        );
        const results = new FlexSearch.Resolver<Page>(first).or(...rest).resolve({ limit: k, enrich: true });
        return keysOf(results as unknown as Enriched, k);
      }
      case 'and':
      case 'single':
      case 'single-common': {
        const results = this.index.search(query.terms.join(' '), { limit: k, merge: true, enrich: true });
        return keysOf(results as unknown as Enriched, k);
      }
    }
  }

  persistedSize(): Promise<PersistedSize> {
    let bytes = 0;
    // Each chunk is a key and a string, stored as such (a file name and its content, a
    // localStorage item...): both count.
    this.index.export((key: string, data: string) => {
      bytes += Buffer.byteLength(key) + Buffer.byteLength(data ?? '');
    });
    return Promise.resolve({ bytes, what: 'the chunks of index.export() (read back by index.import)' });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private add(page: RfcPage): void {
    this.index.add({ id: this.nextId++, key: page.key, title: page.title, text: page.text });
  }
}
