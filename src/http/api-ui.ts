import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { fastifyCookie } from '@fastify/cookie';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { SearchError } from '../errors.js';
import { TOKEN_HEADER } from '../security/authenticator.js';
import { authenticateRequest } from './auth-hooks.js';
import { SESSION_PATH, type UiSessions } from './admin-ui/ui-session.js';

/** Where the API UI lives. */
export const API_UI_PREFIX = '/search/admin/api-ui';
/** The OpenAPI 3 document of every push, account and admin route. */
export const OPENAPI_PATH = `${API_UI_PREFIX}/openapi.json`;
/** Answers the logged-in browser session's token to the API UI's own script. */
const SESSION_TOKEN_PATH = `${API_UI_PREFIX}/session-token`;

/** Tag of the document routes (the spec's push-api section). */
export const PUSH_API_TAG = 'push-api';
/** Tag of collection operations and the upgrade calls (the spec's push-api-collection section). */
export const PUSH_API_COLLECTION_TAG = 'push-api-collection';

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
 * Registers the OpenAPI document and the API UI. Call it before any API route is registered:
 * @fastify/swagger collects routes as they are added, from the very schemas that validate
 * their requests, so the document has no second, hand-written copy. Only `/push-api/` and
 * `/admin-api/` routes are documented. What the document adds to those schemas:
 * - tags: document and redirect routes `push-api`, collection operations and the
 *   installation-wide upgrade calls `push-api-collection` (the spec's sections);
 * - request bodies the routes read raw (a document PUT, the multipart endpoint), so that
 *   "try it out" can send them;
 * - security schemes `basic` (HTTP Basic) and `token` (`X-Security-Token`); login needs none.
 *
 * The UI (`/search/admin/api-ui/`, assets served locally) needs a browser session of the
 * admin UI (any user: push users try their own collections) or Basic/token credentials; a
 * browser without a session is sent to the login page. "Try it out" sends the session's
 * login token in `X-Security-Token` by itself (a request interceptor); the Authorize button
 * replaces it with other credentials.
 */
export async function registerApiUi(app: FastifyInstance, options: ApiUiOptions): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'pushsearch API',
        version: '1',
        description:
          'The push API (every route under both /push-api/v1 and /push-api/v2), the account routes (login for a token) and the admin API. Errors answer {"status", "error", "message"}.',
      },
      tags: [
        {
          name: PUSH_API_TAG,
          description: 'Documents and redirects: add, read, replace, delete (staged until a commit).',
        },
        {
          name: PUSH_API_COLLECTION_TAG,
          description:
            'Collection operations (commit, vacuum, click logs, snapshots, restore, state, stop) and the installation-wide upgrade preparation.',
        },
        { name: 'account', description: 'Log in for an X-Security-Token; who am I; log out.' },
        {
          name: 'admin-collections',
          description: 'Create, list and delete collections; read and replace their configuration files.',
        },
        { name: 'admin-users', description: 'Users, permissions, collection access and tokens.' },
      ],
      components: {
        securitySchemes: {
          token: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Security-Token',
            description: 'From POST /admin-api/account/v1/login.',
          },
          basic: { type: 'http', scheme: 'basic' },
        },
      },
      security: [{ token: [] }, { basic: [] }],
    },
    transform: ({ schema, url, route }) => ({ schema: documented(schema, url, route.method), url }),
  });
  await app.register(apiUiRoutes, options);
}

/** The schema a route is documented with (the validating schema, plus what it cannot say). */
function documented(
  schema: FastifySchema | undefined,
  url: string,
  method: string | string[],
): FastifySchema & Record<string, unknown> {
  if (!url.startsWith('/push-api/') && !url.startsWith('/admin-api/')) return { ...schema, hide: true };
  const out: FastifySchema & Record<string, unknown> = { ...schema };
  if (url.startsWith('/push-api/')) {
    out.tags = /\/(documents|redirects)(\/|$)/.test(url) ? [PUSH_API_TAG] : [PUSH_API_COLLECTION_TAG];
  }
  const methods = Array.isArray(method) ? method : [method];
  if (url.endsWith('/documents') && methods.includes('PUT')) {
    out.body = { type: 'string', description: 'The document content; Content-Type says its type.' };
    out.consumes = [
      'text/html',
      'text/plain',
      'application/xml',
      'application/json',
      'application/pdf',
      'application/octet-stream',
    ];
  }
  if (url.endsWith('/documents/content-and-metadata')) {
    out.body = {
      type: 'object',
      properties: {
        content: {
          type: 'string',
          format: 'binary',
          description: 'The document, with its own Content-Type.',
        },
        metadata: { type: 'string', description: 'JSON object: name → string or array of strings.' },
      },
      required: ['content'],
    };
    out.consumes = ['multipart/form-data'];
  }
  if (url.endsWith('/account/v1/login')) {
    out.security = [];
    out.consumes = ['application/x-www-form-urlencoded', 'application/json'];
  }
  return out;
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
