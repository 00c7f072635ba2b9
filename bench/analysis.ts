/**
 * Micro-benchmark of the analyzer's indexing path (`forEachTerm`) on RFC text, next to
 * `Intl.Segmenter` word segmentation of the same text in the same process (the peer: what a
 * tokenizer built on the platform segmenter would cost before any folding).
 *
 * Usage: node dist/bench/analysis.js [corpus.jsonl.br] [lines]
 * Defaults: /work/shared/data/corpus/rfc-pages.jsonl.br, 20000 lines (each line a JSON
 * object with `title` and `text`; both are analysed, as the index does).
 * Prints the median of 3 runs per configuration; MB are MB of UTF-8 text (10^6 bytes).
 */
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createBrotliDecompress } from 'node:zlib';
import { createAnalyzer } from '../src/index/analysis/create-analyzer.js';
import type { Analyzer } from '../src/index/analysis/analyzer.js';

const DEFAULT_CORPUS = '/work/shared/data/corpus/rfc-pages.jsonl.br';
const RUNS = 3;

async function loadTexts(path: string, maxLines: number): Promise<string[]> {
  const input = createReadStream(path).pipe(createBrotliDecompress());
  const lines = createInterface({ input, crlfDelay: Infinity });
  const texts: string[] = [];
  let count = 0;
  for await (const line of lines) {
    if (line.length === 0) continue;
    const doc = JSON.parse(line) as { title?: unknown; text?: unknown };
    if (typeof doc.title === 'string') texts.push(doc.title);
    if (typeof doc.text === 'string') texts.push(doc.text);
    if (++count >= maxLines) break;
  }
  lines.close();
  input.destroy();
  return texts;
}

interface Measure {
  /** Wall-clock time. */
  ms: number;
  /** CPU time of the process (user + system): less disturbed by other processes on a busy machine. */
  cpuMs: number;
  tokens: number;
}

/** Runs `work` and measures it; `work` returns the number of tokens it saw. */
function measure(work: () => number): Measure {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const tokens = work();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, tokens };
}

/** Keeps the work observable so the JIT cannot drop it. */
let sink = 0;

function runAnalyzer(analyzer: Analyzer, texts: readonly string[]): Measure {
  return measure(() => {
    let tokens = 0;
    const onTerm = (term: string, position: number): void => {
      tokens++;
      sink += term.length + position;
    };
    for (const text of texts) analyzer.forEachTerm(text, 0, onTerm);
    return tokens;
  });
}

function runSegmenter(segmenter: Intl.Segmenter, texts: readonly string[]): Measure {
  return measure(() => {
    let tokens = 0;
    for (const text of texts) {
      for (const segment of segmenter.segment(text)) {
        if (segment.isWordLike === true) {
          tokens++;
          sink += segment.segment.length;
        }
      }
    }
    return tokens;
  });
}

/**
 * The same segmentation, one line at a time. Node 20's V8 makes `Intl.Segmenter` slower per
 * character the longer the input (fixed in later V8: https://issues.chromium.org/issues/326176949),
 * so this is the peer at its best, as a caller who knows of the problem would use it.
 */
function runSegmenterPerLine(segmenter: Intl.Segmenter, texts: readonly string[]): Measure {
  return measure(() => {
    let tokens = 0;
    for (const text of texts) {
      for (const line of text.split('\n')) {
        for (const segment of segmenter.segment(line)) {
          if (segment.isWordLike === true) {
            tokens++;
            sink += segment.segment.length;
          }
        }
      }
    }
    return tokens;
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const path = process.argv[2] ?? DEFAULT_CORPUS;
  const maxLines = Number(process.argv[3] ?? 20000);
  if (!existsSync(path)) {
    console.log(
      `analysis benchmark skipped: corpus ${path} not found (pass another path as the first argument)`,
    );
    return;
  }
  const texts = await loadTexts(path, maxLines);
  const bytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t, 'utf8'), 0);
  const mb = bytes / 1e6;
  console.log(
    `corpus: ${path}, ${texts.length} texts (title + text of ${maxLines} lines), ${mb.toFixed(1)} MB UTF-8`,
  );

  const noStem = createAnalyzer();
  const stem = createAnalyzer({ stem: true });
  const stemStop = createAnalyzer({ stem: true, stopWords: true });
  const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
  const configs: [string, (texts: readonly string[]) => Measure][] = [
    ['forEachTerm, no stemming', (t) => runAnalyzer(noStem, t)],
    ['forEachTerm, stemming', (t) => runAnalyzer(stem, t)],
    ['forEachTerm, stemming + stop words', (t) => runAnalyzer(stemStop, t)],
    ['Intl.Segmenter, per line (peer)', (t) => runSegmenterPerLine(segmenter, t)],
    ['Intl.Segmenter, whole text (peer)', (t) => runSegmenter(segmenter, t)],
  ];

  // Warm-up on a slice, so that the first measured run is not mostly JIT compilation.
  const warm = texts.slice(0, Math.min(texts.length, 1000));
  for (const [, fn] of configs) fn(warm);

  // Rounds interleave the configurations, so that drift of the machine hits all of them.
  const measured = configs.map(([name, fn]) => ({ name, fn, runs: [] as Measure[] }));
  for (let run = 0; run < RUNS; run++) {
    for (const config of measured) config.runs.push(config.fn(texts));
  }

  const results = measured.map(({ name, runs }) => ({
    name,
    wall: median(runs.map((m) => m.ms)),
    cpu: median(runs.map((m) => m.cpuMs)),
    tokens: runs[0]?.tokens ?? 0,
  }));
  // The last two configurations are the peers the others are compared with.
  const [perLine, wholeText] = results.slice(-2);
  if (perLine === undefined || wholeText === undefined)
    throw new Error('the configurations must end with the per-line and whole-text peers');
  console.log(
    `median of ${RUNS} runs; MB/s and Mtok/s from wall-clock time, CPU MB/s from process CPU time;`,
  );
  console.log('speed-up = time of the peer / time of this configuration (wall-clock)');
  console.log(
    'configuration'.padEnd(36) +
      'wall ms'.padStart(9) +
      'MB/s'.padStart(8) +
      'Mtok/s'.padStart(8) +
      'CPU MB/s'.padStart(10) +
      'tokens'.padStart(10) +
      'vs per line'.padStart(13) +
      'vs whole text'.padStart(15),
  );
  for (const { name, wall, cpu, tokens } of results) {
    console.log(
      name.padEnd(36) +
        wall.toFixed(0).padStart(9) +
        (mb / (wall / 1000)).toFixed(1).padStart(8) +
        (tokens / 1e6 / (wall / 1000)).toFixed(2).padStart(8) +
        (mb / (cpu / 1000)).toFixed(1).padStart(10) +
        String(tokens).padStart(10) +
        `${(perLine.wall / wall).toFixed(1)}x`.padStart(13) +
        `${(wholeText.wall / wall).toFixed(1)}x`.padStart(15),
    );
  }
  if (sink === -1) console.log(''); // never true; reads the sink
}

await main();
