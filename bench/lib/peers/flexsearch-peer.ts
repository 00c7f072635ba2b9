/**
 * FlexSearch 0.8 as its README shows it for documents: `new Document({ document: { id: 'key',
 * index: ['title', 'text'], store: ['title'] } })` with the default preset (tokenize "strict":
 * whole words; the default encoder: lower case, charset normalisation, repeated letters
 * folded). FlexSearch does not rank by BM25: a result's place comes from where the term
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

type Page = { key: string; title: string; text: string };

/** FlexSearch behind the {@link BenchPeer} interface. */
export class FlexSearchPeer implements BenchPeer {
  readonly name = 'flexsearch';
  readonly description =
    "new Document({ document: { id: 'key', index: ['title', 'text'], store: ['title'] } }), default preset (tokenize 'strict', " +
    'default encoder); no BM25 (ranks by term position in the field), no field boost; AND = its default multi-word query ' +
    '(all words in one field), merge: true over fields; OR = Resolver .or() over every term and field.';
  readonly unsupported = {
    phrase:
      "FlexSearch has no phrase query (its 'context' option scores nearness, it does not require adjacency)",
  };
  readonly prefixMatching = false;
  readonly inMemory = true;
  private readonly index = new FlexSearch.Document<Page>({
    document: { id: 'key', index: [...FIELDS], store: ['title'] },
  });

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
        const ids = new FlexSearch.Resolver<Page>(first)
          .or(...rest)
          .resolve({ limit: k }) as unknown as string[];
        return ids.slice(0, k);
      }
      case 'and':
      case 'single':
      case 'single-common': {
        const results = this.index.search(query.terms.join(' '), {
          limit: k,
          merge: true,
        }) as unknown as Array<{ id: string }>;
        return results.slice(0, k).map((result) => result.id);
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
    this.index.add({ key: page.key, title: page.title, text: page.text });
  }
}
