import { SearchError } from '../errors.js';

/** Use of the push API (`/push-api/`) on the collections the user may access. */
export const PUSH_PERMISSION = 'sec.continuous.rest';
/** The admin API (`/admin-api/v1/`) and the installation-wide upgrade calls. */
export const ADMIN_PERMISSION = 'sec.administer';

/** Every permission a user can hold. */
export const PERMISSIONS = Object.freeze([PUSH_PERMISSION, ADMIN_PERMISSION] as const);

/** A permission name. */
export type Permission = (typeof PERMISSIONS)[number];

/** Every collection, present and future, in a user's access list. */
export const ALL_COLLECTIONS = '*';

/** User names: what fits in a Basic header and a log line without quoting. */
const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** Passwords: long enough to resist guessing, short enough to hash without a denial of service. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

/** Throws `USER_NAME_INVALID` unless `name` is a valid user name. */
export function validateUserName(name: string): string {
  if (!USER_NAME.test(name)) {
    throw new SearchError(
      'USER_NAME_INVALID',
      `user name ${JSON.stringify(name)} is invalid: use 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit`,
    );
  }
  return name;
}

/** Throws `PASSWORD_INVALID` unless `password` has an acceptable length. */
export function validatePassword(password: string): string {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    throw new SearchError(
      'PASSWORD_INVALID',
      `the password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`,
    );
  }
  return password;
}

/** True when `name` is a known permission. */
export function isPermission(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}
