/**
 * The candidate nearest to `key` by edit distance (insertions, deletions, substitutions and
 * swaps of two neighbouring characters), or undefined when none is within half the key's
 * length: an unknown configuration key is most often a known one misspelt or mis-cased.
 */
export function nearestKey(key: string, candidates: Iterable<string>): string | undefined {
  const wanted = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(wanted.length / 2)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance between `a` and `b`. */
function editDistance(a: string, b: string): number {
  // rows[i][j]: distance between the first i characters of a and the first j of b.
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        distance = Math.min(distance, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row.push(distance);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}
