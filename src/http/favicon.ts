import type { FastifyInstance } from 'fastify';
import { FAVICON_SVG } from './admin-ui/admin-assets.js';

/**
 * `GET /favicon.ico`: the icon browsers ask for on every page that names none (the landing
 * page, JSON answers opened in a tab), so that no page logs a failed load. An SVG, which
 * browsers take from that address by its Content-Type. Public, cached for a day.
 */
export async function faviconRoute(app: FastifyInstance): Promise<void> {
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON_SVG),
  );
}
