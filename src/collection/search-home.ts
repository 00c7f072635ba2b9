import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SearchError } from '../errors.js';

/**
 * Collection and snapshot names: letters, digits, `.`, `_`, `-` and `~` (the original names
 * collections `client~name`, e.g. `govscot~ds-news-push`), starting with a letter or digit.
 * No `/`, no leading `.`, no `..`: a name is always one folder below `conf/` or `data/`.
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

/**
 * Files the installation keeps in `conf/` beside the collection folders. A collection of one
 * of these names would make its folder where the file belongs (`conf/global.cfg/`), and the
 * server would never start again; such names are refused with `COLLECTION_NAME_RESERVED`.
 */
export const HOME_CONF_FILES: readonly string[] = [
  'global.cfg',
  'users.json',
  'redirect-secret',
  'initial-admin-password',
  'server.lock',
];

/**
 * Collection names found valid lately: a search checks its collection's name several times
 * (the route, the manager, the home's paths), each time with a regular expression otherwise.
 * Bounded: emptied when full (any string may come in a request).
 */
const VALID_COLLECTION_NAMES = new Set<string>();
const VALID_NAMES_KEPT = 1024;

export function validateName(kind: 'collection' | 'snapshot', name: string): string {
  if (kind === 'collection' && VALID_COLLECTION_NAMES.has(name)) return name;
  if (!NAME.test(name) || name.includes('..')) {
    throw new SearchError(
      kind === 'collection' ? 'COLLECTION_NAME_INVALID' : 'SNAPSHOT_NAME_INVALID',
      `${kind} name ${JSON.stringify(name)} is invalid: use 1-128 letters, digits, '.', '_', '-' or '~', starting with a letter or digit`,
    );
  }
  if (kind === 'collection' && HOME_CONF_FILES.includes(name.toLowerCase()))
    throw new SearchError(
      'COLLECTION_NAME_RESERVED',
      `collection name ${JSON.stringify(name)} is the name of one of the installation's own files in conf/ (${HOME_CONF_FILES.join(', ')}); choose another name`,
    );
  if (kind === 'collection') {
    if (VALID_COLLECTION_NAMES.size >= VALID_NAMES_KEPT) VALID_COLLECTION_NAMES.clear();
    VALID_COLLECTION_NAMES.add(name);
  }
  return name;
}

/**
 * The installation folder (`$SEARCH_HOME`) and where everything lives in it, as the API
 * contract lays it out. Names are validated before they become paths.
 */
export class SearchHome {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Locked by the running server (see `home-lock.ts`). */
  get serverLockFile(): string {
    return join(this.root, 'server.lock');
  }
  get confFolder(): string {
    return join(this.root, 'conf');
  }
  get globalConfigFile(): string {
    return join(this.root, 'conf', 'global.cfg');
  }
  collectionConfFolder(collection: string): string {
    return join(this.root, 'conf', validateName('collection', collection));
  }
  collectionConfigFile(collection: string, file = 'collection.cfg'): string {
    return join(this.collectionConfFolder(collection), file);
  }
  collectionDataFolder(collection: string): string {
    return join(this.root, 'data', validateName('collection', collection));
  }
  liveFolder(collection: string): string {
    return join(this.collectionDataFolder(collection), 'live');
  }
  journalFolder(collection: string): string {
    return join(this.liveFolder(collection), 'journal');
  }
  /** Index pipeline step output of one generation. */
  generationLogFolder(collection: string, generation: number): string {
    return join(this.liveFolder(collection), 'log', `${generation}-`);
  }
  clickLogFolder(collection: string): string {
    return join(this.collectionDataFolder(collection), 'clicks');
  }
  snapshotsFolder(collection: string): string {
    return join(this.collectionDataFolder(collection), 'snapshot');
  }
  snapshotFolder(collection: string, name: string): string {
    return join(this.snapshotsFolder(collection), validateName('snapshot', name));
  }
  get webLogFolder(): string {
    return join(this.root, 'web', 'log');
  }
  get pushLogFile(): string {
    return join(this.webLogFolder, 'push.log');
  }

  collectionExists(collection: string): boolean {
    return existsSync(this.collectionConfigFile(collection));
  }

  ensureLayout(): void {
    for (const folder of [this.confFolder, join(this.root, 'data'), this.webLogFolder])
      mkdirSync(folder, { recursive: true });
  }
}
