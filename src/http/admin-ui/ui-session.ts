import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SearchError } from '../../errors.js';
import { TOKEN_HEADER, type Authenticator, type Principal } from '../../security/authenticator.js';

/** Name of the cookie that carries the login token of a browser session. */
export const SESSION_COOKIE = 'pushsearch_session';
/** Everything the session cookie is sent to: the admin UI and the API UI under it. */
export const SESSION_PATH = '/search/admin';

/** A browser session: who it is, and the login token behind it. */
export interface UiSession {
  principal: Principal;
  token: string;
}

/**
 * Browser sessions of the admin UI and the API UI. A session is a login token of the push
 * API's token mechanism (`Authenticator.login`), kept in an HttpOnly, SameSite=Strict cookie,
 * so that expiry, logout, password changes and revocation end it exactly like an API token.
 * The CSRF token of a session is an HMAC of its login token under a key that lives only in
 * this process: per session, nothing stored, and worthless without the cookie.
 */
export class UiSessions {
  private readonly csrfKey = randomBytes(32);

  constructor(readonly auth: Authenticator) {}

  /** The session of a request (from its cookie), or undefined when there is none or it died. */
  async sessionOf(request: FastifyRequest): Promise<UiSession | undefined> {
    // request.cookies: @fastify/cookie, registered by the admin UI and API UI plugins.
    const token = request.cookies?.[SESSION_COOKIE];
    if (token === undefined || token === '') return undefined;
    try {
      const principal = await this.auth.authenticate({ headers: { [TOKEN_HEADER]: token }, ip: request.ip });
      return { principal, token };
    } catch (error) {
      if (error instanceof SearchError && error.code === 'UNAUTHENTICATED') return undefined;
      throw error;
    }
  }

  /** Logs in with the same logic as `POST /admin-api/account/v1/login` and sets the cookie. */
  async login(request: FastifyRequest, reply: FastifyReply, user: string, password: string): Promise<void> {
    const session = await this.auth.login(user, password, request.ip);
    void reply.setCookie(SESSION_COOKIE, session.token, {
      httpOnly: true,
      sameSite: 'strict',
      path: SESSION_PATH,
      secure: request.protocol === 'https',
      expires: new Date(session.expires),
    });
  }

  /** Revokes the session's token and clears the cookie. */
  logout(reply: FastifyReply, session: UiSession): void {
    this.auth.users.revokeToken(session.token);
    void reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', path: SESSION_PATH });
  }

  /** The CSRF token forms of this session carry in their hidden `_csrf` field. */
  csrfToken(session: UiSession): string {
    return createHmac('sha256', this.csrfKey).update(session.token).digest('base64url');
  }

  /** True when `given` is the session's CSRF token (timing-safe). */
  checkCsrf(session: UiSession, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(this.csrfToken(session));
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}
