import { existsSync, readFileSync } from 'node:fs';
import { parseCfg } from './config/cfg-file.js';
import { resolveCollectionConfig, type CollectionConfig } from './config/collection-config.js';
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

function readOptional(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** Reads and validates a collection's configuration; a bad file throws CONFIG_INVALID naming file and line. */
export function loadCollectionSettings(home: SearchHome, collection: string): CollectionSettings {
  const globalText = readOptional(home.globalConfigFile);
  const collectionText = readOptional(home.collectionConfigFile(collection)) ?? '';
  const config = resolveCollectionConfig({
    collection: parseCfg(collectionText, `conf/${collection}/collection.cfg`),
    global: globalText === undefined ? undefined : parseCfg(globalText, 'conf/global.cfg'),
    collectionFile: `conf/${collection}/collection.cfg`,
    globalFile: 'conf/global.cfg',
  });
  const file = (name: string) => readOptional(home.collectionConfigFile(collection, name));
  const metamapText = file('metamap.cfg');
  const xmlText = file('xml.cfg');
  const gscopesText = file('gscopes.cfg');
  const qieText = file('qie.cfg');
  return {
    config,
    metamap:
      metamapText === undefined
        ? { classes: new Map() }
        : parseMetamap(metamapText, `conf/${collection}/metamap.cfg`),
    xml: xmlText === undefined ? undefined : parseXmlConfig(xmlText, `conf/${collection}/xml.cfg`),
    gscopes:
      gscopesText === undefined ? undefined : parseGscopes(gscopesText, `conf/${collection}/gscopes.cfg`),
    qie: qieText === undefined ? undefined : parseQie(qieText, `conf/${collection}/qie.cfg`),
  };
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
