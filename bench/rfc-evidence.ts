/**
 * Anchor text and clicks at work on the RFC corpus.
 *
 * 1. Loads N RFC pages (default 20,000: RFC 1 to about 1422) and pushes them through the
 *    collection layer as HTML, their cross references ("RFC 2616", "[RFC2119]", "RFC-793")
 *    turned into links to the cited RFC's first page (`https://rfc.example.org/rfc2616/page-1`)
 *    whose text is the reference with the words around it (a page's references to its own RFC,
 *    in page headers mostly, are left as text: the evidence measured is other RFCs citing it).
 * 2. Commits, brings anchor text up to date, and for up to 20 well-known RFCs in the loaded
 *    pages asks for the RFC's name ("Transmission Control Protocol"): is its first page the
 *    first result? Success rate with anchor text (`-anniemode=3`, the default) and without
 *    (`-anniemode=0`), same index, same run.
 * 3. Simulates clicks (5 each, as `/s/redirect` logs them) on the 3rd result of some queries,
 *    processes the click logs, and prints the clicked result's rank before and after, for the
 *    clicked query and for another query it matches.
 *
 * Usage: node dist/bench/rfc-evidence.js [--limit 20000] [--folder bench/results/tmp]
 *        [--clicked-queries 10] [--clicks 5] [--concurrency 64] [--context-words 10]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CollectionManager } from '../src/collection/collection-manager.js';
import { silentPushLog } from '../src/collection/push-log.js';
import { SearchHome } from '../src/collection/search-home.js';
import { escapeHtml } from '../src/escape-html.js';
import { appendClick } from '../src/collection/evidence/click-log.js';
import { firstPageParams } from '../src/search/run-search.js';
import { SearchService } from '../src/search/search-service.js';
import { formatMs, peakRss, formatBytes, printTable } from './lib/measure.js';
import {
  corpusAvailable,
  corpusMissingMessage,
  loadRfcCorpusIntoMemory,
  repositoryRoot,
  type RfcPage,
} from './lib/rfc-corpus.js';

/** Well-known RFCs and the names people search them by, most famous first. */
export const WELL_KNOWN_RFCS: readonly { rfc: number; query: string }[] = [
  { rfc: 793, query: 'Transmission Control Protocol' },
  { rfc: 791, query: 'Internet Protocol' },
  { rfc: 768, query: 'User Datagram Protocol' },
  { rfc: 792, query: 'Internet Control Message Protocol' },
  { rfc: 821, query: 'Simple Mail Transfer Protocol' },
  { rfc: 822, query: 'Standard for the Format of ARPA Internet Text Messages' },
  { rfc: 826, query: 'Ethernet Address Resolution Protocol' },
  { rfc: 854, query: 'Telnet Protocol Specification' },
  { rfc: 959, query: 'File Transfer Protocol' },
  { rfc: 951, query: 'Bootstrap Protocol' },
  { rfc: 1034, query: 'Domain Names Concepts and Facilities' },
  { rfc: 1035, query: 'Domain Names Implementation and Specification' },
  { rfc: 1057, query: 'Remote Procedure Call Protocol Specification' },
  { rfc: 1058, query: 'Routing Information Protocol' },
  { rfc: 1094, query: 'Network File System Protocol Specification' },
  { rfc: 1112, query: 'Host Extensions for IP Multicasting' },
  { rfc: 1122, query: 'Requirements for Internet Hosts Communication Layers' },
  { rfc: 1157, query: 'Simple Network Management Protocol' },
  { rfc: 1191, query: 'Path MTU Discovery' },
  { rfc: 1305, query: 'Network Time Protocol' },
  { rfc: 1321, query: 'MD5 Message-Digest Algorithm' },
  { rfc: 1350, query: 'Trivial File Transfer Protocol' },
  { rfc: 1155, query: 'Structure and Identification of Management Information' },
  { rfc: 1213, query: 'Management Information Base for Network Management' },
  { rfc: 1661, query: 'Point-to-Point Protocol' },
  { rfc: 1939, query: 'Post Office Protocol Version 3' },
  { rfc: 2045, query: 'Multipurpose Internet Mail Extensions' },
  { rfc: 2119, query: 'Key words for use in RFCs to Indicate Requirement Levels' },
  { rfc: 2131, query: 'Dynamic Host Configuration Protocol' },
  { rfc: 2616, query: 'Hypertext Transfer Protocol' },
  { rfc: 3501, query: 'Internet Message Access Protocol' },
  { rfc: 3986, query: 'Uniform Resource Identifier Generic Syntax' },
  { rfc: 4271, query: 'Border Gateway Protocol' },
  { rfc: 5246, query: 'Transport Layer Security Protocol' },
  { rfc: 6749, query: 'OAuth 2.0 Authorization Framework' },
];

