import fastifySwaggerUi from '@fastify/swagger-ui';
import { fastifyCookie } from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { SearchError } from '../errors.js';
import { TOKEN_HEADER } from '../security/authenticator.js';
import { authenticateRequest } from './auth-hooks.js';
import { SESSION_PATH, type UiSessions } from './admin-ui/ui-session.js';

/** Where the API UI lives. */
export const API_UI_PREFIX = '/search/admin/api-ui';
/** The OpenAPI 3 document (`openapi-document.ts`) of the APIs, search and operations routes. */
export const OPENAPI_PATH = `${API_UI_PREFIX}/openapi.json`;
/** Answers the logged-in browser session's token to the API UI's own script. */
const SESSION_TOKEN_PATH = `${API_UI_PREFIX}/session-token`;

/** Options of {@link registerApiUi}. */
export interface ApiUiOptions {
  sessions: UiSessions;
}

// Swagger UI's own stylesheet sets style attributes; scripts come only from here.
const API_UI_CSP =
  "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; form-action 'self'; frame-ancestors 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'";

/**
 * Served as a Swagger UI theme script, so it runs in the page before Swagger UI starts:
 * fetches the token of the logged-in browser session (the cookie is HttpOnly, so the page
 * cannot read it) for the request interceptor.
 */
const TOKEN_SCRIPT = `window.pushsearchToken = fetch(${JSON.stringify(SESSION_TOKEN_PATH)}, {
  credentials: 'same-origin',
  headers: { 'X-Requested-With': 'pushsearch-api-ui' }
}).then(function (r) { return r.ok ? r.json() : {}; })
  .then(function (j) { return j.token; }, function () { return undefined; });
`;

/**
 * Swagger UI's request interceptor ("try it out"): adds the session's `X-Security-Token`
 * unless the user authorized with other credentials (Authorize button). Serialised into
 * the page by @fastify/swagger-ui, so it must not use anything from this module.
 */
function requestInterceptor(request: { headers: Record<string, string> }): Promise<unknown> {
  const pending = (globalThis as unknown as { pushsearchToken?: Promise<string | undefined> })
    .pushsearchToken;
  return Promise.resolve(pending).then(function (token) {
    const names = Object.keys(request.headers).map(function (name) {
      return name.toLowerCase();
    });
    if (token && names.indexOf('x-security-token') < 0 && names.indexOf('authorization') < 0) {
      request.headers['X-Security-Token'] = token;
    }
    return request;
  });
}

/**
 * Registers the API UI (`/search/admin/api-ui/`, Swagger UI with its assets served locally)
 * and the OpenAPI document at {@link OPENAPI_PATH}; the document is built by
 * `registerOpenApi` (`openapi-document.ts`), which must be registered before the routes.
 *
 * The UI needs a browser session of the admin UI (any user: push users try their own
 * collections) or Basic/token credentials; a browser without a session is sent to the login
 * page. "Try it out" sends the session's login token in `X-Security-Token` by itself (a
 * request interceptor); the Authorize button replaces it with other credentials.
 */
export async function registerApiUi(app: FastifyInstance, options: ApiUiOptions): Promise<void> {
  await app.register(apiUiRoutes, options);
}

async function apiUiRoutes(app: FastifyInstance, options: ApiUiOptions): Promise<void> {
  const { sessions } = options;

  await app.register(fastifyCookie);

  // Every route below, Swagger UI's included (registered after this hook, in this context).
  app.addHook('onRequest', async (request, reply) => {
    if ((await sessions.sessionOf(request)) !== undefined) return;
    const path = request.url.split('?')[0] ?? '';
    const credentials =
      request.headers.authorization !== undefined || request.headers[TOKEN_HEADER] !== undefined;
    if (!credentials && (path === API_UI_PREFIX || path === `${API_UI_PREFIX}/`)) {
      return reply.redirect(`${SESSION_PATH}/login?next=${encodeURIComponent(`${API_UI_PREFIX}/`)}`, 303);
    }
    await authenticateRequest(sessions.auth, request);
  });

  await app.register(fastifySwaggerUi, {
    routePrefix: API_UI_PREFIX,
    staticCSP: API_UI_CSP,
    uiConfig: {
      docExpansion: 'list',
      deepLinking: true,
      persistAuthorization: false,
      requestInterceptor: requestInterceptor as unknown as (request: unknown) => unknown,
    } as Record<string, unknown>,
    theme: { title: 'pushsearch API UI', js: [{ filename: 'session-token.js', content: TOKEN_SCRIPT }] },
  });

  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());

  app.get(SESSION_TOKEN_PATH, { schema: { hide: true } }, async (request, reply) => {
    // A custom header: a page of another site cannot send it without CORS, which we never allow.
    if (request.headers['x-requested-with'] !== 'pushsearch-api-ui') {
      throw new SearchError(
        'FORBIDDEN',
        'the session token is only for the API UI page (X-Requested-With: pushsearch-api-ui)',
      );
    }
    const session = await sessions.sessionOf(request);
    if (session === undefined)
      throw new SearchError('UNAUTHENTICATED', 'no browser session: log in at /search/admin/login');
    void reply.header('cache-control', 'no-store');
    return { token: session.token, user: session.principal.user };
  });
}
