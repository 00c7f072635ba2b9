import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { csrfField, html, page, postButton, RawHtml, type Notice, type PageContext } from './html.js';
import { SESSION_PATH } from './ui-session.js';

type Form = Record<string, string | string[]>;
type ApiAnswer = { status: number; body: Record<string, unknown> };

/** What the API tokens page needs from the admin UI that registers it. */
export interface ApiTokenPageTools {
  /** Calls the admin API with the session's token. */
  callApi: (
    request: FastifyRequest,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    payload?: unknown,
  ) => Promise<ApiAnswer>;
  /** The logged-in user and CSRF token of the request's session. */
  contextOf: (request: FastifyRequest) => PageContext;
  /** The confirmation page unless the form carries `confirmed=1` (see admin-ui.ts). */
  unconfirmed: (
    request: FastifyRequest<{ Body: Form }>,
    reply: FastifyReply,
    question: string,
    back: string,
  ) => FastifyReply | undefined;
}

/** An API token as the admin API lists it (never the secret). */
interface ApiTokenView {
  name: string;
  user: string;
  collections: string[];
  created: string;
  expires: string | null;
}

/** A token just created: its secret, shown on this answer only. */
interface CreatedToken {
  secret: string;
  token: ApiTokenView;
}

const PAGE_PATH = `${SESSION_PATH}/api-tokens`;

/**
 * The admin UI's API tokens page (`/search/admin/api-tokens`): every user's API tokens
 * (name, user, collections, created, expires), a form that creates one for a user (optional
 * expiry date, collections within the user's: the admin API refuses wider ones), and a
 * revoke button that asks first. A new token's secret is on the answer to the create form
 * only, with a copy button: the server keeps only its hash, so it cannot be shown again.
 * Everything goes through the admin API (`/admin-api/v1/users/{name}/api-tokens`).
 */
