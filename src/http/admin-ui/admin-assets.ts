import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The admin UI's static assets, all served from our own origin (the policy allows nothing
 * else): its stylesheet, its one script, the favicon, and uPlot (the chart library, MIT,
 * read from node_modules once at start).
 */

/** Where the assets are served (public: the login page uses them too). */
export const ASSET_PATH = '/search/admin/assets';

/** The favicon: a magnifying glass over a stack (a search index). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f4e79"/><rect x="6" y="7" width="14" height="3" rx="1" fill="#cfe3f5"/><rect x="6" y="13" width="10" height="3" rx="1" fill="#cfe3f5"/><rect x="6" y="19" width="8" height="3" rx="1" fill="#cfe3f5"/><circle cx="20.5" cy="18.5" r="5" fill="none" stroke="#fff" stroke-width="2.5"/><path d="M24 22l4 4" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>`;

const require = createRequire(import.meta.url);

/** uPlot's script and stylesheet, as the package ships them. */
export function uplotAssets(): { script: string; css: string } {
  const script = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
  const css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  return { script, css };
}

/** The stylesheet: system fonts, a calm palette, tables, forms, buttons, notices, charts. */
export const ADMIN_CSS = `:root{--bg:#f5f7fa;--panel:#fff;--text:#1d2733;--muted:#5b6b7c;--line:#d9e0e8;--accent:#1f4e79;--accent-2:#2f6fa8;--danger:#b42318;--danger-bg:#fdecea;--ok-bg:#e7f6ec;--ok:#17633a;--code:#eef2f6}
*{box-sizing:border-box}
html{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--text);background:var(--bg)}
body{margin:0}
a{color:var(--accent-2)}a:hover{color:var(--accent)}
header{background:var(--accent);color:#fff;padding:.55rem 1.5rem;display:flex;gap:1.25rem;align-items:center;flex-wrap:wrap;box-shadow:0 1px 3px rgba(0,0,0,.15)}
header .brand{display:flex;align-items:center;gap:.5rem;font-weight:600;font-size:1.05rem;color:#fff;text-decoration:none}
header .brand img{width:22px;height:22px}
header nav{display:flex;gap:.25rem;align-items:center;flex-wrap:wrap;flex:1}
header nav a{color:#e3eefa;text-decoration:none;padding:.3rem .65rem;border-radius:6px}
header nav a:hover,header nav a[aria-current="page"]{background:rgba(255,255,255,.14);color:#fff}
header .who{margin-left:auto;opacity:.85;font-size:.9rem}
header form.inline button{background:transparent;border:1px solid rgba(255,255,255,.5);color:#fff}
header form.inline button:hover{background:rgba(255,255,255,.14)}
main{padding:1.25rem 1.5rem 3rem;max-width:80rem;margin:0 auto}
h1{font-size:1.45rem;margin:.25rem 0 1rem;font-weight:600}
h2{font-size:1.1rem;margin:1.75rem 0 .6rem;font-weight:600}
.breadcrumb{color:var(--muted);font-size:.9rem;margin:0 0 .25rem}
section.panel,fieldset,table{background:var(--panel);border:1px solid var(--line);border-radius:8px}
section.panel{padding:1rem 1.25rem;margin:0 0 1.25rem}
table{border-collapse:separate;border-spacing:0;width:100%;margin:.25rem 0 1.25rem;overflow:hidden}
caption{text-align:left;font-weight:600;padding:.35rem 0 .5rem;caption-side:top}
th,td{padding:.5rem .75rem;text-align:left;vertical-align:top;border-bottom:1px solid var(--line)}
tbody tr:last-child th,tbody tr:last-child td{border-bottom:0}
thead th{background:#eef3f8;font-weight:600;font-size:.85rem;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
tbody th{font-weight:500;color:var(--muted);width:14rem}
tbody tr:hover td{background:#fafcfe}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.actions{white-space:nowrap;text-align:right}
.empty{color:var(--muted);font-style:italic}
fieldset{padding:1rem 1.25rem;margin:0 0 1.25rem}
legend{font-weight:600;padding:0 .35rem}
label{display:inline-flex;flex-direction:column;gap:.2rem;margin:0 1rem .6rem 0;font-size:.9rem;color:var(--muted)}
label.check{flex-direction:row;align-items:center;gap:.35rem;color:var(--text)}
input,select,textarea{font:inherit;color:var(--text);background:#fff;border:1px solid #b8c4d0;border-radius:6px;padding:.4rem .55rem}
input:focus,select:focus,textarea:focus,button:focus-visible{outline:2px solid var(--accent-2);outline-offset:1px}
input[type="checkbox"]{width:1rem;height:1rem;padding:0}
input.wide{min-width:28rem;max-width:100%}
textarea{width:100%;min-height:9rem;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88rem}
button{font:inherit;font-size:.9rem;cursor:pointer;border-radius:6px;padding:.4rem .85rem;border:1px solid var(--accent-2);background:var(--accent-2);color:#fff;margin:.1rem .25rem .1rem 0}
button:hover{background:var(--accent)}
button.secondary{background:#fff;color:var(--accent-2)}
button.secondary:hover{background:#eef3f8}
button.danger{background:#fff;color:var(--danger);border-color:#e4a7a1}
button.danger:hover{background:var(--danger-bg)}
button.danger.solid{background:var(--danger);color:#fff;border-color:var(--danger)}
form.inline{display:inline}
.toolbar{display:flex;flex-wrap:wrap;gap:.35rem;align-items:center;margin:0 0 1rem}
.notice{padding:.65rem .9rem;border-radius:8px;border:1px solid transparent;margin:0 0 1rem}
.notice.ok{background:var(--ok-bg);color:var(--ok);border-color:#b7e1c4}
.notice.error{background:var(--danger-bg);color:var(--danger);border-color:#f2c1bc}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.8rem;font-weight:600;background:#e8edf3;color:var(--muted)}
.badge.RUNNING,.badge.committed{background:var(--ok-bg);color:var(--ok)}
.badge.FAILED,.badge.expired{background:var(--danger-bg);color:var(--danger)}
.secret{border-color:var(--accent-2)}
.secret-value{font-family:ui-monospace,monospace}
.badge.STARTING,.badge.STOPPING,.badge.staged{background:#fff4e0;color:#8a5300}
.level-error,.level-fatal{color:var(--danger);font-weight:600}
.level-warn{color:#8a5300;font-weight:600}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.86rem}
code{background:var(--code);padding:.05rem .3rem;border-radius:4px}
pre{white-space:pre-wrap;word-break:break-word;background:var(--code);padding:.75rem;border-radius:6px;max-height:32rem;overflow:auto;margin:.25rem 0 1rem}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(26rem,1fr));gap:1rem;margin:0 0 1.25rem}
.chart{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem;min-height:15rem}
.chart h2{margin:0 0 .4rem;font-size:.95rem}
.chart .note{color:var(--muted);font-size:.8rem;margin:.25rem 0 0}
.explain{margin:.25rem 0 0;padding-left:1.1rem;font-size:.88rem}
.explain li{margin:.1rem 0}
.explain .value{font-variant-numeric:tabular-nums;font-weight:600;margin-right:.4rem}
.result-head{display:flex;gap:.75rem;align-items:baseline;flex-wrap:wrap}
.result-head .score{font-variant-numeric:tabular-nums;color:var(--muted)}
.login{max-width:24rem;margin:3rem auto}
.login label{display:flex;margin:0 0 .8rem}
.login input{width:100%}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:.25rem 0 1rem}
dl.meta dt{color:var(--muted);font-weight:500}dl.meta dd{margin:0}
`;

