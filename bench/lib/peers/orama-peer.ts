/**
 * Orama 3 as its documentation shows it: `create({ schema: { title: 'string', text: 'string' } })`,
 * the key as the document `id`, default tokenizer (English splitter, lower case, diacritics
 * replaced, no stemming, no stop words). Ranking is its BM25 with the title boosted 2.5.
 * AND is `threshold: 0` (every term, in one property), OR `threshold: 1`. Orama matches a
 * query word as a prefix by default ("window" also finds "windows"): kept, as a user gets it;
 * `exact: true` would instead filter by a case-sensitive regular expression over the stored
 * text. With prefixes, AND has a quirk: threshold 0 counts the words a property matched, so
 * two forms of one query word ("window", "windows") can stand in for another, and a page
 * without "congestion" passes `congestion window` (`check-hits.ts` counts such hits).
 * Orama keeps every inserted document (its documents store), text included. It has no
 * phrase query. Persisted form: `JSON.stringify(save(db))`, which `load` reads back.
 */
import { create, insert, save, search, type Orama, type Results } from '@orama/orama';
import type { BenchQuery } from '../query-set.js';
import type { RfcPage } from '../rfc-corpus.js';
import { jsonByteLength } from './json-size.js';
import type { BenchPeer, PersistedSize } from './peer.js';

const SCHEMA = { title: 'string', text: 'string' } as const;

type Db = Orama<typeof SCHEMA>;

/** Orama behind the {@link BenchPeer} interface. */
export class OramaPeer implements BenchPeer {
  readonly name = 'orama';
  readonly description =
    "create({ schema: { title: 'string', text: 'string' } }), one insert() per page with the key as id, default tokenizer " +
    '(no stemming, no stop words); BM25 with boost { title: 2.5 }, limit 10; AND = threshold: 0, OR = threshold: 1; ' +
    "a query word also matches longer words starting with it (Orama's default), and as threshold 0 counts matched words per property, " +
    "two forms of one query word ('window', 'windows') can stand in for another, so some AND hits lack a query word; " +
    'the whole page is kept in its documents store.';
  readonly unsupported = { phrase: 'Orama has no phrase query' };
  readonly prefixMatching = true;
  readonly inMemory = true;
  private readonly db: Db = create({ schema: SCHEMA });

  async indexAll(batches: AsyncIterable<readonly RfcPage[]>): Promise<void> {
    for await (const batch of batches) {
      for (const page of batch) await this.insert(page);
    }
  }

  settle(): Promise<void> {
    return Promise.resolve();
  }

  async change(page: RfcPage): Promise<void> {
    await this.insert(page);
  }

  search(query: BenchQuery, k: number): string[] {
    if (query.class === 'phrase') throw new Error(this.unsupported.phrase);
    const results = search(this.db, {
      term: query.terms.join(' '),
      properties: ['title', 'text'],
      boost: { title: 2.5 },
      limit: k,
      threshold: query.class === 'or' ? 1 : 0,
    });
    // Without asynchronous hooks or components Orama answers synchronously.
    if (results instanceof Promise) throw new Error('orama: search returned a promise');
    return (results as Results<unknown>).hits.map((hit) => hit.id);
  }

  persistedSize(): Promise<PersistedSize> {
    return Promise.resolve({
      bytes: jsonByteLength(save(this.db)),
      what: 'JSON.stringify(save(db)) (read back by load; the pages included)',
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private async insert(page: RfcPage): Promise<void> {
    const done = insert(this.db, { id: page.key, title: page.title, text: page.text });
    // insert is synchronous unless a hook is asynchronous; await only then, to keep the loop tight.
    if (done instanceof Promise) await done;
  }
}
