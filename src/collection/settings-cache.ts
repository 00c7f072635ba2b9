import { SearchError } from '../errors.js';
import { loadCollectionSettings, type CollectionSettings } from './collection-settings.js';
import { ConfigFileError } from './config/config-file-error.js';
import type { SearchHome } from './search-home.js';

/** Reads a collection's settings from disk (tests count the calls). */
export type SettingsLoader = (home: SearchHome, collection: string) => CollectionSettings;

/**
 * The one parsed copy of every collection's configuration (`collection.cfg` over `global.cfg`
 * and the mapping files), read from disk once and handed to whoever needs it, so that no
 * request re-reads and re-parses the files (a search did it three times per query).
 *
 * When the files change, whoever changed them says so: the admin API after a config PUT
 * ({@link SettingsCache.reload}), a collection when it starts (so that a stop and start
 * applies files edited by hand, as the contract says of collection.cfg). A loaded object is
 * never changed: a reload replaces it, so a query holding the old one sees one consistent
 * configuration to its end.
 *
 * A collection whose files do not load is not cached: every `get` throws
 * `COLLECTION_CONFIG_BROKEN` (503: not the fault of whoever asked) with the parser's reason
 * (file and line, or key) again until the files are fixed.
 */
export class SettingsCache {
  private readonly loaded = new Map<string, CollectionSettings>();

  constructor(
    private readonly home: SearchHome,
    private readonly load: SettingsLoader = loadCollectionSettings,
  ) {}

  /** The collection's settings, read from disk on first use. Throws COLLECTION_CONFIG_BROKEN for bad files. */
  get(collection: string): CollectionSettings {
    let settings = this.loaded.get(collection);
    if (settings === undefined) {
      try {
        settings = this.load(this.home, collection);
      } catch (error) {
        if (!(error instanceof ConfigFileError)) throw error;
        throw new SearchError(
          'COLLECTION_CONFIG_BROKEN',
          `collection ${collection} cannot be used until its configuration is fixed: ${error.message}`,
          { cause: error, details: error.details },
        );
      }
      this.loaded.set(collection, settings);
    }
    return settings;
  }

  /**
   * Reads the collection's files again and returns the new settings (call after writing
   * them). On a parse error the old copy is dropped too, and COLLECTION_CONFIG_BROKEN thrown.
   */
  reload(collection: string): CollectionSettings {
    this.loaded.delete(collection);
    return this.get(collection);
  }

  /** Forgets one collection (deleted), or every one (global.cfg changed): read again on next use. */
  forget(collection?: string): void {
    if (collection === undefined) this.loaded.clear();
    else this.loaded.delete(collection);
  }
}
