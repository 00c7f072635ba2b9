import { escapeHtml } from '../../escape-html.js';
import type { FacetView, SearchParams, SearchResponse, SearchResult } from '../../search/search-service.js';
import { renderPage, renderSearchHeader } from './page-layout.js';
import { SearchLinks } from './search-links.js';

/** Options of {@link renderResultsPage}. */
export interface ResultsPageOptions {
  /** Largest start_rank the server accepts: page links beyond it are not shown. */
  maxStartRank: number;
}

/** Page-number links shown around the current page. */
const PAGE_WINDOW = 9;
/** Metadata classes and characters per value shown under a result (the rest is in search.json). */
const MAX_META_CLASSES = 8;
const MAX_META_CHARS = 200;
const MAX_DISPLAY_URL_CHARS = 120;
const NUMBER = new Intl.NumberFormat('en');

/**
 * The results page of a search: search box, result count (fully and partially matching),
 * "did you mean", results (title linked through the click-tracking URL, display URL,
 * highlighted summary, metadata), page links and facets; an empty state without a query or
 * without results. Everything from the index or the request is escaped, except the
 * summaries, which the query processor returns already escaped with `<b>` marks.
 */
export function renderResultsPage(
  params: SearchParams,
  response: SearchResponse,
  options: ResultsPageOptions,
): string {
  const links = new SearchLinks(params);
  const packet = response.response.resultPacket;
  const summary = packet.resultsSummary;
  const keep: Record<string, string> = {};
  if (params.gscope !== undefined && params.gscope !== '') keep.gscope1 = params.gscope;
  if (params.numRanks !== 10) keep.num_ranks = String(params.numRanks);
  if (params.fmo) keep.fmo = 'on';
  const header = renderSearchHeader(params.collection, params.query, keep);
  const hasQuery = params.query.trim() !== '';
  const title = hasQuery ? `${params.query} – Search ${params.collection}` : `Search ${params.collection}`;

  const main: string[] = [];
  const spell =
    packet.spell === null
      ? ''
      : `<p class="spell">Did you mean <a href="${escapeHtml(links.withQuery(packet.spell.text))}">${escapeHtml(packet.spell.text)}</a>?</p>`;
  if (!hasQuery && summary.totalMatching === 0) {
    main.push(
      `<div class="empty"><h2>Search ${escapeHtml(params.collection)}</h2><p>Type some words in the search box and press Enter.</p></div>`,
    );
  } else if (summary.totalMatching === 0) {
    main.push(
      `<div class="empty"><h2>No results for <q>${escapeHtml(params.query)}</q></h2>${spell}<ul>`,
      '<li>Check the spelling of the words.</li><li>Try fewer or more general words.</li>',
      links.filtered
        ? `<li><a href="${escapeHtml(links.withoutFilters())}">Search without the filters</a>.</li>`
        : '',
      '</ul></div>',
    );
  } else {
    main.push(countLine(response), spell);
    if (packet.results.length === 0) {
      main.push(
        `<p class="empty">This page is past the last result. <a href="${escapeHtml(links.page(1))}">Go to the first page</a>.</p>`,
      );
    } else {
      main.push(
        '<h2 class="visually-hidden">Results</h2>',
        `<ol class="results" start="${summary.currStart}">`,
        ...packet.results.map((result) => renderResult(result, params.collection)),
        '</ol>',
      );
    }
    main.push(pageLinks(params, response, links, options.maxStartRank));
  }

  return renderPage({
    title,
    header,
    main: main.join('\n'),
    aside: facetPanel(response.response.facets, params, links),
  });
}

function countLine(response: SearchResponse): string {
  const s = response.response.resultPacket.resultsSummary;
  const total = `${s.totalMatchingExact ? '' : 'at least '}${NUMBER.format(s.totalMatching)}`;
  const noun = s.totalMatching === 1 ? 'result' : 'results';
  const split =
    s.partiallyMatching > 0
      ? ` (${NUMBER.format(s.fullyMatching)} fully matching, ${NUMBER.format(s.partiallyMatching)} partially matching)`
      : '';
  const shown = s.currStart > 0 ? `; showing ${NUMBER.format(s.currStart)}–${NUMBER.format(s.currEnd)}` : '';
  return `<p class="summary-line" id="result-count"><strong>${total}</strong> ${noun}${split}${shown}</p>`;
}

