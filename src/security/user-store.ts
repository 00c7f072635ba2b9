import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { validateName } from '../collection/search-home.js';
import { diskFullError, isDiskFull, SearchError } from '../errors.js';
import { DEFAULT_SCRYPT_PARAMS, hashPassword, type ScryptParams } from './password-hash.js';
import {
  ADMIN_PERMISSION,
  ALL_COLLECTIONS,
  isPermission,
  validatePassword,
  validateUserName,
  type Permission,
} from './permissions.js';

/** A user as stored (the password only as its scrypt hash). */
export interface StoredUser {
  name: string;
  passwordHash: string;
  permissions: Permission[];
  /** Collection names, or `["*"]` for every collection. */
  collections: string[];
  created: string;
  updated: string;
}

/** A user as the admin API shows it: never the password or its hash. */
export interface UserView {
  name: string;
  permissions: Permission[];
  collections: string[];
  created: string;
  updated: string;
  /** Tokens of the user that are not expired or revoked. */
  activeTokens: number;
}

/** A token as stored: its id and the SHA-256 of its secret, never the token itself. */
export interface StoredToken {
  id: string;
  secretHash: string;
  user: string;
  /** Milliseconds since the epoch. */
  created: number;
  /** Milliseconds since the epoch; {@link NO_EXPIRY} for an API token without expiry. */
  expires: number;
  /** API tokens only: the name an administrator gave it (unique per user). Login tokens have none. */
  name?: string;
  /** API tokens only: the collections it may reach (never wider than its user's, checked again at each use). */
  collections?: string[];
}

/** `expires` of an API token that never expires. */
export const NO_EXPIRY = Number.MAX_SAFE_INTEGER;

/** Login tokens a user keeps at most: logging in beyond it ends the oldest session. */
export const MAX_LOGIN_TOKENS_PER_USER = 50;

/** API tokens a user may hold. */
export const MAX_API_TOKENS_PER_USER = 100;

/** An API token as the admin API shows it: never its secret or hash. */
export interface ApiTokenView {
  name: string;
  user: string;
  /** Collection names, or `["*"]`: the token's own scope (the user's access still applies). */
  collections: string[];
  created: string;
  /** ISO date, or null: never. */
  expires: string | null;
}

/** What {@link UserStore.createApiToken} takes. */
export interface ApiTokenInput {
  name: string;
  /** Default: the user's collections at creation (`["*"]` for a user with every collection). */
  collections?: readonly string[];
  /** Milliseconds since the epoch; absent: never expires. */
  expires?: number;
}

const TOKEN_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** What {@link UserStore.put} sets. */
export interface UserInput {
  /** Required when the user is new; when absent, an existing user keeps its password. */
  password?: string;
  permissions: readonly string[];
  collections: readonly string[];
}

/** Options of {@link UserStore}. */
export interface UserStoreOptions {
  /** Time source (tests move it to expire tokens). Default `Date.now`. */
  clock?: () => number;
  /** scrypt cost of new hashes. Default {@link DEFAULT_SCRYPT_PARAMS}. */
  scrypt?: ScryptParams;
  /** Called after an existing user's password changed (and was saved). */
  onPasswordChanged?: (user: string) => void;
}

const FORMAT = 'pushsearch-users';
const VERSION = 1;
const TOKEN_ID = /^[A-Za-z0-9_-]{12}$/;

interface FileBody {
  format: string;
  version: number;
  users: StoredUser[];
  tokens: StoredToken[];
}

/**
 * Users, permissions and login tokens of the installation, in `conf/users.json`.
 *
 * The file holds password hashes (scrypt) and token hashes (SHA-256 of a 256-bit random
 * secret), never a password or a token. It is written whole on every change: to a temporary
 * file with mode 0600, fsynced, renamed over the old one, the folder fsynced, so that a
 * crash leaves either the old or the new file. Its last field is the SHA-256 of the rest:
 * a damaged or hand-edited file is refused at start with `USERS_FILE_CORRUPT`.
 *
 * Tokens are `{id}.{secret}`: the id finds the record, the secret's hash is compared in
 * constant time, so neither a lookup nor a comparison leaks how much of a guess was right.
 */
export class UserStore {
  readonly file: string;
  private readonly users = new Map<string, StoredUser>();
  private readonly tokens = new Map<string, StoredToken>();
  /** What the file holds (records are replaced, never changed in place): restored when a write fails. */
  private saved: { users: Map<string, StoredUser>; tokens: Map<string, StoredToken> } = {
    users: new Map(),
    tokens: new Map(),
  };
  private readonly clock: () => number;
  private readonly scrypt: ScryptParams;
  private readonly onPasswordChanged: ((user: string) => void) | undefined;

