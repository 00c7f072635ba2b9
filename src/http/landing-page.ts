import type { FastifyInstance } from 'fastify';
import { ADMIN_CSP, html } from './admin-ui/html.js';
import { pageHeaders } from './security-headers.js';

/** Where a new user goes from `/`: the pages the landing page links, and `serve` prints at start. */
export const START_PAGES = Object.freeze({
  adminUi: '/search/admin/',
  searchPage: '/s/search.html',
  apiUi: '/search/admin/api-ui/',
});

/**
 * `GET /`: a small page that says what this server is and links the admin UI, the search
 * page (with a form: the page needs a collection) and the API UI. Public and static: it names
 * no collection, so it tells nobody what the installation holds.
 */
export function landingPageRoutes(app: FastifyInstance): void {
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>pushsearch</title>
        <link rel="icon" type="image/svg+xml" href="/favicon.ico" />
        <link rel="stylesheet" href="/search/admin/assets/admin.css" />
      </head>
      <body>
        <main>
          <h1>pushsearch</h1>
          <p>
            A search service whose collections are filled through an HTTP push API: put documents, commit,
            search.
          </p>
          <ul>
            <li>
              <a href="${START_PAGES.adminUi}">Admin UI</a>: collections, users, tokens, configuration (log in
              as an administrator)
            </li>
            <li>
              <a href="${START_PAGES.apiUi}">API UI</a>: every route of the push, admin and search APIs, to
              read and try
            </li>
          </ul>
          <form method="get" action="${START_PAGES.searchPage}">
            <h2>Search page</h2>
            <label>Collection <input name="collection" required /></label>
            <label>Query <input name="query" /></label>
            <button type="submit">Search</button>
          </form>
          <p>
            Operations: <a href="/health">/health</a>, <a href="/ready">/ready</a>,
            <a href="/metrics">/metrics</a>.
          </p>
        </main>
      </body>
    </html> `.value;

  app.get('/', { helmet: pageHeaders(ADMIN_CSP, 'same-origin') }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(page),
  );
}
