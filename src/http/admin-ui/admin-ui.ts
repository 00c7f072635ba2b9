import { fastifyCookie } from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CollectionManager } from '../../collection/collection-manager.js';
import { SearchError } from '../../errors.js';
import { isErrorCode, type ErrorCode } from '../../error-status.js';
import type { Explanation } from '../../query/explain-query.js';
import { tierOf } from '../../query/explain-query.js';
import { firstPageParams } from '../../search/run-search.js';
import { SearchService } from '../../search/search-service.js';
import { ADMIN_PERMISSION, PERMISSIONS } from '../../security/permissions.js';
import { errorReply } from '../error-reply.js';
import { pageHeaders, usePageHeaders } from '../security-headers.js';
import type { ServiceMetrics } from '../metrics.js';
import { ADMIN_CSS, ADMIN_SCRIPT, ASSET_PATH, FAVICON_SVG, uplotAssets } from './admin-assets.js';
import {
  ADMIN_CSP,
  csrfField,
  formatBytes,
  formatNumber,
  html,
  page,
  postButton,
  RawHtml,
  type Notice,
  type PageContext,
  type PageOptions,
} from './html.js';
import { apiTokenPages } from './api-tokens-page.js';
import { MetricsHistory } from './metrics-history.js';
import { lastErrors, lastEvents, type PushLogEntry } from './push-log-tail.js';
import { SESSION_PATH, type UiSession, type UiSessions } from './ui-session.js';
import { plural } from '../../plural.js';
import { COLLECTION_CONFIG_FILES as CONFIG_FILES } from '../../collection/collection-settings.js';

/** Options of the {@link adminUi} plugin. */
export interface AdminUiOptions {
  manager: CollectionManager;
  sessions: UiSessions;
  /** The server's metrics, which the collections page charts (no charts without). */
  metrics?: ServiceMetrics;
}

type Form = Record<string, string | string[]>;
type ApiAnswer = { status: number; body: Record<string, unknown> };

/** Shown raw in the document browser up to this many bytes. */
const SHOWN_CONTENT_BYTES = 256 * 1024;
/** Five configuration files of up to 1 MiB each, form-encoded. */
const CONFIG_BODY_LIMIT = 16 * 1024 * 1024;

const sessionsOfRequests = new WeakMap<FastifyRequest, UiSession>();

/**
 * The admin web UI under `/search/admin/`: server-rendered pages, no script.
 *
 * - Session: the login form calls the same login logic as the account API and keeps the
 *   token in an HttpOnly, SameSite=Strict cookie (see {@link UiSessions}); pages need a
 *   session of a user with `sec.administer`; without one, GET goes to the login page.
 * - Every state-changing request is a POST with the session's CSRF token in `_csrf`;
 *   missing or wrong answers 403 before anything runs. The login form has no session yet:
 *   a login sent by a page of another site (login CSRF: the victim's browser would be logged
 *   in as the attacker) is refused by the headers browsers add (`Sec-Fetch-Site`, `Origin`;
 *   see {@link crossSiteLogin}).
 * - Actions run through the push and admin APIs themselves (`inject` with the session's
 *   token): the same validation, permissions and errors as for API clients.
 * - Destructive actions (deleting a collection or a user, revoking tokens, RE_INDEX, prepare
 *   for upgrade) run only with `confirmed=1` in the form: the page's script asks in a dialog
 *   and adds it; without the script the server answers a confirmation page first.
 * - Every value shown is HTML-escaped; the policy (`Content-Security-Policy`) admits scripts,
 *   styles and fetches from our origin only: the admin script and uPlot under `assets/`,
 *   which draw the charts of the metrics history (`metrics-history.ts`) on the collections page.
 */
