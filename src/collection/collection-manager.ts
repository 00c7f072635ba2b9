import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { replicationContextFor, type ReplicationContext } from './replica-runtime.js';
import { SearchError } from '../errors.js';
import { readCollectionCfg } from './collection-settings.js';
import { PushCollection, type CollectionStateView } from './push-collection.js';
import type { PushLog } from './push-log.js';
import { validateName, type SearchHome } from './search-home.js';
import { SettingsCache } from './settings-cache.js';

export type CollectionType = 'push' | 'meta';

export interface CollectionInfo {
  name: string;
  type: CollectionType;
  state: CollectionStateView['state'];
  members?: string[];
  documents?: number;
  generations?: number;
  stagedChanges?: number;
}

export type UpgradeState = 'IN_PROGRESS' | 'PREPARED';

/** Seconds a client is told to wait while the installation prepares for an upgrade. */
export const UPGRADE_RETRY_AFTER_SECONDS = 60;

/**
 * Every collection of the installation: creation and deletion (admin side), lookup with
 * automatic start (push side), and the installation-wide upgrade preparation.
 */
/**
 * The `metamap.cfg` of a new push collection: the common metadata names mapped to the classes
 * the original's default uses, so that pushed `title` metadata titles the results and the
 * rest is searchable (`author:ann`) without configuration. Sources match pushed metadata
 * names in any case and HTML `<meta name>` tags.
 */
export const DEFAULT_METAMAP = `# Default mapping: class,type,source (type 0: metadata only, 1: also searchable as content).
# Sources: metadata names (pushed X-Service-Push-Metadata-{name}, any case, or HTML <meta name>),
# or <element> for the text of each HTML element of that name (e.g. t,1,<h1>).
# Changes apply to new pushes; vacuum RE_INDEX applies them to stored documents.
t,0,title
t,0,dc.title
c,1,description
c,1,dc.description
a,1,author
a,1,dc.creator
s,1,keywords
s,1,subject
s,1,dc.subject
d,0,date
d,0,dc.date
`;

export class CollectionManager {
  private readonly collections = new Map<string, PushCollection>();
  /**
   * Collections found on disk, so that a search does not look at the disk again: collections
   * are created and deleted through this manager ({@link delete} drops the name once the
   * files are gone), the server holding the home's lock. A name not found is looked up again
   * each time (created by another manager of the same home, as tests do).
   */
  private readonly existing = new Set<string>();
  private upgrade: { state: UpgradeState; error?: string } | undefined;
  /**
   * Every collection's parsed configuration, read once: searches and the collections take it
   * from here; whoever writes a collection's files calls `settings.forget(name)` or `reload`.
   */
  readonly settings: SettingsCache;
  /** The server's replication secret and id, shared by its collections. */
  readonly replication: ReplicationContext;
  private configWatch: { timer: NodeJS.Timeout; seen: Map<string, string>; running: boolean } | undefined;

  constructor(
    readonly home: SearchHome,
    readonly log: PushLog,
    replication?: ReplicationContext,
  ) {
    home.ensureLayout();
    this.settings = new SettingsCache(home);
    this.replication = replication ?? replicationContextFor(home);
  }

  /**
   * Starts the query processors (mode SLAVE, push.run not false), so that they sync from the
   * server's start instead of at their first search, and looks for edited collection.cfg
   * files every `intervalMs` (push.run=false stops a collection within seconds). Until
   * {@link closeAll}.
   */
  startBackground(intervalMs = 1000): void {
    if (this.configWatch !== undefined) return;
    for (const name of this.names()) {
      try {
        if (this.typeOf(name) !== 'push') continue;
        const collection = this.collection(name);
        if (collection.mode() === 'SLAVE' && collection.replicationSettings().run)
          collection.ensureRunning().catch(() => undefined);
      } catch {
        // A bad configuration: reported when the collection is used.
      }
    }
    const watch = {
      timer: undefined as unknown as NodeJS.Timeout,
      seen: new Map<string, string>(),
      running: false,
    };
    for (const name of this.names()) watch.seen.set(name, this.cfgStamp(name));
    watch.timer = setInterval(() => {
      if (watch.running) return;
      watch.running = true;
      void this.applyEditedConfigs(watch.seen).finally(() => (watch.running = false));
    }, intervalMs);
    watch.timer.unref();
    this.configWatch = watch;
  }