function renderResult(result: SearchResult, searched: string): string {
  const display =
    result.displayUrl.length > MAX_DISPLAY_URL_CHARS
      ? `${result.displayUrl.slice(0, MAX_DISPLAY_URL_CHARS - 1)}…`
      : result.displayUrl;
  const info: string[] = [];
  if (result.collection !== searched) info.push(`from ${escapeHtml(result.collection)}`);
  if (result.fileType !== '' && result.fileType !== 'unknown')
    info.push(escapeHtml(result.fileType.toUpperCase()));
  if (result.fileSize > 0) info.push(escapeHtml(formatSize(result.fileSize)));
  if (result.date !== null && result.date !== '') info.push(`<time>${escapeHtml(result.date)}</time>`);
  const metadata = Object.entries(result.listMetadata)
    .filter(([className, values]) => className !== 't' && values.length > 0)
    .slice(0, MAX_META_CLASSES)
    .map(([className, values]) => {
      const text = values.join(', ');
      const cut = text.length > MAX_META_CHARS ? `${text.slice(0, MAX_META_CHARS - 1)}…` : text;
      return `<div><dt>${escapeHtml(className)}</dt><dd>${escapeHtml(cut)}</dd></div>`;
    });
  return [
    `<li class="result" value="${result.rank}">`,
    `<h3><a href="${escapeHtml(result.clickTrackingUrl)}">${escapeHtml(result.title)}</a></h3>`,
    `<div class="url">${escapeHtml(display)}</div>`,
    // Already escaped by the query processor, with <b> around the matched words.
    result.summary === '' ? '' : `<p class="snippet">${result.summary}</p>`,
    metadata.length === 0 ? '' : `<dl>${metadata.join('')}</dl>`,
    info.length === 0 ? '' : `<p class="info">${info.join(' · ')}</p>`,
    '</li>',
  ].join('');
}

function pageLinks(
  params: SearchParams,
  response: SearchResponse,
  links: SearchLinks,
  maxStartRank: number,
): string {
  const s = response.response.resultPacket.resultsSummary;
  const size = params.numRanks;
  const reachable = Math.min(s.totalMatching, maxStartRank + size - 1);
  const lastPage = Math.max(1, Math.ceil(reachable / size));
  const current = Math.floor((params.startRank - 1) / size) + 1;
  const aligned = (params.startRank - 1) % size === 0;
  if (lastPage <= 1 && s.prevStart === null && s.nextStart === null) return '';
  const first = Math.max(1, Math.min(current - Math.floor(PAGE_WINDOW / 2), lastPage - PAGE_WINDOW + 1));
  const last = Math.min(lastPage, first + PAGE_WINDOW - 1);
  const items: string[] = [];
  if (s.prevStart !== null) {
    items.push(
      `<li><a href="${escapeHtml(links.page(s.prevStart))}" rel="prev">Previous<span class="visually-hidden"> page</span></a></li>`,
    );
  }
  for (let page = first; page <= last; page++) {
    const start = (page - 1) * size + 1;
    if (page === current && aligned) {
      items.push(
        `<li><span aria-current="page"><span class="visually-hidden">Page </span>${page}</span></li>`,
      );
    } else {
      items.push(
        `<li><a href="${escapeHtml(links.page(start))}"><span class="visually-hidden">Page </span>${page}</a></li>`,
      );
    }
  }
  if (s.nextStart !== null && s.nextStart <= maxStartRank) {
    items.push(
      `<li><a href="${escapeHtml(links.page(s.nextStart))}" rel="next">Next<span class="visually-hidden"> page</span></a></li>`,
    );
  }
  return `<nav class="pages" aria-label="Result pages"><ul>${items.join('')}</ul></nav>`;
}

function facetPanel(facets: FacetView[], params: SearchParams, links: SearchLinks): string {
  const sections: string[] = [];
  for (const facet of facets) {
    const selected =
      params.facetSelections.find((s) => s.name === facet.name && s.className === facet.className)?.values ??
      [];
    // A selected value with no count left (another filter excludes it) stays listed, so it can be removed.
    const values = [
      ...facet.values,
      ...selected
        .filter((v) => !facet.values.some((fv) => fv.label === v))
        .map((label) => ({ label, count: 0, selected: true })),
    ];
    if (values.length === 0) continue;
    const items = values.map((value) => {
      const isSelected = value.selected || selected.includes(value.label);
      const href = escapeHtml(links.toggleFacet(facet.name, facet.className, value.label));
      const label = escapeHtml(value.label);
      const link = isSelected
        ? `<a href="${href}" class="selected" aria-current="true"><span aria-hidden="true">✓ </span>${label}<span class="visually-hidden"> (selected: follow to remove)</span></a>`
        : `<a href="${href}">${label}</a>`;
      return `<li>${link} <span class="count">${NUMBER.format(value.count)}<span class="visually-hidden"> results</span></span></li>`;
    });
    const clear =
      selected.length === 0
        ? ''
        : `<li><a href="${escapeHtml(links.clearFacet(facet.name, facet.className))}">Clear ${escapeHtml(facet.name)}</a></li>`;
    sections.push(`<section><h3>${escapeHtml(facet.name)}</h3><ul>${items.join('')}${clear}</ul></section>`);
  }
  if (sections.length === 0) return '';
  return `<h2 id="refine-heading">Refine</h2>${sections.join('')}`;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} kB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