const BASE = 'https://rfc.example.org';
const COLLECTION = 'rfc';
/** "RFC 2616", "RFC2616", "RFC-2616", "[RFC2119]" (a bracketed one includes its brackets). */
const REFERENCE = /\[RFC ?-?(\d{1,4})\]|\bRFC[ -]?(\d{1,4})\b/g;

/** The first page of an RFC: where cross references point. */
export function firstPageOf(rfc: number): string {
  return `${BASE}/rfc${rfc}/page-1`;
}

/**
 * A page as HTML: its text in `<pre>`, each cross reference to another RFC a link to that
 * RFC's first page, the link text being the reference with up to `contextWords` words on each
 * side (cut where a neighbouring link starts). Returns the HTML and the number of links.
 */
export function pageToHtml(page: RfcPage, contextWords: number): { html: string; links: number } {
  const text = page.text;
  const matches: { start: number; end: number; rfc: number }[] = [];
  for (const m of text.matchAll(REFERENCE)) {
    const rfc = Number(m[1] ?? m[2]);
    if (rfc === page.rfc || rfc === 0) continue;
    matches.push({ start: m.index, end: m.index + m[0].length, rfc });
  }
  let html = '';
  let at = 0;
  matches.forEach((match, i) => {
    const start = Math.max(at, wordsBefore(text, match.start, contextWords));
    const next = matches[i + 1]?.start ?? text.length;
    const end = Math.max(match.end, Math.min(next, wordsAfter(text, match.end, contextWords)));
    html += escapeHtml(text.slice(at, start));
    html += `<a href="${firstPageOf(match.rfc)}">${escapeHtml(text.slice(start, end))}</a>`;
    at = end;
  });
  html += escapeHtml(text.slice(at));
  const title = escapeHtml(page.title);
  return {
    html: `<!doctype html><html><head><title>${title}</title></head><body><pre>${html}</pre></body></html>`,
    links: matches.length,
  };
}

/** Start of the `n`th word before `offset`. */
function wordsBefore(text: string, offset: number, n: number): number {
  let at = offset;
  for (let i = 0; i < n; i++) {
    while (at > 0 && /\s/.test(text[at - 1]!)) at--;
    if (at === 0) break;
    while (at > 0 && !/\s/.test(text[at - 1]!)) at--;
  }
  return at;
}

