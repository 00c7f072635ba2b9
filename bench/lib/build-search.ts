import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SearchService } from '../../src/search/search-service.js';

/** A build's query processor opened in this process (see {@link openBuildSearch}). */
export interface BuildSearch {
  /** `SearchService.search` of the first page of 10 results of `text`. */
  search: (text: string) => ReturnType<SearchService['search']>;
  /** Closes the build's collections. */
  close: () => Promise<void>;
}

/**
 * The query processor of the build whose compiled files are in `dist` (this checkout's or
 * another's, e.g. main before a change), over `collection` of the home `home`: its own modules,
 * so that two builds can be timed side by side in one process or each in a child of its own
 * (typed as ours: other builds have the same exports).
 */
export async function openBuildSearch(dist: string, home: string, collection: string): Promise<BuildSearch> {
  const load = <T>(path: string) => import(pathToFileURL(join(dist, path)).href) as Promise<T>;
  const { CollectionManager } = await load<typeof import('../../src/collection/collection-manager.js')>(
    'src/collection/collection-manager.js',
  );
  const { silentPushLog } = await load<typeof import('../../src/collection/push-log.js')>(
    'src/collection/push-log.js',
  );
  const { SearchHome } = await load<typeof import('../../src/collection/search-home.js')>(
    'src/collection/search-home.js',
  );
  const { SearchService } = await load<typeof import('../../src/search/search-service.js')>(
    'src/search/search-service.js',
  );
  const { firstPageParams } =
    await load<typeof import('../../src/search/run-search.js')>('src/search/run-search.js');
  const manager = new CollectionManager(new SearchHome(home), silentPushLog());
  const service = new SearchService(manager);
  return {
    search: (text) => service.search(firstPageParams(collection, text, 10)),
    close: () => manager.closeAll(),
  };
}
