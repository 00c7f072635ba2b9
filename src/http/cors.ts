import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Paths a browser page of another origin may call: the public search surface. */
const CORS_PATH_PREFIX = '/s/';

/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * CORS for the search API (`/s/...`: `search.json`, the results page, click redirects), with
 * @fastify/cors: a page of an allowed origin may call it, preflights are answered (204, with
 * the allowed methods and the headers the page asked for: `X-Security-Token` or
 * `Authorization` for collections with `search.public=false`). The push and admin APIs get
 * no CORS headers: they are for servers and the admin UI, not for other sites' pages.
 */
/**
 * Installs CORS for `origins` (`cors.allowed-origins` of global.cfg, validated when the
 * configuration is loaded: `*`, or the origins; none installs nothing).
 */
export async function installCors(app: FastifyInstance, origins: '*' | readonly string[]): Promise<void> {
  if (origins !== '*' && origins.length === 0) return;
  const allowed = origins === '*' ? '*' : [...origins];
  await app.register(cors, {
    delegator: (request, callback) => {
      const searchPath = request.url.startsWith(CORS_PATH_PREFIX);
      callback(null, {
        origin: searchPath ? allowed : false,
        methods: ['GET', 'HEAD'],
        maxAge: PREFLIGHT_MAX_AGE_SECONDS,
        exposedHeaders: ['X-Request-Id'],
      });
    },
  });
}
