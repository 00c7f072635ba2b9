import { SearchError } from '../errors.js';

/** A collection's mode: `DEFAULT` accepts changes; `SLAVE` is a read-only query processor that syncs from its master. */
export type CollectionMode = 'DEFAULT' | 'SLAVE';

/** The collection.cfg keys of replication (issue #21), read from `config.extra`. */
export const REPLICATION_CONFIG_KEYS = {
  run: 'push.run',
  initialMode: 'push.initial-mode',
  masterUrl: 'push.replication.master-url',
} as const;

/** What a collection's configuration says about replication. */
export interface ReplicationSettings {
  /** `push.run` (default true): false stops the collection and its sync; searches still run. */
  run: boolean;
  /** `push.initial-mode` (default DEFAULT): the mode of the collection's first start. */
  initialMode: CollectionMode;
  /** `push.replication.master-url`: base URL of the master (the admin or another query processor). */
  masterUrl: string | undefined;
}

/**
 * The replication keys of a collection's configuration, validated: a value that is not
 * `true`/`false`, a mode other than DEFAULT or SLAVE, or a master URL that is not http(s)
 * throws `CONFIG_INVALID` naming the key and the file, so a query processor never runs
 * against a master nobody meant.
 */
export function replicationSettingsFrom(
  extra: ReadonlyMap<string, string>,
  file = 'collection.cfg',
): ReplicationSettings {
  const runText = extra.get(REPLICATION_CONFIG_KEYS.run)?.trim().toLowerCase();
  if (runText !== undefined && runText !== '' && runText !== 'true' && runText !== 'false')
    throw invalid(
      file,
      `${REPLICATION_CONFIG_KEYS.run} must be true or false, found ${JSON.stringify(runText)}`,
    );
  const modeText = extra.get(REPLICATION_CONFIG_KEYS.initialMode)?.trim().toUpperCase();
  if (modeText !== undefined && modeText !== '' && modeText !== 'DEFAULT' && modeText !== 'SLAVE')
    throw invalid(
      file,
      `${REPLICATION_CONFIG_KEYS.initialMode} must be DEFAULT or SLAVE, found ${JSON.stringify(modeText)}`,
    );
  const urlText = extra.get(REPLICATION_CONFIG_KEYS.masterUrl)?.trim();
  let masterUrl: string | undefined;
  if (urlText !== undefined && urlText !== '') {
    let url: URL | undefined;
    try {
      url = new URL(urlText);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw invalid(
        file,
        `${REPLICATION_CONFIG_KEYS.masterUrl} must be the master's base URL (http://host:port), found ${JSON.stringify(urlText)}`,
      );
    masterUrl = urlText.replace(/\/+$/, '');
  }
  return {
    run: runText !== 'false',
    initialMode: modeText === 'SLAVE' ? 'SLAVE' : 'DEFAULT',
    masterUrl,
  };
}

function invalid(file: string, message: string): SearchError {
  return new SearchError('CONFIG_INVALID', `${file}: ${message}`, { details: { file } });
}
