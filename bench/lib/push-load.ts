/**
 * Loading a collection through the push API, shared by the benchmarks that measure what
 * happens after a load (commit latency, replication): the collection with auto-commit off,
 * PUTs over many connections, commits every {@link LOAD_COMMIT_EVERY} changes, merges waited for.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PushClient } from '../../src/client/push-client.js';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import type { RfcPage } from './rfc-corpus.js';

/** The load commits every this many changes, as the default `push.auto-commit.max-changes` would. */
export const LOAD_COMMIT_EVERY = 10_000;

/** One document to PUT. */
export interface Change {
  key: string;
  text: string;
}

/**
 * Creates `collection` in the search home at `home` with auto-commit off (the benchmark
 * commits), and `settings` (collection.cfg lines) appended.
 */
export function createBenchCollection(home: string, collection: string, settings: string[] = []): void {
  new CollectionManager(new SearchHome(home), silentPushLog()).create(collection, 'push');
  appendFileSync(
    join(home, 'conf', collection, 'collection.cfg'),
    ['push.auto-commit.max-changes=0', 'push.auto-commit.timeout-seconds=0', ...settings].join('\n') + '\n',
  );
}

/** PUTs every change as text/plain over `connections` concurrent requests. */
export async function putAll(
  client: PushClient,
  collection: string,
  changes: readonly Change[],
  connections: number,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < changes.length) {
        const change = changes[next++]!;
        await client.add(collection, change.key, change.text, { contentType: 'text/plain; charset=utf-8' });
      }
    }),
  );
}

/** PUTs the pages, committing (wait=true) every {@link LOAD_COMMIT_EVERY}; returns the seconds it took. */
export async function loadPages(
  client: PushClient,
  collection: string,
  pages: readonly RfcPage[],
  connections: number,
): Promise<number> {
  const started = performance.now();
  for (let from = 0; from < pages.length; from += LOAD_COMMIT_EVERY) {
    const batch = pages
      .slice(from, from + LOAD_COMMIT_EVERY)
      .map((page) => ({ key: page.key, text: page.text }));
    await putAll(client, collection, batch, connections);
    await client.commit(collection, true);
  }
  return (performance.now() - started) / 1000;
}

/** Waits until no merge runs (polling the state); returns the seconds waited. */
export async function waitForMerges(client: PushClient, collection: string): Promise<number> {
  const started = performance.now();
  while ((await client.state(collection)).mergesRunning! > 0)
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  return (performance.now() - started) / 1000;
}

/** `count` distinct pages, chosen at random. */
export function samplePages(pages: readonly RfcPage[], count: number): RfcPage[] {
  const indexes = new Set<number>();
  while (indexes.size < Math.min(count, pages.length)) indexes.add(Math.floor(Math.random() * pages.length));
  return [...indexes].map((i) => pages[i]!);
}

/** The word only page `i` of `round` holds: one token, found nowhere in the corpus. */
export function roundWord(round: number, i: number): string {
  return `zqr${round}d${i}`;
}
