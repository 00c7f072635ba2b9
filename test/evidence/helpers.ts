/** Shared set-up of the evidence suites: a temporary installation with a collection manager and the search service. */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import type { PushCollection } from '../../src/collection/push-collection.js';
import { silentPushLog, type PushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { clickLogFile, type ClickRecord } from '../../src/collection/evidence/click-log.js';
import { firstPageParams } from '../../src/search/run-search.js';
import { SearchService, type SearchResult } from '../../src/search/search-service.js';

export interface EvidenceHome {
  home: SearchHome;
  manager: CollectionManager;
  service: SearchService;
  collection(name?: string): PushCollection;
  /** PUTs an HTML page: `<title>` and a body. */
  putPage(key: string, title: string, bodyHtml: string, name?: string): Promise<string>;
  search(query: string, collection?: string): Promise<SearchResult[]>;
  /** Keys of the results, best first. */
  keys(query: string, collection?: string): Promise<string[]>;
  /** Adds lines to a collection's collection.cfg (read at start for evidence options; at every search for query options). */
  config(lines: string[], name?: string): void;
  /** Appends clicks to the collection's click log in the format `/s/redirect` writes. */
  logClicks(
    clicks: Omit<ClickRecord, 'collection' | 'time'> & { time: number },
    times?: number,
    name?: string,
  ): void;
  close(): Promise<void>;
}

/** A fresh installation with the push collections `names` (the first is the default). */
export function evidenceHome(
  names: string[] = ['docs'],
  cfg: string[] = [],
  log: PushLog = silentPushLog(),
): EvidenceHome {
  const root = mkdtempSync(join(tmpdir(), 'pushsearch-evidence-'));
  const home = new SearchHome(root);
  const manager = new CollectionManager(home, log);
  for (const name of names) {
    manager.create(name, 'push');
    // The timers stay out of the way: tests run each job on demand unless they say otherwise.
    appendFileSync(
      home.collectionConfigFile(name),
      ['push.auto-commit.timeout-seconds=0', 'push.evidence.delay-seconds=3600', ...cfg].join('\n') + '\n',
    );
  }
  const service = new SearchService(manager);
  const first = names[0]!;
  const api: EvidenceHome = {
    home,
    manager,
    service,
    collection: (name = first) => manager.collection(name),
    putPage: (key, title, bodyHtml, name = first) =>
      manager.collection(name).putDocument({
        key,
        content: Buffer.from(
          `<!doctype html><html><head><title>${title}</title></head><body>${bodyHtml}</body></html>`,
        ),
        contentType: 'text/html; charset=utf-8',
        metadata: {},
      }),
    search: async (query, collection = first) =>
      (await service.search(firstPageParams(collection, query, 20))).response.resultPacket.results,
    keys: async (query, collection = first) => (await api.search(query, collection)).map((r) => r.liveUrl),
    // A configuration write, as the admin API's config PUT makes it: the file, then the
    // manager's cached settings are told (searches never re-read the files themselves).
    config: (lines, name = first) => {
      appendFileSync(home.collectionConfigFile(name), lines.join('\n') + '\n');
      manager.settings.forget(name);
    },
    logClicks: (click, times = 1, name = first) => {
      const file = clickLogFile(home, name);
      mkdirSync(dirname(file), { recursive: true });
      const line =
        JSON.stringify({ ...click, time: new Date(click.time).toISOString(), collection: name }) + '\n';
      appendFileSync(file, line.repeat(times));
    },
    close: async () => {
      await manager.closeAll();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return api;
}
