import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { verifyPassword } from './password-hash.js';
import { ALL_COLLECTIONS, PERMISSIONS } from './permissions.js';
import { writeFileAtomically, type UserStore } from './user-store.js';

/** Name of the user created on first start. */
export const INITIAL_ADMIN = 'admin';
/** File (under `conf/`) that receives a generated first-start password. */
export const INITIAL_PASSWORD_FILE = 'initial-admin-password';

/** What {@link ensureInitialAdmin} did, for the start-up log. */
export type InitialAdmin =
  /** Users existed and nothing was asked (no `SEARCH_ADMIN_PASSWORD`), or it matches admin's password. */
  | { kind: 'unchanged' }
  /** First start: `admin` created; `passwordFile` is where a generated password went (undefined: it is `SEARCH_ADMIN_PASSWORD`). */
  | { kind: 'created'; passwordFile?: string }
  /** `SEARCH_ADMIN_PASSWORD` replaced the generated first-start password, which nobody had changed (its file is gone). */
  | { kind: 'adopted' }
  /** `SEARCH_ADMIN_PASSWORD` differs from admin's password, which someone chose: ignored. */
  | { kind: 'ignored'; reason: string };

/**
 * What `SEARCH_ADMIN_PASSWORD` (`password`) means:
 *
 * - First start (no user at all): `admin` is created with every permission on every
 *   collection. Its password is `password`, or a random one written to
 *   `conf/initial-admin-password` with mode 0600 (readable by the account that runs the server).
 * - Later starts, while admin still has that generated password (the file is there and holds
 *   it): `password` replaces it and the file is removed. So "start once, then start with
 *   SEARCH_ADMIN_PASSWORD" works in that order.
 * - Otherwise the password is someone's choice (set through the admin API, the UI or
 *   `pushsearch user passwd`) and the variable never overrides it: a `password` that does not
 *   match it is reported as ignored, for the caller to say loudly.
 */
export async function ensureInitialAdmin(
  users: UserStore,
  confFolder: string,
  password?: string,
): Promise<InitialAdmin> {
  const passwordFile = join(confFolder, INITIAL_PASSWORD_FILE);
  if (users.size === 0) {
    const chosen = password ?? randomBytes(18).toString('base64url');
    // Written before the user exists: a crash in between leaves no admin whose password nobody knows.
    if (password === undefined) writeFileAtomically(passwordFile, chosen + '\n');
    await users.put(INITIAL_ADMIN, {
      password: chosen,
      permissions: [...PERMISSIONS],
      collections: [ALL_COLLECTIONS],
    });
    return password === undefined ? { kind: 'created', passwordFile } : { kind: 'created' };
  }
  const admin = users.get(INITIAL_ADMIN);
  if (admin === undefined) {
    // A file left over from a deleted admin says nothing true any more.
    rmSync(passwordFile, { force: true });
    return password === undefined
      ? { kind: 'unchanged' }
      : { kind: 'ignored', reason: `there is no user ${INITIAL_ADMIN} (it was deleted)` };
  }
  const generated = existsSync(passwordFile) ? readFileSync(passwordFile, 'utf8').trim() : undefined;
  const stillGenerated = generated !== undefined && (await verifyPassword(generated, admin.passwordHash));
  if (generated !== undefined && !stillGenerated) {
    // The password changed while the server was down (or by an older version): the file is stale.
    rmSync(passwordFile, { force: true });
  }
  if (password === undefined || (await verifyPassword(password, admin.passwordHash))) {
    return { kind: 'unchanged' };
  }
  if (stillGenerated) {
    // Removes the file too (the store's password-change hook, see openSecurity).
    await users.put(INITIAL_ADMIN, {
      password,
      permissions: admin.permissions,
      collections: admin.collections,
    });
    rmSync(passwordFile, { force: true });
    return { kind: 'adopted' };
  }
  return {
    kind: 'ignored',
    reason: `it does not match ${INITIAL_ADMIN}'s password, which was set after the first start`,
  };
}

/** Removes the generated first-start password once admin's password changed: it no longer opens anything. */
export function forgetInitialPassword(confFolder: string, user: string): void {
  if (user === INITIAL_ADMIN) rmSync(join(confFolder, INITIAL_PASSWORD_FILE), { force: true });
}
