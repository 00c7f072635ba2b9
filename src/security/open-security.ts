import { join } from 'node:path';
import type { SearchHome } from '../collection/search-home.js';
import { Authenticator, type AuthenticatorOptions, type SecurityLog } from './authenticator.js';
import { ensureInitialAdmin, type InitialAdmin } from './initial-admin.js';
import { DEFAULT_SCRYPT_PARAMS } from './password-hash.js';
import { validatePassword } from './permissions.js';
import { UserStore } from './user-store.js';

/** Security settings of the HTTP application. */
export interface SecurityOptions extends AuthenticatorOptions {
  /**
   * Password of the `admin` user created on first start (when there are no users). Default:
   * the `SEARCH_ADMIN_PASSWORD` environment variable; without it, a random password written
   * to `conf/initial-admin-password`.
   */
  adminPassword?: string;
}

/** File under `$SEARCH_HOME/conf` that holds users and token hashes. */
export const USERS_FILE = 'users.json';

/**
 * Opens `conf/users.json` (creating the first `admin` when there are no users) and the
 * authenticator over it. Logs where the first-start password is.
 */
export async function openSecurity(
  home: SearchHome,
  options: SecurityOptions,
  log: SecurityLog,
): Promise<{ auth: Authenticator; initialAdmin: InitialAdmin }> {
  const scrypt = options.scrypt ?? DEFAULT_SCRYPT_PARAMS;
  const users = new UserStore(join(home.confFolder, USERS_FILE), {
    scrypt,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const password = options.adminPassword ?? process.env.SEARCH_ADMIN_PASSWORD;
  if (password !== undefined && users.size === 0) validatePassword(password);
  const initialAdmin = await ensureInitialAdmin(users, home.confFolder, password);
  if (initialAdmin.created !== undefined) {
    const where = initialAdmin.created.passwordFile;
    log.warn(
      where === undefined ? {} : { passwordFile: where },
      where === undefined
        ? 'first start: created user admin with every permission; its password is SEARCH_ADMIN_PASSWORD'
        : `first start: created user admin with every permission; its password is in ${where} (readable by this account only): log in, set a new password, delete the file`,
    );
  }
  return { auth: new Authenticator(users, log, { ...options, scrypt }), initialAdmin };
}
