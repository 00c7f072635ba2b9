import { existsSync, readFileSync } from 'node:fs';
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { parseCfg } from '../collection/config/cfg-file.js';
import type { SearchHome } from '../collection/search-home.js';
import { SearchError } from '../errors.js';

/** The global.cfg key listing the origins whose pages may call the search API. */
export const CORS_ORIGINS_KEY = 'cors.allowed-origins';

/** Paths a browser page of another origin may call: the public search surface. */
const CORS_PATH_PREFIX = '/s/';

/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * `cors.allowed-origins` of `conf/global.cfg`: a comma-separated list of origins
 * (`https://shop.example`, `http://localhost:3000`), or `*` for any. Absent or empty: none
 * (no CORS headers, preflights answer 404, as a server without CORS). Throws
 * `CONFIG_INVALID` naming a value that is not an origin (a path or a typo would otherwise
 * silently allow nothing).
 */
export function readCorsOrigins(home: SearchHome): '*' | string[] {
  const file = home.globalConfigFile;
  if (!existsSync(file)) return [];
  const value = parseCfg(readFileSync(file, 'utf8'), 'conf/global.cfg').get(CORS_ORIGINS_KEY)?.trim();
  if (value === undefined || value === '') return [];
  if (value === '*') return '*';
  return value.split(',').map((entry) => {
    const origin = entry.trim();
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new SearchError(
        'CONFIG_INVALID',
        `conf/global.cfg: ${CORS_ORIGINS_KEY} holds ${JSON.stringify(origin)}, which is not an origin: give scheme://host[:port] without a path or a trailing slash (e.g. https://shop.example), separated by commas, or * for any`,
      );
    }
    return origin;
  });
}

/**
 * CORS for the search API (`/s/...`: `search.json`, the results page, click redirects), with
 * @fastify/cors: a page of an allowed origin may call it, preflights are answered (204, with
 * the allowed methods and the headers the page asked for: `X-Security-Token` or
 * `Authorization` for collections with `search.public=false`). The push and admin APIs get
 * no CORS headers: they are for servers and the admin UI, not for other sites' pages.
 */
export async function installCors(app: FastifyInstance, origins: '*' | string[]): Promise<void> {
  if (origins !== '*' && origins.length === 0) return;
  await app.register(cors, {
    delegator: (request, callback) => {
      const searchPath = request.url.startsWith(CORS_PATH_PREFIX);
      callback(null, {
        origin: searchPath ? origins : false,
        methods: ['GET', 'HEAD'],
        maxAge: PREFLIGHT_MAX_AGE_SECONDS,
        exposedHeaders: ['X-Request-Id'],
      });
    },
  });
}
