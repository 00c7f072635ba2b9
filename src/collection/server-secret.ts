import { readFileSync, statSync } from 'node:fs';
import { parseCfg } from './config/cfg-file.js';

/** The global.cfg key holding the secret that master and query processors share. */
export const SERVER_SECRET_KEY = 'server_secret';

/**
 * `server_secret` of `conf/global.cfg`, which signs and verifies the requests between a
 * master and its query processors (see `src/replication/sync-signature.ts`). The file is
 * parsed again only when it changed (one `stat` per sync request), so that a secret
 * corrected by hand applies without a restart; a file that does not parse counts as no
 * secret (sync requests are then refused with a message saying so).
 */
export class ServerSecret {
  private seen: string | undefined;
  private value: string | undefined;

  constructor(private readonly globalConfigFile: string) {}

  get(): string | undefined {
    let stamp: string;
    try {
      const info = statSync(this.globalConfigFile);
      stamp = `${info.ino}:${info.mtimeMs}:${info.size}`;
    } catch {
      this.seen = undefined;
      this.value = undefined;
      return undefined;
    }
    if (stamp !== this.seen) {
      this.seen = stamp;
      try {
        const text = parseCfg(readFileSync(this.globalConfigFile, 'utf8'), 'conf/global.cfg')
          .get(SERVER_SECRET_KEY)
          ?.trim();
        this.value = text === undefined || text === '' ? undefined : text;
      } catch {
        this.value = undefined;
      }
    }
    return this.value;
  }
}
