import { fastifyCookie } from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CollectionManager } from '../../collection/collection-manager.js';
import { SearchError } from '../../errors.js';
import { ADMIN_PERMISSION, PERMISSIONS } from '../../security/permissions.js';
import { errorReply } from '../error-reply.js';
import {
  ADMIN_CSP,
  ADMIN_CSS,
  csrfField,
  html,
  page,
  postButton,
  RawHtml,
  type Notice,
  type PageContext,
} from './html.js';
import { lastErrors } from './push-log-tail.js';
import { SESSION_PATH, type UiSession, type UiSessions } from './ui-session.js';
import { plural } from '../../plural.js';

/** Options of the {@link adminUi} plugin. */
export interface AdminUiOptions {
  manager: CollectionManager;
  sessions: UiSessions;
}

type Form = Record<string, string | string[]>;
type ApiAnswer = { status: number; body: Record<string, unknown> };

const CONFIG_FILES = ['collection.cfg', 'metamap.cfg', 'xml.cfg', 'gscopes.cfg', 'qie.cfg'] as const;
const PUBLIC_PATHS = new Set([`${SESSION_PATH}/login`, `${SESSION_PATH}/admin.css`]);
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
 * - Every value shown is HTML-escaped; the policy (`Content-Security-Policy`) allows no
 *   script at all.
 */