export async function adminUi(app: FastifyInstance, options: AdminUiOptions): Promise<void> {
  const { manager, sessions } = options;
  const uplot = uplotAssets();
  const history = options.metrics === undefined ? undefined : new MetricsHistory(options.metrics.registry);
  history?.start();
  app.addHook('onClose', async () => history?.stop());

  await app.register(fastifyCookie);
  // The admin policy (security-headers.ts sets the other headers) for every page and asset below.
  usePageHeaders(app, pageHeaders(ADMIN_CSP, 'same-origin'));

  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const form: Form = {};
      for (const [name, value] of new URLSearchParams(body as string)) {
        const known = form[name];
        form[name] = known === undefined ? value : Array.isArray(known) ? [...known, value] : [known, value];
      }
      done(null, form);
    },
  );

  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header(
      'cache-control',
      reply.getHeader('x-asset') === 'true' ? 'public, max-age=3600' : 'no-store',
    );
    reply.removeHeader('x-asset');
    return payload;
  });

  app.setErrorHandler(async (error, request, reply) => {
    const answer = errorReply(error, request.id);
    if (answer.internal) throw error; // the app's handler logs it to push.log
    const context = contextOf(request);
    return htmlReply(
      reply,
      answer.status,
      page('Error', context, html`<p><a href="/search/admin/">Back to the collections</a></p>`, {
        kind: 'error',
        text: answer.body.message,
      }),
    );
  });

  // Session, then CSRF, then permission: in that order, so that nothing runs for a forged form.
  app.addHook('preHandler', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (path === `${SESSION_PATH}/login` || path.startsWith(`${ASSET_PATH}/`)) return;
    const session = await sessions.sessionOf(request);
    if (session === undefined) {
      if (request.method === 'GET')
        return reply.redirect(`${SESSION_PATH}/login?next=${encodeURIComponent(request.url)}`, 303);
      return htmlReply(
        reply,
        401,
        page('Log in again', {}, html`<p><a href="/search/admin/login">Log in</a></p>`, {
          kind: 'error',
          text: 'your session has ended: log in again',
        }),
      );
    }
    sessionsOfRequests.set(request, session);
    const context = contextOf(request);
    if (request.method !== 'GET' && !sessions.checkCsrf(session, (request.body as Form | undefined)?._csrf)) {
      return htmlReply(
        reply,
        403,
        page('Refused', context, html`<p><a href="/search/admin/">Back</a></p>`, {
          kind: 'error',
          text: 'the form carried no valid CSRF token: reload the page and submit it again',
        }),
      );
    }
    // Logging out needs no permission; everything else is administration.
    if (path === `${SESSION_PATH}/logout`) return;
    if (!session.principal.permissions.has(ADMIN_PERMISSION)) {
      return htmlReply(
        reply,
        403,
        page(
          'Not allowed',
          context,
          html`<p>
            The admin UI needs the permission ${ADMIN_PERMISSION}. The
            <a href="/search/admin/api-ui/">API UI</a> works with your collections.
          </p>`,
        ),
      );
    }
  });

  const contextOf = (request: FastifyRequest): PageContext => {
    const session = sessionsOfRequests.get(request);
    return session === undefined ? {} : { user: session.principal.user, csrf: sessions.csrfToken(session) };
  };

  /** Calls the push or admin API with the session's token. */
  const callApi = async (
    request: FastifyRequest,
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    url: string,
    payload?: unknown,
  ): Promise<ApiAnswer> => {
    const session = sessionsOfRequests.get(request)!;
    const response = await app.inject({
      method,
      url,
      headers: {
        'x-security-token': session.token,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    let body: Record<string, unknown> = {};
    try {
      body = response.json<Record<string, unknown>>();
    } catch {
      body = { message: response.body };
    }
    return { status: response.statusCode, body };
  };
  const noticeOf = (answer: ApiAnswer, ok: string): Notice =>
    answer.status < 300
      ? { kind: 'ok', text: ok }
      : { kind: 'error', text: text(answer.body.message, `failed with HTTP ${answer.status}`) };

  // ---------------------------------------------------------------------------------------
  // Assets and session

  const assets: Record<string, [string, string]> = {
    'admin.css': ['text/css; charset=utf-8', ADMIN_CSS],
    'admin.js': ['text/javascript; charset=utf-8', ADMIN_SCRIPT],
    'uPlot.min.css': ['text/css; charset=utf-8', uplot.css],
    'uPlot.iife.min.js': ['text/javascript; charset=utf-8', uplot.script],
    'favicon.svg': ['image/svg+xml', FAVICON_SVG],
  };
  app.get<{ Params: { name: string } }>(`${ASSET_PATH}/:name`, async (request, reply) => {
    const asset = assets[request.params.name];
    if (asset === undefined) throw new SearchError('NOT_FOUND', `no asset ${request.params.name}`);
    // The onSend hook says no-store for pages; assets may be cached for a while.
    return reply.type(asset[0]).header('x-asset', 'true').send(asset[1]);
  });

  /**
   * Unless the form carries `confirmed=1`, answers the page that asks (nothing has run);
   * undefined when the action may go ahead.
   */
  const unconfirmed = (
    request: FastifyRequest<{ Body: Form }>,
    reply: FastifyReply,
    question: string,
    back: string,
  ): FastifyReply | undefined => {
    if (field(request.body, 'confirmed') === '1') return undefined;
    const context = contextOf(request);
    const fields: Record<string, string> = { confirmed: '1' };
    for (const [name, value] of Object.entries(request.body ?? {}))
      if (name !== '_csrf' && name !== 'confirmed')
        fields[name] = Array.isArray(value) ? (value[0] ?? '') : value;
    const content = html`<section class="panel">
      <p>${question}</p>
      <p>
        ${postButton(context, request.url, 'Yes, go ahead', fields, { danger: true })}
        <a href="${back}">Cancel</a>
      </p>
    </section>`;
    return htmlReply(reply, 200, page('Please confirm', context, content));
  };

  app.get<{ Querystring: { next?: string } }>(`${SESSION_PATH}/login`, async (request, reply) =>
    htmlReply(reply, 200, loginPage(safeNext(request.query.next))),
  );

  app.post<{ Body: Form }>(`${SESSION_PATH}/login`, async (request, reply) => {
    const form = request.body ?? {};
    const next = safeNext(field(form, 'next'));
    const crossSite = crossSiteLogin(request);
    if (crossSite !== undefined) {
      return htmlReply(reply, 403, loginPage(next, `${crossSite}: log in from this server's own login page`));
    }
    try {
      await sessions.login(request, reply, field(form, 'username'), field(form, 'password'));
    } catch (error) {
      if (!(error instanceof SearchError)) throw error;
      const answer = errorReply(error, request.id);
      for (const [name, value] of Object.entries(answer.headers))
        if (name.toLowerCase() === 'retry-after') void reply.header(name, value);
      return htmlReply(reply, answer.status, loginPage(next, answer.body.message));
    }
    return reply.redirect(next, 303);
  });

  app.post(`${SESSION_PATH}/logout`, async (request, reply) => {
    sessions.logout(reply, sessionsOfRequests.get(request)!);
    return reply.redirect(`${SESSION_PATH}/login`, 303);
  });

  // ---------------------------------------------------------------------------------------
  // Collections

  const collectionsPage = (request: FastifyRequest, reply: FastifyReply, status = 200, notice?: Notice) => {
    const context = contextOf(request);
    const rows = manager.list().map((c) => {
      const base = `/search/admin/collections/${encodeURIComponent(c.name)}`;
      return html`<tr>
        <td><a href="${base}">${c.name}</a></td>
        <td>${c.type}</td>
        <td><span class="badge ${c.state}">${c.state}</span></td>
        <td class="num">${formatNumber(c.documents)}</td>
        <td class="num">${formatNumber(c.generations)}</td>
        <td class="num">${formatNumber(c.stagedChanges)}</td>
        <td>${(c.members ?? []).join(', ')}</td>
        <td class="actions">
          <a href="${searchPageOf(c.name)}">Search</a>
          ${postButton(
            context,
            `${base}/delete`,
            'Delete',
            {},
            {
              danger: true,
              confirm: `Delete collection ${c.name}${c.type === 'push' ? ' with all its documents and snapshots' : ''}? This cannot be undone.`,
            },
          )}
        </td>
      </tr>`;
    });
    const charts =
      history === undefined
        ? ''
        : html`<section class="charts" aria-label="Ingest and query rates">
            <div class="chart">
              <h2>Ingest: documents/s and latency</h2>
              <div
                data-chart="ingest"
                data-source="${SESSION_PATH}/metrics-history.json"
                role="img"
                aria-label="Ingest chart"
              >
                <p class="note">Loading the chart (it needs scripts)…</p>
              </div>
            </div>
            <div class="chart">
              <h2>Queries: queries/s and latency</h2>
              <div
                data-chart="queries"
                data-source="${SESSION_PATH}/metrics-history.json"
                role="img"
                aria-label="Queries chart"
              >
                <p class="note">Loading the chart (it needs scripts)…</p>
              </div>
            </div>
          </section>`;
    const content = html`${charts}
      <table>
        <caption>
          Collections (counts while running)
        </caption>
        <thead>
          <tr>
            <th>Name</th>
            <th>Type</th>
            <th>State</th>
            <th class="num">Documents</th>
            <th class="num">Generations</th>
            <th class="num">Staged changes</th>
            <th>Members</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${
            rows.length === 0
              ? html`<tr>
                  <td colspan="8" class="empty">No collection yet: create one below.</td>
                </tr>`
              : rows
          }
        </tbody>
      </table>
      <form method="post" action="/search/admin/collections">
        <fieldset>
          <legend>Create a collection</legend>
          ${csrfField(context)}
          <label>Name <input name="name" required /></label>
          <label
            >Type
            <select name="type">
              <option value="push">push</option>
              <option value="meta">meta</option>
            </select></label
          >
          <label>Members (meta: comma-separated push collections) <input name="members" /></label>
          <button type="submit">Create</button>
        </fieldset>
      </form>`;
    return htmlReply(
      reply,
      status,
      page('Collections', context, content, notice, {
        section: '/search/admin/',
        ...(history === undefined ? {} : { head: chartHead }),
      }),
    );
  };

  const chartHead = html`<link rel="stylesheet" href="${ASSET_PATH}/uPlot.min.css" />
    <script src="${ASSET_PATH}/uPlot.iife.min.js" defer></script>`;

  app.get(`${SESSION_PATH}/`, async (request, reply) => collectionsPage(request, reply));
  app.get(SESSION_PATH, async (_request, reply) => reply.redirect(`${SESSION_PATH}/`, 301));

  app.get(`${SESSION_PATH}/metrics-history.json`, async (_request, reply) => {
    if (history === undefined) throw new SearchError('NOT_FOUND', 'this server keeps no metrics history');
    return reply.type('application/json; charset=utf-8').send(await history.answer());
  });

  app.post<{ Body: Form }>(`${SESSION_PATH}/collections`, async (request, reply) => {
    const name = field(request.body, 'name').trim();
    const type = field(request.body, 'type') === 'meta' ? 'meta' : 'push';
    const members = field(request.body, 'members')
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m !== '');
    const answer = await callApi(
      request,
      'PUT',
      `/admin-api/v1/collections/${encodeURIComponent(name)}`,
      type === 'meta' ? { type, members } : { type },
    );
    return collectionsPage(
      request,
      reply,
      answer.status < 300 ? 200 : answer.status,
      noticeOf(answer, `${type} collection ${name} created`),
    );
  });

  app.post<{ Params: { collection: string }; Body: Form }>(
    `${SESSION_PATH}/collections/:collection/delete`,
    async (request, reply) => {
      const { collection } = request.params;
      const ask = unconfirmed(
        request,
        reply,
        `Delete collection ${collection} with all its documents and snapshots? This cannot be undone.`,
        `${SESSION_PATH}/`,
      );
      if (ask !== undefined) return ask;
      const answer = await callApi(
        request,
        'DELETE',
        `/admin-api/v1/collections/${encodeURIComponent(collection)}`,
      );
      return collectionsPage(
        request,
        reply,
        answer.status < 300 ? 200 : answer.status,
        noticeOf(answer, `collection ${collection} deleted`),
      );
    },
  );

  /** The links of a collection's pages: search page, document browser, query tester, configuration. */
  const collectionLinks = (collection: string, push: boolean): RawHtml => {
    const base = `/search/admin/collections/${encodeURIComponent(collection)}`;
    return html`<p class="toolbar">
      <a href="${searchPageOf(collection)}">Search page</a> ·
      ${push ? html`<a href="${base}/documents">Document browser</a> ·` : ''}
      <a href="${base}/query">Query tester</a> ·
      <a href="${base}/config">Configuration files</a>
    </p>`;
  };
  const backTo = (collection: string): PageOptions => ({
    section: '/search/admin/',
    breadcrumb: html`<a href="/search/admin/">Collections</a> ›
      <a href="/search/admin/collections/${encodeURIComponent(collection)}">${collection}</a>`,
  });

  const collectionPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    collection: string,
    status = 200,
    notice?: Notice,
  ) => {
    const context = contextOf(request);
    if (!manager.exists(collection))
      throw new SearchError('COLLECTION_NOT_FOUND', `collection ${collection} does not exist`);
    const base = `/search/admin/collections/${encodeURIComponent(collection)}`;
    const options: PageOptions = {
      section: '/search/admin/',
      breadcrumb: html`<a href="/search/admin/">Collections</a>`,
    };
    if (manager.typeOf(collection) === 'meta') {
      const content = html`${collectionLinks(collection, false)}
        <p>Meta collection of: ${manager.membersOf(collection).join(', ')}</p>`;
      return htmlReply(reply, status, page(`Collection ${collection}`, context, content, notice, options));
    }
    const pushCollection = manager.collection(collection);
    const view = pushCollection.stateView();
    const stateRows: [string, unknown][] = [
      ['State', html`<span class="badge ${view.state}">${view.state}</span>`],
      ['Reason', view.reason],
      ['Documents', view.documents === undefined ? undefined : formatNumber(view.documents)],
      ['Staged changes', view.stagedChanges === undefined ? undefined : formatNumber(view.stagedChanges)],
      ['Generations', view.generations === undefined ? undefined : formatNumber(view.generations)],
      ['Merges running', view.mergesRunning === undefined ? undefined : formatNumber(view.mergesRunning)],
      ['Bytes on disk', view.stats === undefined ? undefined : formatBytes(view.stats.CurBytesOnDisk)],
      ['Last commit', view.lastCommitTime],
      [
        'Vacuum',
        view.vacuum === undefined
          ? undefined
          : `${view.vacuum.type} ${view.vacuum.state} ${formatNumber(view.vacuum.done)}/${formatNumber(view.vacuum.total)}${view.vacuum.error ? `: ${view.vacuum.error}` : ''}`,
      ],
    ];
    const snapshots = pushCollection.listSnapshots();
    const logTable = (caption: string, entries: PushLogEntry[], none: string) =>
      html`<table>
        <caption>
          ${caption}
        </caption>
        <thead>
          <tr>
            <th>Time</th>
            <th>Level</th>
            <th>Message</th>
            <th>Detail</th>
          </tr>
        </thead>
        <tbody>
          ${
            entries.length === 0
              ? html`<tr>
                  <td colspan="4" class="empty">${none}</td>
                </tr>`
              : entries.map(
                  (e) =>
                    html`<tr>
                      <td>${e.time}</td>
                      <td class="level-${e.level}">${e.level}</td>
                      <td>${e.message}</td>
                      <td>${e.detail}</td>
                    </tr>`,
                )
          }
        </tbody>
      </table>`;
    const content = html`${collectionLinks(collection, true)}
      <table>
        <caption>
          State${view.state === 'STOPPED' ? ' (counts show once a push request or an action below starts it)' : ''}
        </caption>
        <tbody>
          ${stateRows
            .filter(([, v]) => v !== undefined && v !== null)
            .map(
              ([k, v]) =>
                html`<tr>
                  <th>${k}</th>
                  <td>${v instanceof RawHtml ? v : String(v)}</td>
                </tr>`,
            )}
        </tbody>
      </table>
      <div class="toolbar">
        ${postButton(context, `${base}/action`, 'Commit', { action: 'commit' })}
        ${postButton(context, `${base}/action`, 'Vacuum: MERGE', { action: 'merge' }, { secondary: true })}
        ${postButton(
          context,
          `${base}/action`,
          'Vacuum: RE_INDEX',
          { action: 'reindex' },
          {
            secondary: true,
            confirm: `Re-index every stored document of ${collection}? It takes a while on a large collection.`,
          },
        )}
        ${postButton(context, `${base}/action`, 'Stop', { action: 'stop' }, { danger: true })}
      </div>
      <form method="post" action="${base}/action">
        <fieldset>
          <legend>Create a snapshot</legend>
          ${csrfField(context)}<input type="hidden" name="action" value="snapshot" />
          <label
            >Snapshot name <input name="snapshot" required pattern="[A-Za-z0-9][A-Za-z0-9._~\\-]*" /></label
          ><button type="submit">Create snapshot</button>
        </fieldset>
      </form>
      <table>
        <caption>
          Snapshots
        </caption>
        <thead>
          <tr>
            <th>Name</th>
            <th class="num">Manifest</th>
            <th class="num">Documents</th>
            <th>Created</th>
            <th class="num">Size</th>
          </tr>
        </thead>
        <tbody>
          ${
            snapshots.length === 0
              ? html`<tr>
                  <td colspan="5" class="empty">No snapshot.</td>
                </tr>`
              : snapshots.map(
                  (s) =>
                    html`<tr>
                      <td>${s.name}</td>
                      <td class="num">${formatNumber(s.manifest)}</td>
                      <td class="num">${formatNumber(s.documents)}</td>
                      <td>${s.created}</td>
                      <td class="num">${formatBytes(s.bytes)}</td>
                    </tr>`,
                )
          }
        </tbody>
      </table>
      ${logTable('Last errors (web/log/push.log)', lastErrors(manager.home.pushLogFile, collection), 'No error.')}
      ${logTable('Recent events (web/log/push.log)', lastEvents(manager.home.pushLogFile, collection), 'No event.')}`;
    return htmlReply(reply, status, page(`Collection ${collection}`, context, content, notice, options));
  };

  app.get<{ Params: { collection: string } }>(
    `${SESSION_PATH}/collections/:collection`,
    async (request, reply) => collectionPage(request, reply, request.params.collection),
  );

  app.post<{ Params: { collection: string }; Body: Form }>(
    `${SESSION_PATH}/collections/:collection/action`,
    async (request, reply) => {
      const { collection } = request.params;
      const api = `/push-api/v1/collections/${encodeURIComponent(collection)}`;
      const action = field(request.body, 'action');
      let answer: ApiAnswer;
      let done: string;
      if (action === 'commit') {
        answer = await callApi(request, 'POST', `${api}/commit`);
        done = `committed: ${text(answer.body.changes, '0')} change(s), generation ${text(answer.body.generation, 'none')}`;
      } else if (action === 'merge' || action === 'reindex') {
        if (action === 'reindex') {
          const ask = unconfirmed(
            request,
            reply,
            `Re-index every stored document of ${collection}? It takes a while on a large collection.`,
            `${SESSION_PATH}/collections/${encodeURIComponent(collection)}`,
          );
          if (ask !== undefined) return ask;
        }
        const type = action === 'merge' ? 'MERGE' : 'RE_INDEX';
        answer = await callApi(request, 'POST', `${api}/vacuum?vacuum-type=${type}&wait=false`);
        done = `vacuum ${type} started; its progress shows below`;
      } else if (action === 'stop') {
        answer = await callApi(request, 'POST', `${api}/state/stop`);
        done = `collection ${collection} stopped`;
      } else if (action === 'snapshot') {
        const name = field(request.body, 'snapshot');
        answer = await callApi(request, 'PUT', `${api}/snapshot/${encodeURIComponent(name)}`);
        done = `snapshot ${name} created`;
      } else {
        throw new SearchError(
          'PARAMETER_INVALID',
          `unknown action ${JSON.stringify(action)}: use commit, merge, reindex, stop or snapshot`,
        );
      }
      return collectionPage(
        request,
        reply,
        collection,
        answer.status < 300 ? 200 : answer.status,
        noticeOf(answer, done),
      );
    },
  );

  // ---------------------------------------------------------------------------------------
  // Document browser and query tester

  app.get<{ Params: { collection: string }; Querystring: { key?: string } }>(
    `${SESSION_PATH}/collections/:collection/documents`,
    async (request, reply) => {
      const { collection } = request.params;
      const key = (request.query.key ?? '').trim();
      const context = contextOf(request);
      const base = `/search/admin/collections/${encodeURIComponent(collection)}`;
      const form = html`<form method="get" action="${base}/documents" class="toolbar">
        <label
          >Key (the document URI)
          <input name="key" value="${key}" class="wide" required placeholder="https://example.com/page"
        /></label>
        <button type="submit">Show</button>
      </form>`;
      if (key === '')
        return htmlReply(
          reply,
          200,
          page(`Documents of ${collection}`, context, form, undefined, backTo(collection)),
        );
      const answer = await callApi(
        request,
        'GET',
        `/push-api/v1/collections/${encodeURIComponent(collection)}/documents?key=${encodeURIComponent(key)}`,
      );
      if (answer.status >= 300) {
        return htmlReply(
          reply,
          answer.status,
          page(`Documents of ${collection}`, context, form, noticeOf(answer, ''), backTo(collection)),
        );
      }
      const content = answer.body.pushContent as {
        content: string;
        contentType: string;
        metadata: Record<string, string[]>;
        receivedTime?: string;
      } | null;
      if (content === null) {
        return htmlReply(
          reply,
          404,
          page(
            `Documents of ${collection}`,
            context,
            form,
            { kind: 'error', text: `no document with key ${text(answer.body.key, key)} in ${collection}` },
            backTo(collection),
          ),
        );
      }
      const bytes = Buffer.from(content.content, 'base64');
      const textual = /^(text\/|application\/(json|xml|xhtml\+xml|javascript)|[^;]*\+xml)/i.test(
        content.contentType,
      );
      const body = textual
        ? html`<pre>${bytes.subarray(0, SHOWN_CONTENT_BYTES).toString('utf8')}</pre>
            ${
              bytes.length > SHOWN_CONTENT_BYTES
                ? html`<p class="empty">
                    The first ${formatNumber(SHOWN_CONTENT_BYTES)} of ${formatNumber(bytes.length)} bytes.
                  </p>`
                : ''
            }`
        : html`<p class="empty">
            Binary content (${content.contentType}), ${formatBytes(bytes.length)}: not shown.
          </p>`;
      const committed = answer.body.committed === true;
      const metadataRows = Object.entries(content.metadata).map(
        ([name, values]) =>
          html`<tr>
            <th>${name}</th>
            <td>${values.join(' | ')}</td>
          </tr>`,
      );
      const page_ = html`${form}
        <section class="panel" aria-label="Document">
          <dl class="meta">
            <dt>Key</dt>
            <dd>
              <a href="${text(answer.body.key, key)}" rel="noreferrer">${text(answer.body.key, key)}</a>
            </dd>
            <dt>State</dt>
            <dd>
              <span class="badge ${committed ? 'committed' : 'staged'}"
                >${committed ? 'committed' : 'staged'}</span
              >
              ${committed ? 'searchable' : 'not searchable until the next commit'}
            </dd>
            <dt>Content type</dt>
            <dd>${content.contentType}</dd>
            <dt>Size</dt>
            <dd>${formatBytes(bytes.length)}</dd>
          </dl>
        </section>
        <table>
          <caption>
            Metadata (as pushed)
          </caption>
          <tbody>
            ${
              metadataRows.length === 0
                ? html`<tr>
                    <td class="empty">None.</td>
                  </tr>`
                : metadataRows
            }
          </tbody>
        </table>
        <h2>Stored content</h2>
        ${body}`;
      return htmlReply(
        reply,
        200,
        page(`Documents of ${collection}`, context, page_, undefined, backTo(collection)),
      );
    },
  );

  const searchService = new SearchService(manager);

  app.get<{ Params: { collection: string }; Querystring: { query?: string } }>(
    `${SESSION_PATH}/collections/:collection/query`,
    async (request, reply) => {
      const { collection } = request.params;
      if (!manager.exists(collection))
        throw new SearchError('COLLECTION_NOT_FOUND', `collection ${collection} does not exist`);
      const query = request.query.query ?? '';
      const context = contextOf(request);
      const base = `/search/admin/collections/${encodeURIComponent(collection)}`;
      const form = html`<form method="get" action="${base}/query" class="toolbar">
        <label>Query <input name="query" value="${query}" class="wide" required /></label>
        <button type="submit">Explain the ranking</button>
      </form>`;
      if (query.trim() === '')
        return htmlReply(
          reply,
          200,
          page(`Query tester: ${collection}`, context, form, undefined, backTo(collection)),
        );
      const { response, explanations } = await searchService.explain(firstPageParams(collection, query, 10));
      const packet = response.response.resultPacket;
      const summary = packet.resultsSummary;
      const results = packet.results.map((result, i) => {
        const explanation = explanations[i];
        const tier = explanation === undefined ? undefined : tierOf(explanation);
        return html`<li>
          <div class="result-head">
            <strong>${formatNumber(result.rank)}. ${result.title}</strong>
            <span class="score"
              >score ${formatNumber(result.score)}${tier === undefined ? '' : ` · tier ${tier}`}</span
            >
            <a href="${base}/documents?key=${encodeURIComponent(result.liveUrl)}">${result.liveUrl}</a>
          </div>
          ${explanation === undefined ? '' : explanationList(explanation)}
        </li>`;
      });
      const content = html`${form}
        <p>
          ${formatNumber(summary.totalMatching)}${summary.totalMatchingExact ? '' : '+'} matching
          (${formatNumber(summary.fullyMatching)} fully, ${formatNumber(summary.partiallyMatching)}
          partially); searched for <code>${response.question.searchedFor}</code>${
            packet.spell === null
              ? ''
              : html`; did you mean
                  <a href="${base}/query?query=${encodeURIComponent(packet.spell.text)}"
                    >${packet.spell.text}</a
                  >?`
          }
        </p>
        ${
          results.length === 0
            ? html`<p class="empty">No result.</p>`
            : html`<ol class="plain">
                ${results}
              </ol>`
        }`;
      return htmlReply(
        reply,
        200,
        page(`Query tester: ${collection}`, context, content, undefined, backTo(collection)),
      );
    },
  );

  // ---------------------------------------------------------------------------------------
  // Configuration files

  const configPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    collection: string,
    texts: Record<string, string | null>,
    status = 200,
    notice?: Notice,
  ) => {
    const context = contextOf(request);
    const base = `/search/admin/collections/${encodeURIComponent(collection)}`;
    const content = html`<form method="post" action="${base}/config">
      ${csrfField(context)}
      ${CONFIG_FILES.map(
        (file) =>
          html`<fieldset>
            <legend>${file}${texts[file] === null ? ' (absent: leave empty to keep it absent)' : ''}</legend>
            <textarea name="${file}" aria-label="${file}" spellcheck="false">${texts[file] ?? ''}</textarea>
          </fieldset>`,
      )} <button type="submit">Validate and save</button>
    </form>`;
    return htmlReply(
      reply,
      status,
      page(`Configuration of ${collection}`, context, content, notice, backTo(collection)),
    );
  };

  app.get<{ Params: { collection: string } }>(
    `${SESSION_PATH}/collections/:collection/config`,
    async (request, reply) => {
      const { collection } = request.params;
      const answer = await callApi(
        request,
        'GET',
        `/admin-api/v1/collections/${encodeURIComponent(collection)}/config`,
      );
      if (answer.status >= 300) throw new SearchError(apiCode(answer.body.error), text(answer.body.message));
      return configPage(request, reply, collection, answer.body.files as Record<string, string | null>);
    },
  );

  app.post<{ Params: { collection: string }; Body: Form }>(
    `${SESSION_PATH}/collections/:collection/config`,
    { bodyLimit: CONFIG_BODY_LIMIT },
    async (request, reply) => {
      const { collection } = request.params;
      const current = await callApi(
        request,
        'GET',
        `/admin-api/v1/collections/${encodeURIComponent(collection)}/config`,
      );
      if (current.status >= 300)
        throw new SearchError(apiCode(current.body.error), text(current.body.message));
      const before = current.body.files as Record<string, string | null>;
      const files: Record<string, string> = {};
      for (const file of CONFIG_FILES) {
        // A field the form did not send is left as it is; browsers send line breaks as CRLF.
        if (request.body?.[file] === undefined) continue;
        const text = field(request.body, file).replace(/\r\n/g, '\n');
        if (before[file] === null && text.trim() === '') continue;
        if (text !== before[file]) files[file] = text;
      }
      const answer = await callApi(
        request,
        'PUT',
        `/admin-api/v1/collections/${encodeURIComponent(collection)}/config`,
        { files },
      );
      if (answer.status >= 300) {
        // Show what was submitted, so that the fix is one edit away; nothing was written.
        const submitted: Record<string, string | null> = { ...before, ...files };
        return configPage(request, reply, collection, submitted, answer.status, {
          kind: 'error',
          text: `nothing saved: ${text(answer.body.message)}`,
        });
      }
      const changed = Object.keys(files);
      const warnings = Array.isArray(answer.body.warnings) ? answer.body.warnings.map(String) : [];
      const saved = changed.length === 0 ? 'nothing changed' : `saved ${changed.join(', ')}`;
      return configPage(request, reply, collection, answer.body.files as Record<string, string | null>, 200, {
        kind: 'ok',
        text: warnings.length === 0 ? saved : `${saved}; warnings: ${warnings.join('; ')}`,
      });
    },
  );

  // ---------------------------------------------------------------------------------------
  // Users

  const usersPage = async (request: FastifyRequest, reply: FastifyReply, status = 200, notice?: Notice) => {
    const context = contextOf(request);
    const answer = await callApi(request, 'GET', '/admin-api/v1/users');
    const users = (answer.body.users ?? []) as {
      name: string;
      permissions: string[];
      collections: string[];
      activeTokens: number;
      updated: string;
    }[];
    const permissionBoxes = (held: readonly string[]) =>
      PERMISSIONS.map(
        (p) =>
          html`<label
            ><input
              type="checkbox"
              name="permissions"
              value="${p}"
              ${held.includes(p) ? new RawHtml(' checked') : ''}
            />
            ${p}</label
          >`,
      );
    const rows = users.map((u) => {
      const base = `/search/admin/users/${encodeURIComponent(u.name)}`;
      return html`<tr>
        <td>${u.name}</td>
        <td>${u.activeTokens}</td>
        <td>${u.updated}</td>
        <td>
          <form method="post" action="${base}">
            ${csrfField(context)}${permissionBoxes(u.permissions)}
            <label
              >Collections
              <input
                name="collections"
                value="${u.collections.join(',')}"
                aria-label="Collections of ${u.name}"
            /></label>
            <label
              >New password
              <input
                type="password"
                name="password"
                autocomplete="new-password"
                aria-label="New password of ${u.name}"
            /></label>
            <button type="submit">Save</button>
          </form>
        </td>
        <td>
          ${postButton(
            context,
            `${base}/revoke`,
            'Revoke tokens',
            {},
            { secondary: true, confirm: `Revoke every token of ${u.name}? Its clients must log in again.` },
          )}
          ${postButton(context, `${base}/delete`, 'Delete', {}, { danger: true, confirm: `Delete user ${u.name}?` })}
        </td>
      </tr>`;
    });
    const content = html`<table>
        <caption>
          Users
        </caption>
        <thead>
          <tr>
            <th>Name</th>
            <th>Live tokens</th>
            <th>Updated</th>
            <th>Permissions, collections (names or *), password</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>
      <form method="post" action="/search/admin/users">
        <fieldset>
          <legend>Create a user</legend>
          ${csrfField(context)}
          <label>Name <input name="name" required /></label>
          <label
            >Password
            <input type="password" name="password" required minlength="8" autocomplete="new-password"
          /></label>
          ${permissionBoxes([])}
          <label>Collections <input name="collections" placeholder="docs,news or *" /></label>
          <button type="submit">Create</button>
        </fieldset>
      </form>`;
    return htmlReply(
      reply,
      status,
      page('Users', context, content, notice, { section: '/search/admin/users' }),
    );
  };

  const userBody = (form: Form) => {
    const password = field(form, 'password');
    return {
      ...(password === '' ? {} : { password }),
      permissions: list(form.permissions),
      collections: field(form, 'collections')
        .split(',')
        .map((c) => c.trim())
        .filter((c) => c !== ''),
    };
  };

  app.get(`${SESSION_PATH}/users`, async (request, reply) => usersPage(request, reply));

  app.post<{ Body: Form }>(`${SESSION_PATH}/users`, async (request, reply) => {
    const name = field(request.body, 'name').trim();
    const users = await callApi(request, 'GET', '/admin-api/v1/users');
    if (((users.body.users ?? []) as { name: string }[]).some((u) => u.name === name)) {
      return usersPage(request, reply, 409, {
        kind: 'error',
        text: `user ${name} exists already: change it in its row`,
      });
    }
    const answer = await callApi(
      request,
      'PUT',
      `/admin-api/v1/users/${encodeURIComponent(name)}`,
      userBody(request.body),
    );
    return usersPage(
      request,
      reply,
      answer.status < 300 ? 200 : answer.status,
      noticeOf(answer, `user ${name} created`),
    );
  });

  app.post<{ Params: { name: string }; Body: Form }>(
    `${SESSION_PATH}/users/:name`,
    async (request, reply) => {
      const { name } = request.params;
      const body = userBody(request.body);
      const answer = await callApi(request, 'PUT', `/admin-api/v1/users/${encodeURIComponent(name)}`, body);
      const revoked = Number(answer.body.tokensRevoked ?? 0);
      return usersPage(
        request,
        reply,
        answer.status < 300 ? 200 : answer.status,
        noticeOf(answer, `user ${name} saved${revoked > 0 ? `; ${plural(revoked, 'token')} revoked` : ''}`),
      );
    },
  );

  app.post<{ Params: { name: string }; Body: Form }>(
    `${SESSION_PATH}/users/:name/revoke`,
    async (request, reply) => {
      const { name } = request.params;
      const ask = unconfirmed(
        request,
        reply,
        `Revoke every token of ${name}? Its clients must log in again.`,
        `${SESSION_PATH}/users`,
      );
      if (ask !== undefined) return ask;
      const answer = await callApi(
        request,
        'DELETE',
        `/admin-api/v1/users/${encodeURIComponent(name)}/tokens`,
      );
      return usersPage(
        request,
        reply,
        answer.status < 300 ? 200 : answer.status,
        noticeOf(answer, text(answer.body.message)),
      );
    },
  );

  app.post<{ Params: { name: string }; Body: Form }>(
    `${SESSION_PATH}/users/:name/delete`,
    async (request, reply) => {
      const { name } = request.params;
      const ask = unconfirmed(request, reply, `Delete user ${name}?`, `${SESSION_PATH}/users`);
      if (ask !== undefined) return ask;
      const answer = await callApi(request, 'DELETE', `/admin-api/v1/users/${encodeURIComponent(name)}`);
      return usersPage(
        request,
        reply,
        answer.status < 300 ? 200 : answer.status,
        noticeOf(answer, `user ${name} deleted`),
      );
    },
  );

  apiTokenPages(app, { callApi, contextOf, unconfirmed });

  // ---------------------------------------------------------------------------------------
  // System menu

  const systemPage = (request: FastifyRequest, reply: FastifyReply, status = 200, notice?: Notice) => {
    const context = contextOf(request);
    const upgrade = manager.upgradeStatus();
    const progress =
      upgrade === undefined
        ? 'not started'
        : upgrade.state === 'IN_PROGRESS'
          ? 'in progress: committing every collection, finishing merges, syncing files (this page refreshes itself)'
          : 'PREPARED: run the installer now; restart the server to undo';
    const content = html`<section aria-labelledby="upgrade">
      <h2 id="upgrade">Prepare for upgrade</h2>
      <p>
        Refuses every write (503 with Retry-After), commits every collection, finishes merges and syncs all
        files: the same task as <code>POST /push-api/v1/upgrade/prepare</code>. In memory only: a restart
        undoes it.
      </p>
      <p>
        Status: <output id="upgrade-state">${upgrade?.state ?? 'NOT_STARTED'}</output> —
        ${progress}${upgrade?.error ? ` (error: ${upgrade.error})` : ''}
      </p>
      ${
        upgrade === undefined
          ? postButton(
              context,
              '/search/admin/system/prepare-upgrade',
              'Run prepare for upgrade',
              {},
              { danger: true, confirm: PREPARE_QUESTION },
            )
          : ''
      }
    </section>`;
    // A progress page without script: the browser reloads it while the task runs.
    const body = page('System', context, content, notice, {
      section: '/search/admin/system',
      ...(upgrade?.state === 'IN_PROGRESS'
        ? { refreshSeconds: { seconds: 2, url: '/search/admin/system' } }
        : {}),
    });
    return htmlReply(reply, status, body);
  };

  app.get(`${SESSION_PATH}/system`, async (request, reply) => systemPage(request, reply));

  app.post<{ Body: Form }>(`${SESSION_PATH}/system/prepare-upgrade`, async (request, reply) => {
    const ask = unconfirmed(request, reply, PREPARE_QUESTION, `${SESSION_PATH}/system`);
    if (ask !== undefined) return ask;
    const answer = await callApi(request, 'POST', '/push-api/v1/upgrade/prepare');
    return systemPage(
      request,
      reply,
      answer.status < 300 ? 200 : answer.status,
      noticeOf(answer, 'prepare for upgrade started'),
    );
  });
}

