/**
 * Where a process's busy time went, from a V8 CPU profile (`node --cpu-prof`, e.g. the
 * server's profile of `bench/http-search.js --cpu-prof DIR`): the share of busy time (every
 * sample but `(idle)`) spent in each function, itself (`self`) and with what it calls
 * (`total`, each sample counted once per function however deep the recursion), sorted by
 * total. `--match TEXT` keeps only functions whose name or file contains TEXT; `--top N`
 * limits the rows (default 40); `--from S` skips the first S seconds of each profile (a
 * server's start-up: loading modules, opening the index). With several profiles, each is
 * read and summed.
 *
 *   node dist/bench/profile-shares.js [--top 40] [--match summary] [--from S] FILE.cpuprofile...
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { printTable } from './lib/measure.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '40' },
    match: { type: 'string' },
    from: { type: 'string', default: '0' },
  },
});
if (positionals.length === 0) throw new Error('give one or more .cpuprofile files');

const skipMs = Number(values.from) * 1000;
const self = new Map<string, number>();
const total = new Map<string, number>();
let busy = 0;
let idle = 0;

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const nameOf = (node: ProfileNode): string => {
    const { functionName, url, lineNumber } = node.callFrame;
    return `${functionName || '(anonymous)'} ${url === '' ? '' : `${basename(url)}:${lineNumber + 1}`}`.trim();
  };
  let elapsed = 0;
  profile.samples.forEach((id, i) => {
    // A sample's time is the delta to the next sample (V8 stores the delta before it).
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    elapsed += (profile.timeDeltas[i] ?? 0) / 1000;
    if (elapsed < skipMs) return;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idle += ms;
      return;
    }
    busy += ms;
    const leaf = nameOf(node);
    self.set(leaf, (self.get(leaf) ?? 0) + ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = nameOf(byId.get(at)!);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + ms);
    }
  });
}

const match = values.match?.toLowerCase();
const rows = [...total.entries()]
  .filter(([name]) => match === undefined || name.toLowerCase().includes(match))
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(values.top))
  .map(([name, ms]) => ({
    function: name,
    'total %': ((100 * ms) / busy).toFixed(1),
    'self %': ((100 * (self.get(name) ?? 0)) / busy).toFixed(1),
    'total ms': ms.toFixed(0),
  }));
console.log(
  `busy ${(busy / 1000).toFixed(1)} s, idle ${(idle / 1000).toFixed(1)} s (${positionals.length} profile(s))`,
);
printTable(rows);