  constructor(file: string, options: UserStoreOptions = {}) {
    this.file = file;
    this.onPasswordChanged = options.onPasswordChanged;
    this.clock = options.clock ?? Date.now;
    this.scrypt = options.scrypt ?? DEFAULT_SCRYPT_PARAMS;
    if (existsSync(file)) this.load();
    this.saved = { users: new Map(this.users), tokens: new Map(this.tokens) };
  }

  /** Number of users. */
  get size(): number {
    return this.users.size;
  }

  /** The stored user, or undefined. */
  get(name: string): StoredUser | undefined {
    return this.users.get(name);
  }

  /** Every user, by name, without secrets. */
  list(): UserView[] {
    return [...this.users.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((user) => this.view(user));
  }

  /** One user without secrets. */
  view(user: StoredUser): UserView {
    const now = this.clock();
    let activeTokens = 0;
    for (const token of this.tokens.values())
      if (token.user === user.name && token.expires > now) activeTokens++;
    return {
      name: user.name,
      permissions: [...user.permissions],
      collections: [...user.collections],
      created: user.created,
      updated: user.updated,
      activeTokens,
    };
  }

  /**
   * Creates or replaces a user. A new or changed password revokes the user's login tokens (its
   * API tokens are credentials of their own, revoked one by one or all with {@link revokeTokens}).
   * Refuses (`LAST_ADMINISTRATOR`) to take `sec.administer` from the last user holding it.
   */
  async put(name: string, input: UserInput): Promise<{ created: boolean; tokensRevoked: number }> {
    validateUserName(name);
    const permissions = normalizePermissions(input.permissions);
    const collections = normalizeCollections(input.collections);
    if (input.password === undefined && !this.users.has(name)) {
      throw new SearchError('PASSWORD_INVALID', `user ${name} is new: give it a password`);
    }
    if (input.password !== undefined) validatePassword(input.password);
    const passwordHash =
      input.password === undefined ? undefined : await hashPassword(input.password, this.scrypt);

    // Read again after the (slow) hash: another request may have changed the user meanwhile.
    const existing = this.users.get(name);
    if (!permissions.includes(ADMIN_PERMISSION)) this.guardLastAdministrator(name);
    const now = new Date(this.clock()).toISOString();
    const user: StoredUser = {
      name,
      passwordHash: passwordHash ?? (existing as StoredUser).passwordHash,
      permissions,
      collections,
      created: existing?.created ?? now,
      updated: now,
    };
    this.users.set(name, user);
    const tokensRevoked = passwordHash !== undefined ? this.dropTokens(name, 'login') : 0;
    this.save();
    if (passwordHash !== undefined && existing !== undefined) this.onPasswordChanged?.(name);
    return { created: existing === undefined, tokensRevoked };
  }

  /** Deletes a user and its tokens. `USER_NOT_FOUND` when unknown. */
  delete(name: string): void {
    this.require(name);
    this.guardLastAdministrator(name);
    this.users.delete(name);
    this.dropTokens(name);
    this.save();
  }

  /** The user or `USER_NOT_FOUND`. */
  require(name: string): StoredUser {
    const user = this.users.get(name);
    if (user === undefined)
      throw new SearchError('USER_NOT_FOUND', `there is no user ${JSON.stringify(name)}`);
    return user;
  }

  /**
   * Issues a login token for `user` valid `ttlMs`; the token itself is returned once and never
   * stored. A user keeps at most {@link MAX_LOGIN_TOKENS_PER_USER}: the oldest go first.
   */
  issueToken(user: string, ttlMs: number): { token: string; expires: number } {
    this.require(user);
    const logins = [...this.tokens.values()]
      .filter((t) => t.user === user && t.name === undefined)
      .sort((a, b) => a.created - b.created);
    for (const old of logins.slice(0, Math.max(0, logins.length - MAX_LOGIN_TOKENS_PER_USER + 1)))
      this.tokens.delete(old.id);
    const created = this.clock();
    const { token, record } = this.newToken(user, created, created + ttlMs);
    this.tokens.set(record.id, record);
    this.save();
    return { token, expires: record.expires };
  }

  /**
   * Creates a named API token for `user`: `X-Security-Token` like a login token, without the
   * 14 days (an optional expiry instead), reaching only `collections` (which must lie within the
   * user's). The token is returned once and never stored. `API_TOKEN_EXISTS` when the user has
   * one of that name.
   */
  createApiToken(user: string, input: ApiTokenInput): { token: string; apiToken: ApiTokenView } {
    const owner = this.require(user);
    if (!TOKEN_NAME.test(input.name)) {
      throw new SearchError(
        'PARAMETER_INVALID',
        `the token name ${JSON.stringify(input.name)} is not valid: 1 to 64 letters, digits, '.', '_', '@', '-'`,
      );
    }
    const mine = [...this.tokens.values()].filter((t) => t.user === user && t.name !== undefined);
    if (mine.some((t) => t.name === input.name))
      throw new SearchError('API_TOKEN_EXISTS', `user ${user} already has an API token named ${input.name}`);
    if (mine.length >= MAX_API_TOKENS_PER_USER) {
      throw new SearchError(
        'PARAMETER_INVALID',
        `user ${user} has ${MAX_API_TOKENS_PER_USER} API tokens, the most allowed: revoke one first`,
      );
    }
    const collections = normalizeCollections(input.collections ?? owner.collections);
    if (!owner.collections.includes(ALL_COLLECTIONS)) {
      const outside = collections.filter((c) => !owner.collections.includes(c));
      if (outside.length > 0) {
        throw new SearchError(
          'PARAMETER_INVALID',
          `an API token reaches no more than its user: ${user} has no access to ${outside.join(', ')}`,
        );
      }
    }
    const created = this.clock();
    if (input.expires !== undefined && !(Number.isFinite(input.expires) && input.expires > created))
      throw new SearchError('PARAMETER_INVALID', 'the expiry of an API token must lie in the future');
    const { token, record } = this.newToken(user, created, input.expires ?? NO_EXPIRY);
    record.name = input.name;
    record.collections = collections;
    this.tokens.set(record.id, record);
    this.save();
    return { token, apiToken: apiTokenView(record) };
  }

  /** The live API tokens of `user`, by name. `USER_NOT_FOUND` when unknown. */
  listApiTokens(user: string): ApiTokenView[] {
    this.require(user);
    const now = this.clock();
    return [...this.tokens.values()]
      .filter((t) => t.user === user && t.name !== undefined && t.expires > now)
      .sort((a, b) => (a.name! < b.name! ? -1 : a.name! > b.name! ? 1 : 0))
      .map(apiTokenView);
  }

  /** Revokes the API token `name` of `user`. `USER_NOT_FOUND`, `API_TOKEN_NOT_FOUND`. */
  revokeApiToken(user: string, name: string): void {
    this.require(user);
    const record = [...this.tokens.values()].find(
      (t) => t.user === user && t.name === name && t.expires > this.clock(),
    );
    if (record === undefined)
      throw new SearchError(
        'API_TOKEN_NOT_FOUND',
        `user ${user} has no API token named ${JSON.stringify(name)}`,
      );
    this.tokens.delete(record.id);
    this.save();
  }

  private newToken(user: string, created: number, expires: number): { token: string; record: StoredToken } {
    // Never a leading '-' (1 draw in 64 of base64url): `--token -x...` reads as an option to
    // the CLI's parser (and to most others), so such a token could not be passed as documented.
    let id = randomBytes(9).toString('base64url');
    while (id.startsWith('-')) id = randomBytes(9).toString('base64url');
    const secret = randomBytes(32).toString('base64url');
    return { token: `${id}.${secret}`, record: { id, secretHash: sha256(secret), user, created, expires } };
  }

  /** The live token record `token` names, or undefined (unknown, wrong secret, expired, revoked). */
  findToken(token: string): StoredToken | undefined {
    const dot = token.indexOf('.');
    const id = token.slice(0, dot);
    if (dot === -1 || !TOKEN_ID.test(id)) return undefined;
    const record = this.tokens.get(id);
    if (record === undefined) return undefined;
    const given = Buffer.from(sha256(token.slice(dot + 1)), 'hex');
    if (!timingSafeEqual(given, Buffer.from(record.secretHash, 'hex'))) return undefined;
    if (record.expires <= this.clock() || !this.users.has(record.user)) return undefined;
    return record;
  }

  /**
   * Whether a record {@link findToken} returned is still live: not revoked, not expired, its
   * user still there. No hashing: for callers that remember which token they checked.
   */
  isLive(record: StoredToken): boolean {
    return (
      this.tokens.get(record.id) === record && record.expires > this.clock() && this.users.has(record.user)
    );
  }

  /** Revokes one token (logout). True when it was live. */
  revokeToken(token: string): boolean {
    const record = this.findToken(token);
    if (record === undefined) return false;
    this.tokens.delete(record.id);
    this.save();
    return true;
  }

  /** Revokes every token of `user`, login and API tokens; returns how many were live. `USER_NOT_FOUND` when unknown. */
  revokeTokens(user: string): number {
    this.require(user);
    const count = this.dropTokens(user);
    this.save();
    return count;
  }

  private dropTokens(user: string, only?: 'login'): number {
    const now = this.clock();
    let live = 0;
    for (const [id, token] of this.tokens) {
      if (token.user !== user) continue;
      if (only === 'login' && token.name !== undefined) continue;
      if (token.expires > now) live++;
      this.tokens.delete(id);
    }
    return live;
  }

  private guardLastAdministrator(name: string): void {
    const admins = [...this.users.values()].filter((u) => u.permissions.includes(ADMIN_PERMISSION));
    if (admins.length === 1 && admins[0]?.name === name) {
      throw new SearchError(
        'LAST_ADMINISTRATOR',
        `${name} is the last user with ${ADMIN_PERMISSION}: give the permission to another user first`,
      );
    }
  }

  private load(): void {
    const name = `conf/${basename(this.file)}`;
    const fail = (problem: string): never => {
      throw new SearchError(
        'USERS_FILE_CORRUPT',
        `${name} is unreadable: ${problem}; restore it from a backup (or remove it: the next start creates a new admin user)`,
        { details: { file: name } },
      );
    };
    let parsed: (FileBody & { sha256?: unknown }) | undefined;
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8')) as FileBody & { sha256?: unknown };
    } catch (error) {
      fail(`not JSON (${(error as Error).message})`);
    }
    const body = parsed as FileBody & { sha256?: unknown };
    const { sha256: checksum, ...rest } = body;
    if (rest.format !== FORMAT) fail(`the format is ${JSON.stringify(rest.format)}, expected ${FORMAT}`);
    if (rest.version !== VERSION)
      fail(`version ${String(rest.version)} is not supported (this server reads version ${VERSION})`);
    if (typeof checksum !== 'string' || checksum !== sha256(JSON.stringify(rest)))
      fail('the checksum does not match its content');
    if (!Array.isArray(rest.users) || !Array.isArray(rest.tokens)) fail('users or tokens are missing');
    for (const user of rest.users) this.users.set(user.name, user);
    const now = this.clock();
    for (const token of rest.tokens) if (token.expires > now) this.tokens.set(token.id, token);
  }