  private async applyEditedConfigs(seen: Map<string, string>): Promise<void> {
    for (const name of this.names()) {
      const stamp = this.cfgStamp(name);
      if (seen.get(name) === stamp) continue;
      seen.set(name, stamp);
      try {
        if (this.typeOf(name) !== 'push') continue;
        await this.collection(name).applyConfiguration();
      } catch (error) {
        this.log.warn(
          { collection: name, err: { message: (error as Error).message } },
          'cannot apply collection.cfg',
        );
      }
    }
  }

  private cfgStamp(name: string): string {
    try {
      const info = statSync(this.home.collectionConfigFile(name));
      return `${info.ino}:${info.mtimeMs}:${info.size}`;
    } catch {
      return 'none';
    }
  }

  exists(name: string): boolean {
    validateName('collection', name);
    if (this.existing.has(name)) return true;
    const found = this.home.collectionExists(name);
    if (found) this.existing.add(name);
    return found;
  }

  typeOf(name: string): CollectionType {
    const cfg = this.readCfg(name);
    return cfg.get('collection_type') === 'meta' ? 'meta' : 'push';
  }

  /** Members of a meta collection. */
  membersOf(name: string): string[] {
    const value = this.readCfg(name).get('meta.members') ?? '';
    return value
      .split(',')
      .map((member) => member.trim())
      .filter((member) => member.length > 0);
  }

  create(name: string, type: CollectionType, members: string[] = []): void {
    this.guardWrite();
    validateName('collection', name);
    if (this.exists(name)) throw new SearchError('COLLECTION_EXISTS', `collection ${name} already exists`);
    if (type === 'meta') {
      for (const member of members) {
        validateName('collection', member);
        if (!this.exists(member))
          throw new SearchError('COLLECTION_NOT_FOUND', `meta collection member ${member} does not exist`);
        if (this.typeOf(member) !== 'push')
          throw new SearchError('PARAMETER_INVALID', `member ${member} is not a push collection`);
      }
    }
    for (const folder of [this.home.collectionConfFolder(name), this.home.collectionDataFolder(name)])
      if (existsSync(folder) && !statSync(folder).isDirectory())
        // A file of the installation that no list names yet: never turn it into a folder.
        throw new SearchError(
          'COLLECTION_NAME_RESERVED',
          `collection name ${JSON.stringify(name)} is taken by a file of the installation (${folder}); choose another name`,
        );
    mkdirSync(this.home.collectionConfFolder(name), { recursive: true });
    mkdirSync(this.home.collectionDataFolder(name), { recursive: true });
    const lines = [`# Created ${new Date().toISOString()}`, `collection_type=${type}`];
    if (type === 'meta') lines.push(`meta.members=${members.join(',')}`);
    writeFileSync(this.home.collectionConfigFile(name), lines.join('\n') + '\n');
    if (type === 'push') writeFileSync(this.home.collectionConfigFile(name, 'metamap.cfg'), DEFAULT_METAMAP);
    this.settings.forget(name);
  }

  async delete(name: string): Promise<void> {
    this.guardWrite();
    const collection = this.pushCollection(name, { start: false, allowMeta: true });
    await collection?.stop();
    this.collections.delete(name);
    try {
      rmSync(this.home.collectionDataFolder(name), { recursive: true, force: true });
      rmSync(this.home.collectionConfFolder(name), { recursive: true, force: true });
    } finally {
      // In the same turn as the removal: no query in between finds it on disk again.
      this.existing.delete(name);
      this.settings.forget(name);
    }
  }

