/**
 * HTML building for the admin UI: every value goes through {@link escapeHtml} (via the
 * {@link html} tag) unless it is {@link RawHtml} that this code built itself.
 */

/** HTML this code built (already escaped); anything else is text. */
export class RawHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Value = string | number | boolean | null | undefined | RawHtml | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof RawHtml) return value.value;
  if (Array.isArray(value)) return value.map((v) => render(v as Value)).join('');
  return escapeHtml(String(value));
}

/** Template tag: interpolated values are escaped; nested `html` results and arrays of them are not. */
export function html(strings: TemplateStringsArray, ...values: Value[]): RawHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i] as Value) + (strings[i + 1] ?? '');
  return new RawHtml(out);
}

/** The admin UI's policy: no script at all, styles from our stylesheet only, forms to us only. */
export const ADMIN_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Where a page's navigation and forms point, and whose page it is. */
export interface PageContext {
  /** The logged-in user (undefined on the login page). */
  user?: string;
  /** The session's CSRF token, put into every form. */
  csrf?: string;
}

/** A hidden CSRF field for a form of this session. */
export function csrfField(context: PageContext): RawHtml {
  return html`<input type="hidden" name="_csrf" value="${context.csrf ?? ''}" />`;
}

/** A form with one button that posts to `action` (with the CSRF field and extra hidden fields). */
export function postButton(
  context: PageContext,
  action: string,
  label: string,
  fields: Record<string, string> = {},
  danger = false,
): RawHtml {
  return html`<form method="post" action="${action}" class="inline">
    ${csrfField(context)}${Object.entries(fields).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
    )}<button type="submit" ${danger ? new RawHtml(' class="danger"') : ''}>${label}</button>
  </form>`;
}

/** A notice above the page content. */
export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

/** The whole page: head, navigation (when logged in), notice, content. */
export function page(title: string, context: PageContext, content: RawHtml, notice?: Notice): string {
  const nav =
    context.user === undefined
      ? ''
      : html`<nav aria-label="Main">
          <a href="/search/admin/">Collections</a> <a href="/search/admin/users">Users</a>
          <a href="/search/admin/system">System</a> <a href="/search/admin/api-ui/">API UI</a>
          <span class="who">${context.user}</span> ${postButton(context, '/search/admin/logout', 'Log out')}
        </nav>`;
  const noticeHtml =
    notice === undefined
      ? ''
      : html`<p class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">
          ${notice.text}
        </p>`;
  return `<!doctype html>
${html`<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · pushsearch admin</title>
    <link rel="stylesheet" href="/search/admin/admin.css" />
  </head>
  <body>
    <header><strong>pushsearch admin</strong> ${nav}</header>
    <main>
      <h1>${title}</h1>
      ${noticeHtml}${content}
    </main>
  </body>
</html>`}`;
}

/** The stylesheet (served from our origin, as the policy wants). */
export const ADMIN_CSS = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{background:#22364a;color:#fff;padding:.6em 1em;display:flex;gap:1em;align-items:center;flex-wrap:wrap}
header a{color:#fff;margin-right:.8em}header .who{opacity:.8;margin-left:1em}
main{padding:1em 1.5em;max-width:70em}table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}th{background:#eef}
form.inline{display:inline}button{margin:.1em .2em;cursor:pointer}button.danger{color:#a00}
textarea{width:100%;min-height:8em;font-family:monospace}fieldset{margin:1em 0}
.notice{padding:.5em .8em;border-radius:4px}.notice.ok{background:#e5f6e5}.notice.error{background:#fde8e8;color:#700}
label{margin-right:1em}pre{white-space:pre-wrap;background:#f0f0f0;padding:.5em}
`;