/** End of the `n`th word after `offset`. */
function wordsAfter(text: string, offset: number, n: number): number {
  let at = offset;
  for (let i = 0; i < n; i++) {
    while (at < text.length && /\s/.test(text[at]!)) at++;
    if (at === text.length) break;
    while (at < text.length && !/\s/.test(text[at]!)) at++;
  }
  return at;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      limit: { type: 'string', default: '20000' },
      folder: { type: 'string' },
      'clicked-queries': { type: 'string', default: '10' },
      clicks: { type: 'string', default: '5' },
      concurrency: { type: 'string', default: '64' },
      'context-words': { type: 'string', default: '10' },
    },
  });
  if (!corpusAvailable()) {
    console.log(corpusMissingMessage());
    return;
  }
  const limit = Number(values.limit);
  const contextWords = Number(values['context-words']);
  const parent = resolve(values.folder ?? join(repositoryRoot(), 'bench', 'results', 'tmp'));
  mkdirSync(parent, { recursive: true });
  const root = mkdtempSync(join(parent, 'rfc-evidence-'));
  const home = new SearchHome(root);
  const manager = new CollectionManager(home, silentPushLog());
  try {
    manager.create(COLLECTION, 'push');
    const baseCfg = [
      'push.auto-commit.timeout-seconds=0',
      'push.auto-commit.max-changes=0',
      // The benchmark runs each evidence step itself, to time it.
      'push.evidence.delay-seconds=86400',
      'push.click-logs.interval-seconds=0',
    ];
    const writeCfg = (extra: string[]) =>
      writeFileSync(home.collectionConfigFile(COLLECTION), [...baseCfg, ...extra].join('\n') + '\n');
    writeCfg([]);

    let started = performance.now();
    const pages = await loadRfcCorpusIntoMemory(limit);
    console.log(
      `loaded ${pages.length} pages (RFC ${pages[0]?.rfc} to ${pages.at(-1)?.rfc}) in ${formatMs(performance.now() - started)}`,
    );

    const collection = manager.collection(COLLECTION);
    started = performance.now();
    let links = 0;
    let next = 0;
    const workers = Array.from({ length: Number(values.concurrency) }, async () => {
      while (next < pages.length) {
        const page = pages[next++]!;
        const { html, links: n } = pageToHtml(page, contextWords);
        links += n;
        await collection.putDocument({
          key: page.key,
          content: Buffer.from(html),
          contentType: 'text/html; charset=utf-8',
          metadata: {},
        });
      }
    });
    await Promise.all(workers);
    const pushMs = performance.now() - started;
    started = performance.now();
    await collection.commit();
    const commitMs = performance.now() - started;
    started = performance.now();
    const update = await collection.updateEvidence();
    const updateMs = performance.now() - started;
    console.log(
      `pushed ${pages.length} pages with ${links} cross-reference links in ${formatMs(pushMs)}; commit ${formatMs(commitMs)}; ` +
        `anchor text: ${update.documentsRead} pages read, ${update.documentsUpdated} targets re-indexed and committed in ${formatMs(updateMs)}`,
    );

    // A second, small change: the incremental path (one citing page changed).
    const citing = pages.find((p) => pageToHtml(p, contextWords).links > 0)!;
    await collection.putDocument({
      key: citing.key,
      content: Buffer.from(
        pageToHtml({ ...citing, text: citing.text.replace(REFERENCE, 'a reference') }, contextWords).html,
      ),
      contentType: 'text/html; charset=utf-8',
      metadata: {},
    });
    await collection.commit();
    started = performance.now();
    const small = await collection.updateEvidence();
    console.log(
      `incremental update after one citing page lost its links: ${small.documentsRead} page read, ${small.documentsUpdated} targets re-indexed, ${formatMs(performance.now() - started)}`,
    );

    const loaded = new Set(pages.filter((p) => p.page === 1).map((p) => p.rfc));
    const known = WELL_KNOWN_RFCS.filter((r) => loaded.has(r.rfc)).slice(0, 20);
    const service = new SearchService(manager);
    const search = async (query: string) =>
      (await service.search(firstPageParams(COLLECTION, query, 20))).response.resultPacket.results;
    const rankOf = async (query: string, key: string) => {
      const rank = (await search(query)).findIndex((r) => r.liveUrl === key) + 1;
      return rank === 0 ? '>20' : rank;
    };

    writeCfg(['query_processor_options=-anniemode=3']);
    const on: (number | string)[] = [];
    for (const r of known) on.push(await rankOf(r.query, firstPageOf(r.rfc)));
    writeCfg(['query_processor_options=-anniemode=0']);
    const off: (number | string)[] = [];
    for (const r of known) off.push(await rankOf(r.query, firstPageOf(r.rfc)));
    writeCfg(['query_processor_options=-anniemode=3']);

    printTable(
      known.map((r, i) => ({
        rfc: r.rfc,
        query: r.query,
        'rank (anchor text on)': on[i]!,
        'rank (off)': off[i]!,
      })),
    );
    const rate = (ranks: (number | string)[]) => ranks.filter((rank) => rank === 1).length;
    const mrr = (ranks: (number | string)[]) =>
      ranks.reduce<number>((sum, rank) => sum + (typeof rank === 'number' ? 1 / rank : 0), 0) / ranks.length;
    console.log(
      `first page of the RFC first: ${rate(on)}/${known.length} with anchor text, ${rate(off)}/${known.length} without ` +
        `(MRR@20 ${mrr(on).toFixed(3)} vs ${mrr(off).toFixed(3)})`,
    );

    // Clicks on the 3rd result of some queries. "Other query": the clicked page's RFC title,
    // a query it matches that nobody clicked for (skipped when it is the clicked query).
    const clickCount = Number(values.clicks);
    const scoreOf = async (query: string, key: string) =>
      (
        await service.search({
          collection: COLLECTION,
          query,
          startRank: 1,
          numRanks: 200,
          fmo: false,
          facetSelections: [],
          ranges: [],
        })
      ).response.resultPacket.results.find((r) => r.liveUrl === key)?.score ?? 0;
    const clicked: {
      query: string;
      url: string;
      other: string;
      before: { rank: number | string; score: number };
      otherBefore: { rank: number | string; score: number };
    }[] = [];
    for (const r of known.slice(0, Number(values['clicked-queries']))) {
      const third = (await search(r.query))[2];
      if (third === undefined) continue;
      const title = (third.title.split(':')[1] ?? '').trim();
      const other = title !== '' && title.toLowerCase() !== r.query.toLowerCase() ? title : '';
      clicked.push({
        query: r.query,
        url: third.liveUrl,
        other,
        before: { rank: 3, score: third.score },
        otherBefore:
          other === ''
            ? { rank: '', score: 0 }
            : { rank: await rankOf(other, third.liveUrl), score: await scoreOf(other, third.liveUrl) },
      });
      for (let i = 0; i < clickCount; i++) {
        await appendClick(home, COLLECTION, {
          time: new Date(),
          collection: COLLECTION,
          query: r.query,
          rank: 3,
          url: third.liveUrl,
        });
      }
    }
    started = performance.now();
    const processed = await collection.processClickLogs();
    console.log(
      `click logs: ${processed.clicksProcessed} clicks, ${processed.documentsUpdated} documents re-indexed and committed in ${formatMs(performance.now() - started)}`,
    );
    const rows = [];
    for (const c of clicked) {
      const gain = (await scoreOf(c.query, c.url)) - c.before.score;
      const otherGain = c.other === '' ? undefined : (await scoreOf(c.other, c.url)) - c.otherBefore.score;
      rows.push({
        query: c.query,
        'clicked (3rd)': c.url.replace(BASE, ''),
        'rank after': await rankOf(c.query, c.url),
        'score gain': gain.toFixed(2),
        'other query': c.other.length > 36 ? c.other.slice(0, 36) + '…' : c.other,
        'other rank before': c.otherBefore.rank,
        'other rank after': c.other === '' ? '' : await rankOf(c.other, c.url),
        'other score gain': otherGain === undefined ? '' : otherGain.toFixed(2),
      });
    }
    printTable(rows);
    const onAfter: (number | string)[] = [];
    for (const r of known) onAfter.push(await rankOf(r.query, firstPageOf(r.rfc)));
    console.log(
      `first page of the RFC first after the clicks: ${rate(onAfter)}/${known.length} (clicks were on other pages)`,
    );
    console.log(`peak RSS ${formatBytes(peakRss())}`);
  } finally {
    await manager.closeAll();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
