/**
 * A `$SEARCH_HOME` holding one push collection of RFC pages, built once (through the
 * collection API, as the server would index them) and reused by later runs: the search
 * benchmarks measure queries, not indexing.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { escapeHtml } from '../../src/escape-html.js';
import { readRfcCorpusBatches } from './rfc-corpus.js';

/** Pages committed together while building. */
const COMMIT_EVERY = 25_000;
/** Puts in flight while building. */
const CONCURRENCY = 32;
const MARKER = 'rfc-home-built.json';

/** Builds (or reuses, when built with the same page limit) a home with collection `collection`. */
export async function rfcHome(
  home: string,
  collection: string,
  pages: number | undefined,
  rebuild = false,
): Promise<{ pages: number }> {
  const marker = join(home, MARKER);
  if (!rebuild && existsSync(marker)) {
    const built = JSON.parse(readFileSync(marker, 'utf8')) as { pages: number; limit: number | null };
    if (built.limit === (pages ?? null)) return { pages: built.pages };
  }
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const manager = new CollectionManager(new SearchHome(home), silentPushLog());
  manager.create(collection, 'push');
  appendFileSync(
    join(home, 'conf', collection, 'collection.cfg'),
    'push.auto-commit.max-changes=0\npush.auto-commit.timeout-seconds=0\n',
  );
  const target = manager.collection(collection);
  const started = performance.now();
  let count = 0;
  const inFlight = new Set<Promise<unknown>>();
  for await (const batch of readRfcCorpusBatches(pages === undefined ? {} : { limit: pages })) {
    for (const page of batch) {
      const put = target.putDocument({
        key: page.key,
        content: Buffer.from(
          `<!doctype html><html><head><title>${escapeHtml(page.title)}</title></head>` +
            `<body><pre>${escapeHtml(page.text)}</pre></body></html>`,
        ),
        contentType: 'text/html; charset=utf-8',
        metadata: {},
      });
      inFlight.add(put);
      void put.finally(() => inFlight.delete(put));
      if (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
      if (++count % COMMIT_EVERY === 0) {
        await Promise.all(inFlight);
        await target.commit(true);
        console.log(`  ${count} pages in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      }
    }
  }
  await Promise.all(inFlight);
  await target.commit(true);
  await target.quiesce();
  await manager.closeAll();
  console.log(`  collection: ${count} pages in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  writeFileSync(marker, JSON.stringify({ pages: count, limit: pages ?? null }));
  return { pages: count };
}
