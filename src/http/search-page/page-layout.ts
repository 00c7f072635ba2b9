import { createHash } from 'node:crypto';
import { escapeHtml } from '../../escape-html.js';

/**
 * The stylesheet of the search pages, inline (one request per page, nothing to cache or
 * fetch). System fonts; colours meet WCAG AA contrast in light and dark schemes; every
 * focusable element shows a clear focus ring; motion-free.
 */
const STYLE = `
:root{color-scheme:light dark;--fg:#1b1b1f;--muted:#555962;--bg:#fff;--panel:#f4f5f7;--line:#d7dae0;--link:#0b57d0;--visited:#6b3fa0;--url:#146c2e;--mark:#fff3b0;--focus:#0b57d0;--error:#b3261e}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6ea;--muted:#b0b3ba;--bg:#15161a;--panel:#1f2127;--line:#3a3d45;--link:#8ab4f8;--visited:#c58af9;--url:#7fd18b;--mark:#5c4d00;--focus:#8ab4f8;--error:#f2b8b5}}
*{box-sizing:border-box}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
a{color:var(--link)}
a:visited{color:var(--visited)}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid var(--focus);outline-offset:2px;border-radius:2px}
.skip{position:absolute;left:-9999px;top:0;background:var(--bg);padding:.5rem 1rem;z-index:1}
.skip:focus{left:.5rem}
.visually-hidden{position:absolute!important;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
header{border-bottom:1px solid var(--line);padding:1rem 1.25rem}
header h1{font-size:1.1rem;margin:0 0 .5rem}
header h1 a{color:inherit;text-decoration:none}
header h1 .collection{color:var(--muted);font-weight:400}
form[role=search]{display:flex;gap:.5rem;max-width:44rem;align-items:center;flex-wrap:wrap}
form[role=search] label{font-weight:600}
form[role=search] input[type=search]{flex:1 1 16rem;min-width:0;font:inherit;padding:.5rem .75rem;border:1px solid var(--muted);border-radius:6px;background:var(--bg);color:var(--fg)}
form[role=search] button{font:inherit;padding:.5rem 1rem;border:1px solid var(--link);border-radius:6px;background:var(--link);color:var(--bg);cursor:pointer}
.layout{display:grid;grid-template-columns:minmax(0,44rem) minmax(12rem,16rem);gap:2rem;padding:1rem 1.25rem;align-items:start}
@media (max-width:50rem){.layout{grid-template-columns:minmax(0,1fr)}}
main{min-width:0}
.summary-line{color:var(--muted);margin:0 0 1rem}
.spell{font-size:1.05rem}
.results{list-style:none;margin:0;padding:0}
.result{margin:0 0 1.5rem}
.result h3{font-size:1.1rem;font-weight:500;margin:0;overflow-wrap:anywhere}
.result .url{color:var(--url);font-size:.875rem;overflow-wrap:anywhere;margin:.1rem 0}
.result .snippet{margin:.25rem 0;overflow-wrap:anywhere}
.result .snippet b{font-weight:700;background:var(--mark);color:inherit}
.result .info,.result dl{color:var(--muted);font-size:.875rem;margin:.25rem 0}
.result dl{display:flex;flex-wrap:wrap;gap:.1rem 1rem}
.result dl div{display:flex;gap:.35rem}
.result dt{font-weight:600}
.result dd{margin:0;overflow-wrap:anywhere}
nav.pages ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;padding:0;margin:2rem 0}
nav.pages a,nav.pages span{display:inline-block;min-width:2.5rem;padding:.4rem .6rem;text-align:center;border:1px solid var(--line);border-radius:6px}
nav.pages [aria-current]{background:var(--panel);font-weight:700;border-color:var(--muted)}
aside{background:var(--panel);border-radius:8px;padding:1rem}
aside h2{font-size:1rem;margin:0 0 .5rem}
aside h3{font-size:.95rem;margin:1rem 0 .25rem}
aside ul{list-style:none;margin:0;padding:0}
aside li{margin:.2rem 0;display:flex;justify-content:space-between;gap:.5rem}
aside a.selected{font-weight:700}
aside .count{color:var(--muted);font-variant-numeric:tabular-nums}
.empty,.error{max-width:44rem}
.error h2{color:var(--error)}
.error code{font-size:.9em}
`;

/** The `style-src` source of the page's only stylesheet (a hash, so no `'unsafe-inline'`). */
export const PAGE_STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** What every search page is made of; `header`, `main` and `aside` are trusted HTML. */
export interface PageParts {
  /** The document title, as text. */
  title: string;
  /** The search box and heading (HTML). */
  header: string;
  /** The main content (HTML). */
  main: string;
  /** Complementary content (facets), HTML; none when empty. */
  aside?: string;
}

/**
 * Wraps page parts in the document: `lang`, viewport, the inline stylesheet, a skip link,
 * and the landmarks (banner, main, complementary). The title is escaped here; the parts are
 * HTML built by the callers, which escape everything they put in.
 */
export function renderPage(parts: PageParts): string {
  const aside =
    parts.aside === undefined || parts.aside === ''
      ? ''
      : `\n<aside aria-labelledby="refine-heading">${parts.aside}</aside>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="strict-origin-when-cross-origin">
<title>${escapeHtml(parts.title)}</title>
<link rel="icon" type="image/svg+xml" href="/favicon.ico">
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#main">Skip to results</a>
<header>${parts.header}</header>
<div class="layout">
<main id="main" tabindex="-1">${parts.main}</main>${aside}
</div>
</body>
</html>
`;
}

/**
 * The banner: the page heading (a link to a fresh search of the collection) and the search
 * form (GET, labelled, `role=search`). `keep` are hidden parameters a new query keeps (the
 * scope, the page size). All values are escaped here.
 */
export function renderSearchHeader(
  collection: string,
  query: string,
  keep: Record<string, string> = {},
): string {
  const home = `search.html?${new URLSearchParams({ collection }).toString()}`;
  const hidden = Object.entries({ collection, ...keep })
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  const label = collection === '' ? 'Search' : `Search ${collection}`;
  return `<h1><a href="${escapeHtml(home)}">Search</a>${collection === '' ? '' : ` <span class="collection">${escapeHtml(collection)}</span>`}</h1>
<form role="search" method="get" action="search.html">${hidden}<label for="query" class="visually-hidden">${escapeHtml(label)}</label><input type="search" id="query" name="query" value="${escapeHtml(query)}" enterkeyhint="search" spellcheck="false" autocapitalize="off"><button type="submit">Search</button></form>`;
}