/**
 * The admin UI's one script (served from our origin, so the policy's `script-src 'self'`
 * admits it; the pages work without it):
 * - forms with `data-confirm` ask before they are sent (`window.confirm`), and carry
 *   `confirmed=1` when the user agreed; without the script the server shows a confirmation
 *   page instead, so a destructive action never runs in one click either way;
 * - buttons `[data-copy]` (hidden without the script) copy the value of the input they name to
 *   the clipboard and say so in `[data-copy-status]`; where the clipboard API is refused
 *   (plain HTTP other than localhost) the value is selected for the user to copy;
 * - elements `[data-chart]` draw the metrics history (`data-source`, JSON) with uPlot and
 *   refresh it every 5 seconds.
 */
export const ADMIN_SCRIPT = `(function () {
  'use strict';
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-confirm')) return;
    if (!window.confirm(form.getAttribute('data-confirm'))) {
      event.preventDefault();
      return;
    }
    if (!form.querySelector('input[name="confirmed"]')) {
      var input = document.createElement('input');
      input.type = 'hidden';
      input.name = 'confirmed';
      input.value = '1';
      form.appendChild(input);
    }
  });

  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    var id = button.getAttribute('data-copy');
    var input = document.getElementById(id);
    var status = document.querySelector('[data-copy-status="' + id + '"]');
    if (!input) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      function say(text) { if (status) status.textContent = text; }
      function select() { input.focus(); input.select(); say('Selected: press Ctrl+C (or Cmd+C) to copy'); }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(function () { say('Copied'); }, select);
      } else {
        select();
      }
    });
  });

  var charts = document.querySelectorAll('[data-chart]');
  if (charts.length === 0 || typeof uPlot === 'undefined') return;
  var source = charts[0].getAttribute('data-source');
  var drawn = [];
  var colors = ['#2f6fa8', '#d9822b', '#8e44ad'];

  function series(spec) {
    var out = [{}];
    spec.series.forEach(function (s, i) {
      out.push({ label: s.label, stroke: colors[i % colors.length], width: 2, scale: s.scale,
        value: function (u, v) { return v == null ? '-' : v.toLocaleString('en-US', { maximumFractionDigits: 2 }) + ' ' + s.unit; } });
    });
    return out;
  }
  function axes(spec) {
    var out = [{}];
    var scales = [];
    spec.series.forEach(function (s) { if (scales.indexOf(s.scale) < 0) scales.push(s.scale); });
    scales.forEach(function (scale, i) {
      var unit = spec.series.filter(function (s) { return s.scale === scale; })[0].unit;
      out.push({ scale: scale, side: i === 0 ? 3 : 1, label: unit, grid: { show: i === 0 }, size: 60 });
    });
    return out;
  }
  function columns(history, spec) {
    var data = [history.points.map(function (p) { return p.time; })];
    spec.series.forEach(function (s) {
      data.push(history.points.map(function (p) { var v = p[s.field]; return v === undefined ? null : v; }));
    });
    return data;
  }
  function draw(history) {
    charts.forEach(function (element, i) {
      var spec = history.charts[element.getAttribute('data-chart')];
      if (!spec) return;
      var data = columns(history, spec);
      if (drawn[i]) { drawn[i].setData(data); return; }
      element.textContent = '';
      var width = Math.max(320, element.clientWidth - 8);
      drawn[i] = new uPlot({ width: width, height: 220, series: series(spec), axes: axes(spec),
        scales: { x: { time: true } } }, data, element);
      element.setAttribute('data-drawn', 'true');
    });
  }
  function load() {
    fetch(source, { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (history) { if (history) draw(history); }, function () {});
  }
  load();
  setInterval(load, 5000);
})();
`;
