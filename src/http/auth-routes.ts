import type { FastifyInstance } from 'fastify';
import { SearchError } from '../errors.js';
import { TOKEN_HEADER, type Authenticator } from '../security/authenticator.js';
import { authenticateRequest, requireUser } from './auth-hooks.js';
import { ERROR_RESPONSES, MESSAGE_RESPONSE } from './common-schemas.js';

/** Options of the {@link authRoutes} plugin. */
export interface AuthRoutesOptions {
  auth: Authenticator;
}

const TAGS = ['account'];

const LOGIN_BODY = {
  type: 'object',
  description: 'Form fields (application/x-www-form-urlencoded) or a JSON object.',
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 64 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  required: ['username', 'password'],
} as const;

const LOGIN_RESPONSE = {
  type: 'object',
  properties: {
    token: { type: 'string', description: 'Send it back in the X-Security-Token request header.' },
    user: { type: 'string' },
    expires: { type: 'string', format: 'date-time' },
  },
  required: ['token', 'user', 'expires'],
} as const;

const SESSION_RESPONSE = {
  type: 'object',
  properties: {
    user: { type: 'string' },
    permissions: { type: 'array', items: { type: 'string' } },
    collections: { type: 'array', items: { type: 'string' } },
    via: { type: 'string', enum: ['basic', 'token'] },
  },
  required: ['user', 'permissions', 'collections', 'via'],
} as const;

/**
 * The account routes, under `/admin-api/account/v1` (**compat**: the original's login):
 * - `POST /login` (no credentials needed): form fields `username`, `password` → 200 with
 *   the token in the `X-Security-Token` header and the body; 401 for a wrong password, 429
 *   while the user or the address is locked after repeated failures.
 * - `GET /session`: who the credentials belong to.
 * - `DELETE /session` (logout): revokes the token the request carries.
 */
export async function authRoutes(app: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
  const { auth } = options;

  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const fields: Record<string, string> = {};
      for (const [name, value] of new URLSearchParams(body as string))
        if (!(name in fields)) fields[name] = value;
      done(null, fields);
    },
  );

  app.post<{ Body: { username: string; password: string } }>(
    '/login',
    {
      schema: {
        tags: TAGS,
        summary: 'Log in: get a token',
        description:
          'Answers the token in the X-Security-Token header and the body; it expires (14 days by default) and dies on logout, on a password change and when an administrator revokes it. Repeated failures lock the user name and the address for a growing delay (429 with Retry-After).',
        body: LOGIN_BODY,
        response: { 200: LOGIN_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      const session = await auth.login(username, password, request.ip);
      void reply.header(TOKEN_HEADER, session.token).header('cache-control', 'no-store');
      return { token: session.token, user: session.user, expires: new Date(session.expires).toISOString() };
    },
  );

  app.get(
    '/session',
    {
      onRequest: requireUser(auth, undefined),
      schema: {
        tags: TAGS,
        summary: 'Who am I',
        description:
          'The user the credentials (Basic or token) belong to, with its permissions and collections.',
        response: { 200: SESSION_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const who = await authenticateRequest(auth, request);
      return {
        user: who.user,
        permissions: [...who.permissions],
        collections: [...who.collections],
        via: who.via,
      };
    },
  );

  app.delete(
    '/session',
    {
      onRequest: requireUser(auth, undefined),
      schema: {
        tags: TAGS,
        summary: 'Log out: revoke the token of this request',
        description:
          'Needs the X-Security-Token to revoke; with Basic credentials there is no session to end (400).',
        response: { 200: MESSAGE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const who = await authenticateRequest(auth, request);
      if (who.token === undefined) {
        throw new SearchError(
          'PARAMETER_INVALID',
          'this request carries no X-Security-Token to revoke (Basic credentials have no session)',
        );
      }
      auth.users.revokeToken(who.token);
      return { message: `logged out: the token of ${who.user} is revoked` };
    },
  );
}
