import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { BoundedMap } from '../bounded-map.js';
import { SearchError } from '../errors.js';
import { LoginThrottle, type LoginThrottleOptions } from './login-throttle.js';
import { hashPassword, verifyPassword, DEFAULT_SCRYPT_PARAMS, type ScryptParams } from './password-hash.js';
import { ALL_COLLECTIONS, type Permission } from './permissions.js';
import type { StoredToken, StoredUser, UserStore } from './user-store.js';

/** Who a request comes from, once its credentials checked out. */
export interface Principal {
  user: string;
  permissions: ReadonlySet<Permission>;
  /** Collection names, or `["*"]`. */
  collections: readonly string[];
  /** How the request proved it: HTTP Basic or a token (login or API token). */
  via: 'basic' | 'token';
  /** The token the request carried (for logout), when `via` is `token`. */
  token?: string;
}

/** The parts of a request authentication reads. */
export interface CredentialSource {
  headers: IncomingHttpHeaders;
  /** The client address (the throttle counts failures per address). */
  ip: string;
}

/** The minimum of a logger the authenticator writes to (pino's shape). */
export interface SecurityLog {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
}

/** Options of {@link Authenticator}. */
export interface AuthenticatorOptions {
  /** Lifetime of login tokens (default {@link DEFAULT_TOKEN_TTL_MS}). */
  tokenTtlMs?: number;
  /** How long a verified Basic password is remembered, so that scrypt runs once per client, not per request (default 5 minutes; 0: never). */
  credentialCacheMs?: number;
  /** Time source (tests). */
  clock?: () => number;
  /** scrypt cost for the stand-in hash of unknown users (match the store's). */
  scrypt?: ScryptParams;
  throttle?: LoginThrottleOptions;
}

/** Default lifetime of a login token: 14 days. */
export const DEFAULT_TOKEN_TTL_MS = 14 * 24 * 60 * 60 * 1000;
/** Request header that carries a login token, both ways. */
export const TOKEN_HEADER = 'x-security-token';

/**
 * Password checks and checked tokens cached: the 10,000 most recently used of each, at most
 * 20,000 (see BoundedMap).
 */
const MAX_CACHED_CREDENTIALS = 10_000;

const NO_CREDENTIALS =
  'this request needs a user: send HTTP Basic credentials, or the X-Security-Token that POST /admin-api/account/v1/login returns';

/**
 * Checks credentials (HTTP Basic or `X-Security-Token`) and permissions.
 *
 * - Passwords are verified with scrypt against the stored hash; an unknown user is verified
 *   against a stand-in hash, so that the answer takes as long as for a known one. A verified
 *   Basic password is then remembered under an HMAC (with a key that lives only in this
 *   process) for `credentialCacheMs`, as long as the stored hash is unchanged: a client
 *   sending Basic on every request pays scrypt once, and a password change ends it at once.
 * - Failed passwords are counted per user name and per address by {@link LoginThrottle}
 *   and logged with both.
 * - Refusals: `UNAUTHENTICATED` (401) for missing or wrong credentials and for unknown,
 *   expired or revoked tokens; `FORBIDDEN` (403) for a known user without the permission or
 *   the collection; `LOGIN_RATE_LIMITED` (429) while locked.
 */
export class Authenticator {
  readonly tokenTtlMs: number;
  private readonly throttle: LoginThrottle;
  private readonly clock: () => number;
  private readonly cacheMs: number;
  private readonly cacheKey = randomBytes(32);
  private readonly cache = new BoundedMap<string, { user: string; passwordHash: string; until: number }>(
    MAX_CACHED_CREDENTIALS,
  );
  private readonly scrypt: ScryptParams;
  private standIn: Promise<string> | undefined;
  /**
   * Tokens checked before, by token id: a client sends the same token with every request,
   * and hashing its secret and building its principal each time costs more than the rest of
   * the check. An entry counts only while its record is live in the store and its user is
   * the same stored object (any change to a user replaces it), so revocation, expiry,
   * password and permission changes take effect at once. Bounded by recent use, not emptied
   * when full: a server with more clients than the bound keeps the busy ones' entries (entries
   * of revoked or expired tokens are never used again and age out).
   */
  private readonly tokens = new BoundedMap<
    string,
    { token: Buffer; record: StoredToken; user: StoredUser; principal: Principal }
  >(MAX_CACHED_CREDENTIALS);

  constructor(
    readonly users: UserStore,
    private readonly log: SecurityLog,
    options: AuthenticatorOptions = {},
  ) {
    this.tokenTtlMs = options.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS;
    this.clock = options.clock ?? Date.now;
    this.cacheMs = options.credentialCacheMs ?? 5 * 60 * 1000;
    this.scrypt = options.scrypt ?? DEFAULT_SCRYPT_PARAMS;
    this.throttle = new LoginThrottle({ clock: this.clock, ...options.throttle });
  }

  /** The principal of a request, from its token or its Basic credentials; throws 401/429. */
  async authenticate(request: CredentialSource): Promise<Principal> {
    const byToken = this.authenticateToken(request);
    if (byToken !== undefined) return byToken;
    const basic = parseBasic(request.headers.authorization);
    if (basic === undefined) throw new SearchError('UNAUTHENTICATED', NO_CREDENTIALS);
    const user = await this.checkPassword(basic.user, basic.password, request.ip);
    return principal(user, 'basic');
  }