export function apiTokenPages(app: FastifyInstance, tools: ApiTokenPageTools): void {
  const { callApi, contextOf, unconfirmed } = tools;

  const tokensPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status = 200,
    notice?: Notice,
    created?: CreatedToken,
    form: Form = {},
  ) => {
    const context = contextOf(request);
    const usersAnswer = await callApi(request, 'GET', '/admin-api/v1/users');
    const users = (usersAnswer.body.users ?? []) as { name: string; collections: string[] }[];
    const tokens: ApiTokenView[] = [];
    for (const user of users) {
      const answer = await callApi(
        request,
        'GET',
        `/admin-api/v1/users/${encodeURIComponent(user.name)}/api-tokens`,
      );
      tokens.push(...((answer.body.apiTokens ?? []) as ApiTokenView[]));
    }
    const now = Date.now();
    const rows = tokens.map((t) => {
      const expired = t.expires !== null && Date.parse(t.expires) <= now;
      return html`<tr>
        <td>${t.name}</td>
        <td>${t.user}</td>
        <td>${t.collections.join(', ')}</td>
        <td>${dateTime(t.created)}</td>
        <td>
          ${t.expires === null ? 'never' : dateTime(t.expires)}
          ${expired ? html`<span class="badge expired">expired</span>` : ''}
        </td>
        <td class="actions">
          ${postButton(
            context,
            `${PAGE_PATH}/${encodeURIComponent(t.user)}/${encodeURIComponent(t.name)}/revoke`,
            'Revoke',
            {},
            {
              danger: true,
              confirm: `Revoke API token ${t.name} of ${t.user}? Programs using it stop working at once.`,
            },
          )}
        </td>
      </tr>`;
    });
    const chosenUser = value(form, 'user');
    const userOptions = users.map(
      (u) =>
        html`<option value="${u.name}" ${u.name === chosenUser ? new RawHtml(' selected') : ''}>
          ${u.name} (collections: ${u.collections.join(', ') || 'none'})
        </option>`,
    );
    const secret =
      created === undefined
        ? ''
        : html`<section class="panel secret" aria-label="New API token">
            <h2>API token ${created.token.name} of ${created.token.user}</h2>
            <p>
              Copy it now: it is shown this once. The server keeps only a hash; a lost token is
              revoked and replaced. A program sends it as the <code>X-Security-Token</code> header.
            </p>
            <p>
              <label
                >Token
                <input
                  id="api-token-secret"
                  class="secret-value"
                  readonly
                  value="${created.secret}"
                  size="60"
                  autocomplete="off"
                  spellcheck="false"
              /></label>
              <button type="button" data-copy="api-token-secret" hidden>Copy</button>
              <span class="note" data-copy-status="api-token-secret" role="status"></span>
            </p>
          </section>`;
    const content = html`${secret}
      <table>
        <caption>
          API tokens (long-lived credentials for programs, sent as X-Security-Token)
        </caption>
        <thead>
          <tr>
            <th>Name</th>
            <th>User</th>
            <th>Collections</th>
            <th>Created</th>
            <th>Expires</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${
            rows.length === 0
              ? html`<tr>
                  <td colspan="6" class="empty">No API token yet: create one below.</td>
                </tr>`
              : rows
          }
        </tbody>
      </table>
      <form method="post" action="${PAGE_PATH}">
        <fieldset>
          <legend>Create an API token</legend>
          ${csrfField(context)}
          <label
            >User
            <select name="user" required>
              ${userOptions}
            </select></label
          >
          <label
            >Token name
            <input
              name="name"
              required
              maxlength="64"
              pattern="[A-Za-z0-9._@\\-]+"
              value="${value(form, 'name')}"
              placeholder="cms-production"
          /></label>
          <label
            >Collections (comma-separated, within the user's; empty: the user's)
            <input name="collections" value="${value(form, 'collections')}" placeholder="news,docs"
          /></label>
          <label
            >Expires (optional: valid through this day, UTC)
            <input type="date" name="expires" value="${value(form, 'expires')}"
          /></label>
          <button type="submit">Create token</button>
        </fieldset>
      </form>`;
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(page('API tokens', context, content, notice, { section: PAGE_PATH }));
  };

  app.get(PAGE_PATH, async (request, reply) => tokensPage(request, reply));

  app.post<{ Body: Form }>(PAGE_PATH, async (request, reply) => {
    const form = request.body ?? {};
    const user = value(form, 'user').trim();
    const name = value(form, 'name').trim();
    const collections = value(form, 'collections')
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '');
    const expiresDay = value(form, 'expires').trim();
    const expires = expiresDay === '' ? undefined : endOfDay(expiresDay);
    if (user === '')
      return tokensPage(
        request,
        reply,
        400,
        { kind: 'error', text: 'choose the user the token acts as' },
        undefined,
        form,
      );
    if (expires === null) {
      return tokensPage(
        request,
        reply,
        400,
        { kind: 'error', text: `the expiry date ${JSON.stringify(expiresDay)} is not a date (YYYY-MM-DD)` },
        undefined,
        form,
      );
    }
    if (expires !== undefined && Date.parse(expires) <= Date.now()) {
      return tokensPage(
        request,
        reply,
        400,
        { kind: 'error', text: `the expiry date ${expiresDay} has passed: choose a later day or none` },
        undefined,
        form,
      );
    }
    const answer = await callApi(
      request,
      'POST',
      `/admin-api/v1/users/${encodeURIComponent(user)}/api-tokens`,
      {
        name,
        ...(collections.length === 0 ? {} : { collections }),
        ...(expires === undefined ? {} : { expires }),
      },
    );
    if (answer.status >= 300) {
      const message =
        typeof answer.body.message === 'string' ? answer.body.message : `failed with HTTP ${answer.status}`;
      return tokensPage(request, reply, answer.status, { kind: 'error', text: message }, undefined, form);
    }
    const created = {
      secret: String(answer.body.token),
      token: answer.body.apiToken as ApiTokenView,
    };
    return tokensPage(
      request,
      reply,
      200,
      { kind: 'ok', text: `API token ${name} of ${user} created` },
      created,
    );
  });

  app.post<{ Params: { user: string; token: string }; Body: Form }>(
    `${PAGE_PATH}/:user/:token/revoke`,
    async (request, reply) => {
      const { user, token } = request.params;
      const ask = unconfirmed(
        request,
        reply,
        `Revoke API token ${token} of ${user}? Programs using it stop working at once.`,
        PAGE_PATH,
      );
      if (ask !== undefined) return ask;
      const answer = await callApi(
        request,
        'DELETE',
        `/admin-api/v1/users/${encodeURIComponent(user)}/api-tokens/${encodeURIComponent(token)}`,
      );
      const ok = answer.status < 300;
      return tokensPage(request, reply, ok ? 200 : answer.status, {
        kind: ok ? 'ok' : 'error',
        text: ok
          ? `API token ${token} of ${user} revoked`
          : typeof answer.body.message === 'string'
            ? answer.body.message
            : `failed with HTTP ${answer.status}`,
      });
    },
  );
}

function value(form: Form, name: string): string {
  const v = form[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** `2026-11-27` → the first instant after that day (UTC), ISO 8601; null when not a date. */
function endOfDay(day: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (match === null) return null;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const start = new Date(Date.UTC(year, month - 1, date));
  if (start.getUTCFullYear() !== year || start.getUTCMonth() !== month - 1 || start.getUTCDate() !== date)
    return null;
  return new Date(start.getTime() + 86_400_000).toISOString();
}

/** `2026-11-27T09:30:00.000Z` → `2026-11-27 09:30 UTC`. */
function dateTime(iso: string): string {
  const time = Date.parse(iso);
  if (!Number.isFinite(time)) return iso;
  return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