  names(): string[] {
    const conf = this.home.confFolder;
    if (!existsSync(conf)) return [];
    return readdirSync(conf, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .filter((name) => {
        try {
          return this.exists(name);
        } catch {
          return false;
        }
      })
      .sort();
  }

  list(): CollectionInfo[] {
    return this.names().map((name) => {
      const type = this.typeOf(name);
      if (type === 'meta') return { name, type, state: 'RUNNING' as const, members: this.membersOf(name) };
      const view = this.collection(name).stateView();
      return {
        name,
        type,
        state: view.state,
        ...(view.documents !== undefined ? { documents: view.documents } : {}),
        ...(view.generations !== undefined ? { generations: view.generations } : {}),
        ...(view.stagedChanges !== undefined ? { stagedChanges: view.stagedChanges } : {}),
      };
    });
  }

  /** The push collection object (not started). Throws 404 for unknown names, 400 for meta collections. */
  collection(name: string): PushCollection {
    return this.pushCollection(name, { start: false, allowMeta: false })!;
  }

  private pushCollection(
    name: string,
    options: { start: boolean; allowMeta: boolean },
  ): PushCollection | undefined {
    validateName('collection', name);
    // Opened before: known to exist and to be a push collection (delete() forgets it). This
    // spares every push request the disk reads below, which cost ~10% of a document PUT.
    const opened = this.collections.get(name);
    if (opened !== undefined) return opened;
    if (!this.exists(name))
      throw new SearchError(
        'COLLECTION_NOT_FOUND',
        `collection ${name} does not exist; create it in the admin API first`,
      );
    if (this.typeOf(name) === 'meta') {
      if (options.allowMeta) return undefined;
      throw new SearchError(
        'PARAMETER_INVALID',
        `collection ${name} is a meta collection: push documents to its members`,
      );
    }
    let collection = this.collections.get(name);
    if (collection === undefined) {
      collection = new PushCollection(
        name,
        this.home,
        this.log,
        () => this.guardWrite(),
        this.settings,
        undefined,
        this.replication,
      );
      this.collections.set(name, collection);
    }
    return collection;
  }

  /** Refuses writes while the installation is being (or has been) prepared for an upgrade. */
  guardWrite(): void {
    if (this.upgrade !== undefined) {
      throw new SearchError(
        'UPGRADE_PREPARING',
        'the installation is prepared for an upgrade: writes are refused until the server restarts',
        { details: { retryAfter: UPGRADE_RETRY_AFTER_SECONDS } },
      );
    }
  }

  /** Starts the preparation (idempotent): writes refused, every collection committed, merges finished, files synced. */
  prepareUpgrade(): { state: UpgradeState } {
    if (this.upgrade === undefined) {
      this.upgrade = { state: 'IN_PROGRESS' };
      const upgrade = this.upgrade;
      void (async () => {
        for (const collection of this.collections.values()) {
          try {
            await collection.quiesce();
          } catch (error) {
            upgrade.error = (error as Error).message;
            this.log.error(
              { collection: collection.name, err: { message: upgrade.error } },
              'upgrade preparation: commit failed',
            );
          }
        }
        upgrade.state = 'PREPARED';
      })();
    }
    return { state: this.upgrade.state };
  }

  /** Undefined until prepareUpgrade() was called (the API answers 503 then). */
  upgradeStatus(): { state: UpgradeState; error?: string } | undefined {
    return this.upgrade === undefined ? undefined : { ...this.upgrade };
  }

  async closeAll(): Promise<void> {
    if (this.configWatch !== undefined) clearInterval(this.configWatch.timer);
    this.configWatch = undefined;
    await Promise.allSettled([...this.collections.values()].map((c) => c.stop()));
  }

  private readCfg(name: string): Map<string, string> {
    return readCollectionCfg(this.home, name);
  }
}