export async function adminUi(app: FastifyInstance, options: AdminUiOptions): Promise<void> {
  const { manager, sessions } = options;

  await app.register(fastifyCookie);

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
    void reply
      .header('content-security-policy', ADMIN_CSP)
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store');
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
    if (PUBLIC_PATHS.has(path)) return;
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

  app.get(`${SESSION_PATH}/admin.css`, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').send(ADMIN_CSS),
  );

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
    const rows = manager.list().map(
      (c) =>
        html`<tr>
          <td><a href="/search/admin/collections/${encodeURIComponent(c.name)}">${c.name}</a></td>
          <td>${c.type}</td>
          <td>${c.state}</td>
          <td>${c.documents ?? ''}</td>
          <td>${c.generations ?? ''}</td>
          <td>${c.stagedChanges ?? ''}</td>
          <td>${(c.members ?? []).join(', ')}</td>
          <td>
            ${postButton(context, `/search/admin/collections/${encodeURIComponent(c.name)}/delete`, 'Delete', {}, true)}
          </td>
        </tr>`,
    );
    const content = html`<table>
        <caption>
          Collections (counts while running)
        </caption>
        <thead>
          <tr>
            <th>Name</th>
            <th>Type</th>
            <th>State</th>
            <th>Documents</th>
            <th>Generations</th>
            <th>Staged changes</th>
            <th>Members</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${rows}
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
    return htmlReply(reply, status, page('Collections', context, content, notice));
  };

  app.get(`${SESSION_PATH}/`, async (request, reply) => collectionsPage(request, reply));
  app.get(SESSION_PATH, async (_request, reply) => reply.redirect(`${SESSION_PATH}/`, 301));

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

  app.post<{ Params: { collection: string } }>(
    `${SESSION_PATH}/collections/:collection/delete`,
    async (request, reply) => {
      const { collection } = request.params;
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
    const configLink = html`<p><a href="${base}/config">Edit the configuration files</a></p>`;
    if (manager.typeOf(collection) === 'meta') {
      const content = html`<p>Meta collection of: ${manager.membersOf(collection).join(', ')}</p>
        ${configLink}`;
      return htmlReply(reply, status, page(`Collection ${collection}`, context, content, notice));
    }
    const pushCollection = manager.collection(collection);
    const view = pushCollection.stateView();
    const stateRows: [string, unknown][] = [
      ['State', view.state],
      ['Reason', view.reason],
      ['Documents', view.documents],
      ['Staged changes', view.stagedChanges],
      ['Generations', view.generations],
      ['Merges running', view.mergesRunning],
      ['Last commit', view.lastCommitTime],
      [
        'Vacuum',
        view.vacuum === undefined
          ? undefined
          : `${view.vacuum.type} ${view.vacuum.state} ${view.vacuum.done}/${view.vacuum.total}${view.vacuum.error ? `: ${view.vacuum.error}` : ''}`,
      ],
    ];
    const snapshots = pushCollection.listSnapshots();
    const errors = lastErrors(manager.home.pushLogFile, collection);
    const content = html`<table>
        <caption>
          State${view.state === 'STOPPED' ? ' (counts show once a push request or an action below starts it)' : ''}
        </caption>
        <tbody>
          ${stateRows
            .filter(([, v]) => v !== undefined && v !== null)
            .map(([k, v]) => html`<tr><th>${k}</th><td>${String(v)}</td></tr>`)}
        </tbody>
      </table>
      <p>
        ${postButton(context, `${base}/action`, 'Commit', { action: 'commit' })}
        ${postButton(context, `${base}/action`, 'Vacuum: MERGE', { action: 'merge' })}
        ${postButton(context, `${base}/action`, 'Vacuum: RE_INDEX', { action: 'reindex' })}
        ${postButton(context, `${base}/action`, 'Stop', { action: 'stop' }, true)}
      </p>
      <form method="post" action="${base}/action">
        ${csrfField(context)}<input type="hidden" name="action" value="snapshot" />
        <label>Snapshot name <input name="snapshot" required pattern="[A-Za-z0-9][A-Za-z0-9._~\\-]*" /></label
        ><button type="submit">Create snapshot</button>
      </form>
      <table>
        <caption>
          Snapshots
        </caption>
        <thead>
          <tr>
            <th>Name</th>
            <th>Manifest</th>
            <th>Documents</th>
            <th>Created</th>
            <th>Bytes</th>
          </tr>
        </thead>
        <tbody>
          ${snapshots.map(
            (s) =>
              html`<tr>
                <td>${s.name}</td>
                <td>${s.manifest}</td>
                <td>${s.documents}</td>
                <td>${s.created}</td>
                <td>${s.bytes}</td>
              </tr>`,
          )}
        </tbody>
      </table>
      <table>
        <caption>
          Last errors (web/log/push.log)
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
          ${errors.map(
            (e) =>
              html`<tr>
                <td>${e.time}</td>
                <td>${e.level}</td>
                <td>${e.message}</td>
                <td>${e.detail}</td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${configLink}`;
    return htmlReply(reply, status, page(`Collection ${collection}`, context, content, notice));
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
    const content = html`<p><a href="${base}">Back to ${collection}</a></p>
      <form method="post" action="${base}/config">
        ${csrfField(context)}
        ${CONFIG_FILES.map(
          (file) =>
            html`<fieldset>
              <legend>
                ${file}${texts[file] === null ? ' (absent: leave empty to keep it absent)' : ''}
              </legend>
              <textarea name="${file}" aria-label="${file}" spellcheck="false">${texts[file] ?? ''}</textarea>
            </fieldset>`,
        )} <button type="submit">Validate and save</button>
      </form>`;
    return htmlReply(reply, status, page(`Configuration of ${collection}`, context, content, notice));
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
      if (answer.status >= 300)
        throw new SearchError(text(answer.body.error, 'PARAMETER_INVALID'), text(answer.body.message));
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
        throw new SearchError(text(current.body.error, 'PARAMETER_INVALID'), text(current.body.message));
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
      return configPage(request, reply, collection, answer.body.files as Record<string, string | null>, 200, {
        kind: 'ok',
        text: changed.length === 0 ? 'nothing changed' : `saved ${changed.join(', ')}`,
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
          ${postButton(context, `${base}/revoke`, 'Revoke tokens')}
          ${postButton(context, `${base}/delete`, 'Delete', {}, true)}
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
    return htmlReply(reply, status, page('Users', context, content, notice));
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

  app.post<{ Params: { name: string } }>(`${SESSION_PATH}/users/:name/revoke`, async (request, reply) => {
    const { name } = request.params;
    const answer = await callApi(request, 'DELETE', `/admin-api/v1/users/${encodeURIComponent(name)}/tokens`);
    return usersPage(
      request,
      reply,
      answer.status < 300 ? 200 : answer.status,
      noticeOf(answer, text(answer.body.message)),
    );
  });

  app.post<{ Params: { name: string } }>(`${SESSION_PATH}/users/:name/delete`, async (request, reply) => {
    const { name } = request.params;
    const answer = await callApi(request, 'DELETE', `/admin-api/v1/users/${encodeURIComponent(name)}`);
    return usersPage(
      request,
      reply,
      answer.status < 300 ? 200 : answer.status,
      noticeOf(answer, `user ${name} deleted`),
    );
  });

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
      ${upgrade === undefined ? postButton(context, '/search/admin/system/prepare-upgrade', 'Run prepare for upgrade', {}, true) : ''}
    </section>`;
    let body = page('System', context, content, notice);
    // A progress page without script: the browser reloads it while the task runs.
    if (upgrade?.state === 'IN_PROGRESS')
      body = body.replace('<head>', '<head><meta http-equiv="refresh" content="2;url=/search/admin/system">');
    return htmlReply(reply, status, body);
  };

  app.get(`${SESSION_PATH}/system`, async (request, reply) => systemPage(request, reply));

  app.post(`${SESSION_PATH}/system/prepare-upgrade`, async (request, reply) => {
    const answer = await callApi(request, 'POST', '/push-api/v1/upgrade/prepare');
    return systemPage(
      request,
      reply,
      answer.status < 300 ? 200 : answer.status,
      noticeOf(answer, 'prepare for upgrade started'),
    );
  });
}

function htmlReply(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

function loginPage(next: string, error?: string): string {
  const content = html`<form method="post" action="/search/admin/login">
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
