import { ASSET_PATH } from './admin-assets.js';
import { escapeHtml } from '../../escape-html.js';

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

/**
 * The admin UI's policy: scripts, styles, images and fetches from our origin only (the one
 * script and uPlot are served under `assets/`), no inline script or style markup, forms to
 * us only, never framed.
 */
export const ADMIN_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** A whole number with thousands separators (20,000), as every count of the admin UI is shown. */
export function formatNumber(value: number | undefined | null): string {
  return value === undefined || value === null || !Number.isFinite(value) ? '' : NUMBER_FORMAT.format(value);
}

const NUMBER_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

/** Bytes as KiB, MiB or GiB with one decimal (and the exact count in a title). */
export function formatBytes(bytes: number | undefined | null): RawHtml {
  if (bytes === undefined || bytes === null || !Number.isFinite(bytes)) return html``;
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = unit === 0 ? `${formatNumber(bytes)} bytes` : `${value.toFixed(1)} ${units[unit]}`;
  return html`<span title="${formatNumber(bytes)} bytes">${text}</span>`;
}

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

/** How a {@link postButton} looks and whether it asks first. */
export interface ButtonOptions {
  /** Styled as a destructive action. */
  danger?: boolean;
  /**
   * The question asked before the form is sent (a browser dialog; without the script, the
   * server's confirmation page asks instead: see `confirmed` in admin-ui.ts).
   */
  confirm?: string;
  /** A less prominent button. */
  secondary?: boolean;
}

/** A form with one button that posts to `action` (with the CSRF field and extra hidden fields). */
export function postButton(
  context: PageContext,
  action: string,
  label: string,
  fields: Record<string, string> = {},
  options: ButtonOptions = {},
): RawHtml {
  const classes = [options.danger ? 'danger' : '', options.secondary ? 'secondary' : ''].filter(
    (c) => c !== '',
  );
  return html`<form
    method="post"
    action="${action}"
    class="inline"
    ${options.confirm === undefined ? '' : html`data-confirm="${options.confirm}"`}
  >
    ${csrfField(context)}${Object.entries(fields).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
    )}<button type="submit" ${classes.length === 0 ? '' : html`class="${classes.join(' ')}"`}>
      ${label}
    </button>
  </form>`;
}

/** A notice above the page content. */
export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

/** The sections of the navigation, by path. */
const NAVIGATION: [string, string][] = [
  ['/search/admin/', 'Collections'],
  ['/search/admin/users', 'Users'],
  ['/search/admin/api-tokens', 'API tokens'],
  ['/search/admin/system', 'System'],
  ['/search/admin/api-ui/', 'API UI'],
];

/** Options of {@link page}. */
export interface PageOptions {
  /** The navigation entry to mark as current. */
  section?: string;
  /** A line above the title (e.g. a link back to the collection). */
  breadcrumb?: RawHtml;
  /** Extra elements of the head (uPlot's stylesheet and script on the collections page). */
  head?: RawHtml;
  /** Reload the page (to `url`) after this many seconds: progress without script. */
  refreshSeconds?: { seconds: number; url: string };
}

/** The whole page: head, navigation (when logged in), notice, content. */
export function page(
  title: string,
  context: PageContext,
  content: RawHtml,
  notice?: Notice,
  options: PageOptions = {},
): string {
  const nav =
    context.user === undefined
      ? ''
      : html`<nav aria-label="Main">
          ${NAVIGATION.map(
            ([href, label]) =>
              html`<a href="${href}" ${options.section === href ? html`aria-current="page"` : ''}
                >${label}</a
              >`,
          )}
          <span class="who">${context.user}</span>
          ${postButton(context, '/search/admin/logout', 'Log out')}
        </nav>`;
  const noticeHtml =
    notice === undefined
      ? ''
      : html`<p class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">
          ${notice.text}
        </p>`;
  const refresh =
    options.refreshSeconds === undefined
      ? ''
      : html`<meta
          http-equiv="refresh"
          content="${options.refreshSeconds.seconds};url=${options.refreshSeconds.url}"
        />`;
  return `<!doctype html>
${html`<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    ${refresh}
    <title>${title} · pushsearch admin</title>
    <link rel="icon" type="image/svg+xml" href="${ASSET_PATH}/favicon.svg" />
    <link rel="stylesheet" href="${ASSET_PATH}/admin.css" />
    ${options.head ?? ''}
    <script src="${ASSET_PATH}/admin.js" defer></script>
  </head>
  <body>
    <header>
      <a class="brand" href="/search/admin/"
        ><img src="${ASSET_PATH}/favicon.svg" alt="" />pushsearch admin</a
      >
      ${nav}
    </header>
    <main>
      ${options.breadcrumb === undefined ? '' : html`<p class="breadcrumb">${options.breadcrumb}</p>`}
      <h1>${title}</h1>
      ${noticeHtml}${content}
    </main>
  </body>
</html>`}`;
}
