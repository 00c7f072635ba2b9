/**
 * Relevance on the Cranfield collection: our default ranking (through the real collection
 * and search service, default configuration) next to a plain BM25 baseline computed in the
 * same run (k1 1.2, b 0.75, title+abstract, lower-case, small stop word list, no stemming).
 *
 *   npx tsc -p tsconfig.json && node dist/bench/relevance-cranfield.js
 *
 * Judgements: grades 1-4 are relevant (-1 is not); MAP over the top 1000; nDCG@10 with gain
 * 5 - grade. Queries are matched to judgements by position (cranqrel numbers them 1..225 in
 * file order, while cran.qry ids have gaps).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CollectionManager } from '../src/collection/collection-manager.js';
import { silentPushLog } from '../src/collection/push-log.js';
import { SearchHome } from '../src/collection/search-home.js';
import { firstPageParams } from '../src/search/run-search.js';
import { SearchService } from '../src/search/search-service.js';
import { printTable } from './lib/measure.js';
import { repositoryRoot } from './lib/rfc-corpus.js';

interface CranDoc {
  id: number;
  title: string;
  text: string;
}

const folder = join(repositoryRoot(), '..', 'shared', 'data', 'relevance', 'cranfield');

function fields(text: string, marker: RegExp): Map<string, string>[] {
  const records: Map<string, string>[] = [];
  let current: Map<string, string> | undefined;
  let field = '';
  for (const line of text.split(/\r?\n/)) {
    const head = /^\.([A-Z])(?:\s+(.*))?$/.exec(line);
    if (head !== null) {
      if (marker.test(line)) {
        current = new Map([['I', head[2]!.trim()]]);
        records.push(current);
        field = 'I';
        continue;
      }
      field = head[1]!;
      current?.set(field, '');
      continue;
    }
    if (current !== undefined && field !== 'I')
      current.set(field, `${current.get(field) ?? ''} ${line}`.trim());
  }
  return records;
}

function loadCranfield(): { docs: CranDoc[]; queries: string[]; qrels: Map<number, Map<number, number>> } {
  const docs = fields(readFileSync(join(folder, 'cran.all.1400'), 'latin1'), /^\.I /).map((r) => ({
    id: Number(r.get('I')),
    title: r.get('T') ?? '',
    text: r.get('W') ?? '',
  }));
  const queries = fields(readFileSync(join(folder, 'cran.qry'), 'latin1'), /^\.I /).map(
    (r) => r.get('W') ?? '',
  );
  const qrels = new Map<number, Map<number, number>>();
  for (const line of readFileSync(join(folder, 'cranqrel'), 'latin1').split('\n')) {
    const [q, d, g] = line.trim().split(/\s+/).map(Number);
    if (q === undefined || d === undefined || g === undefined || Number.isNaN(g)) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, g);
  }
  return { docs, queries, qrels };
}

const STOP = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);
const tokens = (text: string) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => !STOP.has(t));

/** The plain BM25 baseline, written out directly. */
function bm25Baseline(docs: CranDoc[]): (query: string) => number[] {
  const k1 = 1.2;
  const b = 0.75;
  const docTokens = docs.map((d) => tokens(`${d.title} ${d.text}`));
  const avg = docTokens.reduce((n, t) => n + t.length, 0) / docs.length;
  const df = new Map<string, number>();
  const tfs = docTokens.map((list) => {
    const tf = new Map<string, number>();
    for (const t of list) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    return tf;
  });
  const N = docs.length;
  return (query) => {
    const terms = [...new Set(tokens(query))];
    const scored = docs.map((doc, i) => {
      let score = 0;
      for (const t of terms) {
        const tf = tfs[i]!.get(t) ?? 0;
        if (tf === 0) continue;
        const n = df.get(t)!;
        const idf = Math.log(1 + (N - n + 0.5) / (n + 0.5));
        score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * docTokens[i]!.length) / avg));
      }
      return { id: doc.id, score };
    });
    return scored
      .filter((s) => s.score > 0)
      .sort((x, y) => y.score - x.score || x.id - y.id)
      .slice(0, 1000)
      .map((s) => s.id);
  };
}

function averagePrecision(ranking: number[], judged: Map<number, number>): number {
  const relevant = [...judged.values()].filter((g) => g >= 1 && g <= 4).length;
  if (relevant === 0) return 0;
  let found = 0;
  let sum = 0;
  ranking.forEach((id, i) => {
    const grade = judged.get(id);
    if (grade !== undefined && grade >= 1 && grade <= 4) {
      found++;
      sum += found / (i + 1);
    }
  });
  return sum / relevant;
}

function ndcgAt10(ranking: number[], judged: Map<number, number>): number {
  const gain = (grade: number | undefined) =>
    grade !== undefined && grade >= 1 && grade <= 4 ? 5 - grade : 0;
  const dcg = ranking.slice(0, 10).reduce((s, id, i) => s + gain(judged.get(id)) / Math.log2(i + 2), 0);
  const ideal = [...judged.values()]
    .map(gain)
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

async function main(): Promise<void> {
  if (!existsSync(folder)) {
    console.log(`Cranfield not found at ${folder}: skipping the relevance benchmark.`);
    return;
  }
  const { docs, queries, qrels } = loadCranfield();
  const root = mkdtempSync(join(tmpdir(), 'pushsearch-cranfield-'));
  try {
    const home = new SearchHome(root);
    const manager = new CollectionManager(home, silentPushLog());
    manager.create('cranfield', 'push');
    const collection = manager.collection('cranfield');
    const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    for (const doc of docs) {
      const html = `<html><head><title>${escape(doc.title)}</title></head><body><p>${escape(doc.text)}</p></body></html>`;
      await collection.putDocument({
        key: `http://cranfield.test/${doc.id}`,
        content: Buffer.from(html),
        contentType: 'text/html',
        metadata: {},
      });
    }
    await collection.commit(true);
    const service = new SearchService(manager);
    const baseline = bm25Baseline(docs);
    let oursMap = 0;
    let oursNdcg = 0;
    let baseMap = 0;
    let baseNdcg = 0;
    for (let q = 0; q < queries.length; q++) {
      const judged = qrels.get(q + 1) ?? new Map<number, number>();
      const response = await service.search(firstPageParams('cranfield', queries[q]!, 1000));
      const ours = response.response.resultPacket.results.map((r) => Number(r.liveUrl.split('/').pop()));
      const base = baseline(queries[q]!);
      oursMap += averagePrecision(ours, judged);
      oursNdcg += ndcgAt10(ours, judged);
      baseMap += averagePrecision(base, judged);
      baseNdcg += ndcgAt10(base, judged);
    }
    const n = queries.length;
    printTable([
      { ranking: 'pushsearch default', MAP: (oursMap / n).toFixed(3), 'nDCG@10': (oursNdcg / n).toFixed(3) },
      { ranking: 'plain BM25 baseline', MAP: (baseMap / n).toFixed(3), 'nDCG@10': (baseNdcg / n).toFixed(3) },
    ]);
    console.log(`${n} queries, ${docs.length} documents`);
    await manager.closeAll();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