/** An explanation as nested lists: value, then what it is. */
function explanationList(explanation: Explanation): RawHtml {
  return html`<ul class="explain">
    <li>
      <span class="value">${formatNumber(Math.round(explanation.value * 1000) / 1000)}</span
      >${explanation.description}
      ${explanation.details.length === 0 ? '' : explanation.details.map((d) => explanationList(d))}
    </li>
  </ul>`;
}

/** Asked before prepare for upgrade. */
const PREPARE_QUESTION =
  'Prepare for upgrade? Every write is refused (503) until the server restarts; every collection is committed and merges finish.';

/** The public results page of a collection. */
function searchPageOf(collection: string): string {
  return `/s/search.html?collection=${encodeURIComponent(collection)}`;
}

function htmlReply(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

function loginPage(next: string, error?: string): string {
  const content = html`<form method="post" action="/search/admin/login" class="login panel">
    <input type="hidden" name="next" value="${next}" />
    <p>
      <label>User name <input name="username" autocomplete="username" required /></label>
    </p>
    <p>
      <label
        >Password <input type="password" name="password" autocomplete="current-password" required
      /></label>
    </p>
    <p><button type="submit">Log in</button></p>
  </form>`;
  return page('Log in', {}, content, error === undefined ? undefined : { kind: 'error', text: error });
}

/**
 * Why a login form was sent by a page of another site, from the headers browsers add to a
 * form submission; undefined when it was not (or the client is no browser: neither header).
 * `Sec-Fetch-Site` says it directly; older browsers send only `Origin`, compared with the
 * `Host` the request was sent to (a proxy must pass `Host` through, as it must for cookies).
 */
export function crossSiteLogin(request: FastifyRequest): string | undefined {
  const fetchSite = request.headers['sec-fetch-site'];
  if (typeof fetchSite === 'string') {
    // 'none': typed or bookmarked; 'same-origin': our own login page.
    return fetchSite === 'same-origin' || fetchSite === 'none'
      ? undefined
      : `the login was sent from another site (Sec-Fetch-Site: ${fetchSite})`;
  }
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return undefined;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  return host !== undefined && host !== '' && host === request.headers.host
    ? undefined
    : `the login was sent from another site (Origin: ${origin})`;
}

/** Where to go after login: only our own pages (no open redirect). */
function safeNext(next: string | undefined): string {
  if (
    next !== undefined &&
    next.startsWith(`${SESSION_PATH}/`) &&
    !next.startsWith('//') &&
    !/[\\\r\n]/.test(next)
  )
    return next;
  return `${SESSION_PATH}/`;
}

function field(form: Form | undefined, name: string): string {
  const value = form?.[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

function list(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** A JSON value as text (strings as they are, anything else as JSON). */
function text(value: unknown, fallback = ''): string {
  if (value === undefined || value === null) return fallback;
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? `${value}`
      : JSON.stringify(value);
}

/** The code of an API error answer, to throw again here (PARAMETER_INVALID when it has none). */
function apiCode(code: unknown): ErrorCode {
  return typeof code === 'string' && isErrorCode(code) ? code : 'PARAMETER_INVALID';
}