  /**
   * Writes the file; when that fails, the users and tokens in memory go back to what the file
   * holds (a change refused is a change not made), and a full disk is `INSUFFICIENT_STORAGE`
   * (507) like the push API's, not an internal error.
   */
  private save(): void {
    try {
      this.write();
      this.saved = { users: new Map(this.users), tokens: new Map(this.tokens) };
    } catch (error) {
      this.users.clear();
      for (const [name, user] of this.saved.users) this.users.set(name, user);
      this.tokens.clear();
      for (const [id, token] of this.saved.tokens) this.tokens.set(id, token);
      if (isDiskFull(error)) throw diskFullError('saving conf/users.json (users and tokens)', error);
      throw error;
    }
  }

  private write(): void {
    const now = this.clock();
    for (const [id, token] of this.tokens) if (token.expires <= now) this.tokens.delete(id);
    const body: FileBody = {
      format: FORMAT,
      version: VERSION,
      users: [...this.users.values()],
      tokens: [...this.tokens.values()],
    };
    const text = JSON.stringify({ ...body, sha256: sha256(JSON.stringify(body)) }, null, 1) + '\n';
    writeFileAtomically(this.file, text);
  }
}

/**
 * Writes a file (mode 0600 unless `mode` says otherwise) so that a crash leaves the old or the
 * new content, never a mix: temporary file, fsync, rename, fsync of the folder.
 */
export function writeFileAtomically(file: string, text: string, mode = 0o600): void {
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'w', mode);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    // A half-written temporary file would hold space a full disk needs back.
    rmSync(temporary, { force: true });
    throw error;
  }
  const folder = openSync(dirname(file), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function apiTokenView(record: StoredToken): ApiTokenView {
  return {
    name: record.name ?? '',
    user: record.user,
    collections: [...(record.collections ?? [])],
    created: new Date(record.created).toISOString(),
    expires: record.expires === NO_EXPIRY ? null : new Date(record.expires).toISOString(),
  };
}

function normalizePermissions(permissions: readonly string[]): Permission[] {
  const out = new Set<Permission>();
  for (const permission of permissions) {
    if (!isPermission(permission)) {
      throw new SearchError(
        'PARAMETER_INVALID',
        `unknown permission ${JSON.stringify(permission)}: use sec.continuous.rest or sec.administer`,
      );
    }
    out.add(permission);
  }
  return [...out].sort();
}

function normalizeCollections(collections: readonly string[]): string[] {
  if (collections.includes(ALL_COLLECTIONS)) return [ALL_COLLECTIONS];
  return [...new Set(collections.map((name) => validateName('collection', name)))].sort();
}
