import { existsSync, readFileSync } from 'node:fs';
import { parseCfg, type CfgEntries } from './config/cfg-file.js';
import {
  resolveCollectionConfig,
  resolveGlobalConfig,
  type CollectionConfig,
  type ResolvedGlobalConfig,
} from './config/collection-config.js';
import { parseGscopes, type Gscopes } from './config/gscopes.js';
import { parseMetamap, type Metamap } from './config/metamap.js';
import { parseQie, type Qie } from './config/qie.js';
import { parseXmlConfig, type XmlConfig } from './config/xml-config.js';
import type { SearchHome } from './search-home.js';

/** Everything a collection reads from `conf/`: collection.cfg over global.cfg, and the mapping files. */
export interface CollectionSettings {
  config: CollectionConfig;
  metamap: Metamap;
  xml: XmlConfig | undefined;
  gscopes: Gscopes | undefined;
  qie: Qie | undefined;
}

/**
 * The configuration files of a collection, in `conf/{collection}/`: the one list the admin
 * API, the admin UI and the loader below share. `collection.cfg` is the only one required.
 */
export const COLLECTION_CONFIG_FILES = Object.freeze([
  'collection.cfg',
  'metamap.cfg',
  'xml.cfg',
  'gscopes.cfg',
  'qie.cfg',
] as const);

/** The name of one of {@link COLLECTION_CONFIG_FILES}. */
export type CollectionConfigFile = (typeof COLLECTION_CONFIG_FILES)[number];

/** The text of each configuration file of a collection; undefined: the file does not exist. */
export type CollectionConfigTexts = Partial<Record<CollectionConfigFile, string>>;

function readOptional(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** How `conf/global.cfg` is named in messages (relative to the home: messages reach the public). */
const GLOBAL_FILE = 'conf/global.cfg';

/**
 * The entries of `conf/global.cfg` (undefined when it does not exist): the one place that
 * reads and parses it. Throws `CONFIG_INVALID` naming the line of a malformed line.
 */
export function readGlobalEntries(home: SearchHome): CfgEntries | undefined {
  const text = readOptional(home.globalConfigFile);
  return text === undefined ? undefined : parseCfg(text, GLOBAL_FILE);
}

/**
 * The installation-wide configuration (global.cfg), read when the server starts. Throws
 * `CONFIG_INVALID` listing every invalid value; unknown keys come back as warnings.
 */
export function loadGlobalConfig(home: SearchHome): ResolvedGlobalConfig {
  return resolveGlobalConfig(readGlobalEntries(home), { globalFile: GLOBAL_FILE });
}

/** The texts of a collection's configuration files as they are on disk. */
export function readCollectionConfigTexts(home: SearchHome, collection: string): CollectionConfigTexts {
  const texts: CollectionConfigTexts = {};
  for (const file of COLLECTION_CONFIG_FILES) {
    const text = readOptional(home.collectionConfigFile(collection, file));
    if (text !== undefined) texts[file] = text;
  }
  return texts;
}

/**
 * A collection's settings from the texts of its files (on disk, or about to be written by the
 * admin API, which validates with this before writing) and global.cfg's entries. Every key of
 * every file is validated; a bad file throws `CONFIG_INVALID` naming file and line (or key).
 */
export function settingsFromTexts(
  collection: string,
  texts: CollectionConfigTexts,
  global: CfgEntries | undefined,
): CollectionSettings {
  const name = (file: CollectionConfigFile) => `conf/${collection}/${file}`;
  const config = resolveCollectionConfig({
    collection: parseCfg(texts['collection.cfg'] ?? '', name('collection.cfg')),
    global,
    collectionFile: name('collection.cfg'),
    globalFile: GLOBAL_FILE,
  });
  const metamapText = texts['metamap.cfg'];
  const xmlText = texts['xml.cfg'];
  const gscopesText = texts['gscopes.cfg'];
  const qieText = texts['qie.cfg'];
  return {
    config,
    metamap:
      metamapText === undefined ? { classes: new Map() } : parseMetamap(metamapText, name('metamap.cfg')),
    xml: xmlText === undefined ? undefined : parseXmlConfig(xmlText, name('xml.cfg')),
    gscopes: gscopesText === undefined ? undefined : parseGscopes(gscopesText, name('gscopes.cfg')),
    qie: qieText === undefined ? undefined : parseQie(qieText, name('qie.cfg')),
  };
}

/** Reads and validates a collection's configuration; a bad file throws CONFIG_INVALID naming file and line. */
export function loadCollectionSettings(home: SearchHome, collection: string): CollectionSettings {
  return settingsFromTexts(collection, readCollectionConfigTexts(home, collection), readGlobalEntries(home));
}

/**
 * The entries of a collection's collection.cfg, parsed but not validated: what the manager
 * needs to tell a push collection from a meta one even when a value is wrong.
 */
export function readCollectionCfg(home: SearchHome, collection: string): CfgEntries {
  return parseCfg(
    readFileSync(home.collectionConfigFile(collection), 'utf8'),
    `conf/${collection}/collection.cfg`,
  );
}

/** `collection_type` of collection.cfg: `meta` searches other collections, anything else is a push collection. */
export function collectionTypeOf(settings: CollectionSettings): 'push' | 'meta' {
  return settings.config.extra.get('collection_type') === 'meta' ? 'meta' : 'push';
}

/** `meta.members` of a meta collection's collection.cfg, in order. */
export function metaMembersOf(settings: CollectionSettings): string[] {
  return (settings.config.extra.get('meta.members') ?? '')
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member.length > 0);
}
