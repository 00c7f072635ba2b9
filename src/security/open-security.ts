import { join } from 'node:path';
import type { SearchHome } from '../collection/search-home.js';
import { Authenticator, type AuthenticatorOptions, type SecurityLog } from './authenticator.js';
import { ensureInitialAdmin, forgetInitialPassword, type InitialAdmin } from './initial-admin.js';
import { DEFAULT_SCRYPT_PARAMS } from './password-hash.js';
import { validatePassword } from './permissions.js';
import { UserStore } from './user-store.js';

/** Security settings of the HTTP application. */
export interface SecurityOptions extends AuthenticatorOptions {
  /**
   * Password of the `admin` user created on first start (when there are no users), or
   * replacing its generated first-start password nobody changed (see `ensureInitialAdmin`).
   * Default: the `SEARCH_ADMIN_PASSWORD` environment variable; without it, a random password
   * written to `conf/initial-admin-password`.
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
    onPasswordChanged: (user) => forgetInitialPassword(home.confFolder, user),
  });
  const password = options.adminPassword ?? process.env.SEARCH_ADMIN_PASSWORD;
  if (password !== undefined && password !== '' && users.size === 0) validatePassword(password);
  const initialAdmin = await ensureInitialAdmin(
    users,
    home.confFolder,
    password === '' ? undefined : password,
  );
  switch (initialAdmin.kind) {
    case 'created': {
      const where = initialAdmin.passwordFile;
      log.warn(
        where === undefined ? {} : { passwordFile: where },
        where === undefined
          ? 'first start: created user admin with every permission; its password is SEARCH_ADMIN_PASSWORD'
          : `first start: created user admin with every permission; its password is in ${where} (readable by this account only; removed once the password changes)`,
      );
      break;
    }
    case 'adopted':
      log.warn(
        {},
        'the password of user admin is now SEARCH_ADMIN_PASSWORD (it replaced the generated first-start password, whose file is removed)',
      );
      break;
    case 'ignored':
      log.warn(
        {},
        `SEARCH_ADMIN_PASSWORD is IGNORED: ${initialAdmin.reason}. It sets admin's password only at the first start, or over the generated one; change a password with \`pushsearch user passwd admin\` or in the admin UI`,
      );
      break;
    case 'unchanged':
      break;
  }
  return { auth: new Authenticator(users, log, { ...options, scrypt }), initialAdmin };
}