  /**
   * The principal of a request that carries an `X-Security-Token`, checked at once (no
   * waiting: a token needs no password hash); undefined when it carries none. Throws 401
   * for an unknown, expired or revoked token.
   */
  authenticateToken(request: CredentialSource): Principal | undefined {
    const token = request.headers[TOKEN_HEADER];
    return typeof token === 'string' && token !== '' ? this.tokenPrincipal(token) : undefined;
  }

  private tokenPrincipal(token: string): Principal {
    const id = token.slice(0, token.indexOf('.'));
    const known = this.tokens.get(id);
    if (known !== undefined) {
      const given = Buffer.from(token);
      // The id is no secret; the rest is compared in constant time, as the store does.
      if (
        given.length === known.token.length &&
        timingSafeEqual(given, known.token) &&
        this.users.isLive(known.record) &&
        this.users.get(known.record.user) === known.user
      ) {
        return known.principal;
      }
    }
    const record = this.users.findToken(token);
    const user = record === undefined ? undefined : this.users.get(record.user);
    if (record === undefined || user === undefined) {
      throw new SearchError(
        'UNAUTHENTICATED',
        'the X-Security-Token is unknown, expired or revoked: log in again with POST /admin-api/account/v1/login',
      );
    }
    const who = principal(user, 'token', token, record.collections);
    this.tokens.set(record.id, { token: Buffer.from(token), record, user, principal: who });
    return who;
  }

  /** `POST /admin-api/account/v1/login`: checks the password, issues a token. */
  async login(
    name: string,
    password: string,
    address: string,
  ): Promise<{ token: string; expires: number; user: string }> {
    const user = await this.checkPassword(name, password, address, { useCache: false });
    const { token, expires } = this.users.issueToken(user.name, this.tokenTtlMs);
    this.log.info({ user: user.name, address }, 'login: token issued');
    return { token, expires, user: user.name };
  }

  /** Throws `FORBIDDEN` unless the principal holds `permission` (when given) and may access `collection` (when given). */
  authorize(who: Principal, permission: Permission | undefined, collection?: string): void {
    if (permission !== undefined && !who.permissions.has(permission)) {
      throw new SearchError('FORBIDDEN', `user ${who.user} does not have the permission ${permission}`);
    }
    if (collection !== undefined && !mayAccess(who, collection)) {
      throw new SearchError('FORBIDDEN', `user ${who.user} has no access to collection ${collection}`);
    }
  }

  private async checkPassword(
    name: string,
    password: string,
    address: string,
    options: { useCache?: boolean } = {},
  ): Promise<StoredUser> {
    this.throttle.check(name, address);
    const cacheKey = createHmac('sha256', this.cacheKey)
      .update(name)
      .update('\u0000')
      .update(password)
      .digest('base64');
    const useCache = options.useCache !== false && this.cacheMs > 0;
    const cached = useCache ? this.cache.get(cacheKey) : undefined;
    const stored = this.users.get(name);
    if (
      cached !== undefined &&
      stored !== undefined &&
      cached.until > this.clock() &&
      sameText(cached.passwordHash, stored.passwordHash)
    ) {
      this.throttle.recordSuccess(name, address);
      return stored;
    }
    this.standIn ??= hashPassword(randomBytes(16).toString('hex'), this.scrypt);
    const verified = await verifyPassword(password, stored?.passwordHash ?? (await this.standIn));
    // The store may have changed during the hash (user deleted, password replaced).
    const user = this.users.get(name);
    if (!verified || user === undefined || user.passwordHash !== stored?.passwordHash) {
      const counts = this.throttle.recordFailure(name, address);
      this.log.warn({ user: name, address, ...counts }, 'login failed: wrong user name or password');
      throw new SearchError('UNAUTHENTICATED', 'wrong user name or password');
    }
    this.throttle.recordSuccess(name, address);
    if (useCache) {
      this.cache.set(cacheKey, {
        user: name,
        passwordHash: user.passwordHash,
        until: this.clock() + this.cacheMs,
      });
    }
    return user;
  }
}

/** True when the principal's access list names `collection` or every collection. */
export function mayAccess(who: Principal, collection: string): boolean {
  return who.collections.includes(ALL_COLLECTIONS) || who.collections.includes(collection);
}

/**
 * Who a request is. An API token's `scope` narrows the user's collections (never widens them:
 * a user who lost a collection loses it through its tokens too).
 */
function principal(
  user: StoredUser,
  via: 'basic' | 'token',
  token?: string,
  scope?: readonly string[],
): Principal {
  return {
    user: user.name,
    permissions: new Set(user.permissions),
    collections: scope === undefined ? [...user.collections] : narrow(user.collections, scope),
    via,
    ...(token === undefined ? {} : { token }),
  };
}

/** The collections both lists reach (`*` in one of them: the other). */
function narrow(user: readonly string[], scope: readonly string[]): string[] {
  if (user.includes(ALL_COLLECTIONS)) return [...scope];
  if (scope.includes(ALL_COLLECTIONS)) return [...user];
  return user.filter((c) => scope.includes(c));
}

/** `Basic base64(user:password)` (RFC 7617, UTF-8), or undefined when absent or malformed. */
export function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
  if (match === null) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Constant-time equality of two strings (different lengths answer false at once: lengths are not secret here). */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
