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
