import type { SearchIndex } from '../index/search-index.js';
import type { SchemaOptions } from '../index/schema.js';
import type { CollectionSettings } from './collection-settings.js';

/**
 * The engine schema of a collection. `indexer_options` may switch stemming off (`-stem=0`)
 * or on stop words (`-stopwords=1`); anything else there is kept for later indexer stages.
 * A change needs RE_INDEX, as the spec says of indexer options.
 */
export function indexSchemaFor(settings: CollectionSettings): SchemaOptions {
  const flags = new Map<string, string>();
  for (const token of settings.config.indexerOptions.split(/\s+/)) {
    const match = /^-([A-Za-z_][\w.-]*)(?:=(.*))?$/.exec(token);
    if (match !== null) flags.set(match[1]!, match[2] ?? 'true');
  }
  const stem = flags.get('stem');
  const stopWords = flags.get('stopwords');
  return {
    defaultAnalyzer: {
      ...(stem !== undefined ? { stem: stem !== '0' && stem !== 'false' } : {}),
      ...(stopWords !== undefined ? { stopWords: stopWords !== '0' && stopWords !== 'false' } : {}),
    },
  };
}

/** The manifest user-data entry that records the analysis a collection's documents were indexed with. */
export const SCHEMA_USER_DATA = 'schema';

/** The analysis recorded in the index's last manifest; undefined for an index from before such records (or a new one). */
export function recordedSchemaOf(index: SearchIndex): SchemaOptions | undefined {
  return schemaRecordedIn(index.lastCommit);
}

/** The analysis recorded in a manifest (a replicated or frozen one too); undefined when none is. */
export function schemaRecordedIn(manifest: { userData: Record<string, unknown> }): SchemaOptions | undefined {
  const recorded = manifest.userData[SCHEMA_USER_DATA];
  return typeof recorded === 'object' && recorded !== null ? (recorded as SchemaOptions) : undefined;
}

/** Whether two schemas analyse alike (`indexSchemaFor` builds them with a fixed key order). */
export function sameSchema(a: SchemaOptions | undefined, b: SchemaOptions | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
