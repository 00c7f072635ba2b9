import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { Journal } from '../../src/journal/journal.js';

/** A fresh folder under the OS temp folder, removed when the test ends. */
export async function tempFolder(t: TestContext): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'pushsearch-journal-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** Everything a replay delivers, in order. */
export async function replayAll(
  journal: Journal,
  afterSeq = 0,
): Promise<Array<{ seq: number; payload: Buffer }>> {
  const records: Array<{ seq: number; payload: Buffer }> = [];
  await journal.replay(afterSeq, (seq, payload) => records.push({ seq, payload: Buffer.from(payload) }));
  return records;
}

export { seededRandom } from '../support/seeded-random.js';

/** A payload whose bytes tell which record it is: `record <n>` then filler up to `size`. */
export function payloadFor(n: number, size = 64): Buffer {
  const label = Buffer.from(`record ${n};`);
  const out = Buffer.alloc(Math.max(size, label.length), n % 251);
  label.copy(out);
  return out;
}
