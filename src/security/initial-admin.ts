import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ALL_COLLECTIONS, PERMISSIONS } from './permissions.js';
import { writeFileAtomically, type UserStore } from './user-store.js';

/** Name of the user created on first start. */
export const INITIAL_ADMIN = 'admin';
/** File (under `conf/`) that receives a generated first-start password. */
export const INITIAL_PASSWORD_FILE = 'initial-admin-password';

/** What {@link ensureInitialAdmin} did. */
export interface InitialAdmin {
  /** Undefined when users existed already (nothing done). */
  created?: {
    /** Where the generated password was written; undefined when it came from the caller (`SEARCH_ADMIN_PASSWORD`). */
    passwordFile?: string;
  };
}

/**
 * First start: when there is no user at all, creates `admin` with every permission on every
 * collection. Its password is `password` when given (the `SEARCH_ADMIN_PASSWORD`
 * environment variable), else a random one written to `conf/initial-admin-password` with
 * mode 0600 (readable by the account that runs the server only).
 */
export async function ensureInitialAdmin(
  users: UserStore,
  confFolder: string,
  password?: string,
): Promise<InitialAdmin> {
  if (users.size > 0) return {};
  const chosen = password ?? randomBytes(18).toString('base64url');
  let passwordFile: string | undefined;
  if (password === undefined) {
    // Written before the user exists: a crash in between leaves no admin whose password nobody knows.
    passwordFile = join(confFolder, INITIAL_PASSWORD_FILE);
    writeFileAtomically(passwordFile, chosen + '\n');
  }
  await users.put(INITIAL_ADMIN, {
    password: chosen,
    permissions: [...PERMISSIONS],
    collections: [ALL_COLLECTIONS],
  });
  return { created: passwordFile === undefined ? {} : { passwordFile } };
}
