/**
 * Our engine as a library, driven as `bench/engine.ts` drives it: an index in a folder, two
 * indexing threads and one merge thread, a commit every 25,000 pages, BM25F over the body and
 * the title (`t`, weight 2.5), top 10. Title and text are stored, as the search service
 * stores documents. Queries are query trees built from the analyzer's terms; a hit's key is
 * read from the stored record, as every peer returns keys.
 */
import { rmSync } from 'node:fs';
import { KEY_FIELD } from '../../../src/index/document.js';
import { createAnalyzer } from '../../../src/index/analysis/create-analyzer.js';
import { DEFAULT_ANALYZER } from '../../../src/index/schema.js';
import { SearchIndex } from '../../../src/index/search-index.js';
import type { Searcher } from '../../../src/index/searcher.js';
import { executeQuery } from '../../../src/query/execute-query.js';
import type { Query } from '../../../src/query/query-tree.js';
import { dirSize } from '../measure.js';
import type { BenchQuery } from '../query-set.js';
import type { RfcPage } from '../rfc-corpus.js';
import type { BenchPeer, PeerOptions, PersistedSize } from './peer.js';

/** Pages between commits while loading (as in `bench/engine.ts`). */
const COMMIT_EVERY = 25_000;

function toDocument(page: RfcPage) {
  return {
    key: page.key,
    fields: { body: page.text, t: page.title },
    stored: { title: page.title, text: page.text },
  };
}

/** Our engine behind the {@link BenchPeer} interface. */
export class OursPeer implements BenchPeer {
  readonly name = 'ours';
  readonly description: string;
  readonly unsupported = {};
  readonly prefixMatching = false;
  readonly inMemory = false;
  private readonly analyzer;
  private searcher: Searcher | undefined;

  private constructor(
    private readonly index: SearchIndex,
    private readonly dir: string,
    stem: boolean,
  ) {
    this.analyzer = createAnalyzer({ ...DEFAULT_ANALYZER, stem });
    this.description =
      `SearchIndex in a folder, 2 indexing threads, 1 merge thread, a commit every ${COMMIT_EVERY.toLocaleString('en-US')} pages; ` +
      `default analyzer (case and diacritics folded, ${stem ? 'English stemming' : 'stemming off like every peer'}); ` +
      'BM25F over body and title (title weight 2.5); title and text stored; a change is put + durable commit + new searcher.';
  }

  /** A new, empty index in `options.dir` (whatever was there is deleted). */
  static async create(options: PeerOptions): Promise<OursPeer> {
    rmSync(options.dir, { recursive: true, force: true });
    const index = await SearchIndex.open({
      directory: options.dir,
      mergeThreads: 1,
      indexThreads: 2,
      schema: { defaultAnalyzer: { ...DEFAULT_ANALYZER, stem: options.stem } },
    });
    return new OursPeer(index, options.dir, options.stem);
  }

  async indexAll(batches: AsyncIterable<readonly RfcPage[]>): Promise<void> {
    let docs = 0;
    for await (const batch of batches) {
      for (const page of batch) {
        this.index.put(toDocument(page));
        if (++docs % COMMIT_EVERY === 0) await this.index.commit();
      }
      await this.index.ready();
    }
    await this.index.commit();
    this.refreshSearcher();
  }

  async settle(): Promise<void> {
    await this.index.waitForMerges();
    // A merge publishes a new manifest: search the merged generations, as a new searcher would.
    this.refreshSearcher();
  }

  async change(page: RfcPage): Promise<void> {
    this.index.put(toDocument(page));
    await this.index.commit();
    this.refreshSearcher();
  }

  search(query: BenchQuery, k: number): string[] {
    const searcher = this.searcher;
    if (searcher === undefined) throw new Error('ours: search before indexAll');
    const result = executeQuery(searcher.generations, this.toQuery(query), { k });
    return result.hits.map((hit) => searcher.stored(hit.generationIndex, hit.docId)[KEY_FIELD] as string);
  }

  persistedSize(): Promise<PersistedSize> {
    return Promise.resolve({
      bytes: dirSize(this.dir),
      what: 'index folder (generations, manifest; title and text stored)',
    });
  }

  async close(): Promise<void> {
    this.searcher?.release();
    this.searcher = undefined;
    await this.index.close();
  }

  private refreshSearcher(): void {
    this.searcher?.release();
    this.searcher = this.index.acquireSearcher();
  }

  private toQuery(query: BenchQuery): Query {
    const terms = query.terms.flatMap((t) => this.analyzer.terms(t));
    switch (query.class) {
      case 'phrase':
        return { kind: 'phrase', terms };
      case 'or':
        return { kind: 'bool', should: terms.map((term) => ({ kind: 'term', term })) };
      case 'and':
      case 'single':
      case 'single-common':
        return terms.length === 1
          ? { kind: 'term', term: terms[0]! }
          : { kind: 'bool', must: terms.map((term) => ({ kind: 'term', term })) };
    }
  }
}
