import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  GENERATION_LOGS_KEPT,
  GenerationLogWriter,
  appendGenerationLog,
  pruneGenerationLogs,
} from '../../src/collection/generation-logs.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { capturedLog } from './runtime-fixture.js';
import { commit, putDocument, route, testApp } from '../http/helpers.js';

const folders: string[] = [];
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'pushsearch-genlog-'));
  folders.push(folder);
  return folder;
}
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** The JSON lines of a generation's log file. */
function logLines(home: string, generation: number, file: string): Record<string, unknown>[] {
  return readFileSync(join(home, 'data', 'c', 'live', 'log', `${generation}-`, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('generation logs (data/{c}/live/log/{generation}-/)', () => {
  it('a commit writes commit.log in its generation folder, a merge writes merge.log in the new one', async () => {
    const t = await testApp(['c']);
    try {
      for (const key of ['local:a', 'local:b']) {
        assert.equal((await putDocument(t.app, 'v2', 'c', key, `text of ${key}`)).statusCode, 200);
        const committed = await commit(t.app, 'v2', 'c');
        assert.equal(committed.statusCode, 200);
        const generation = committed.json().generation;
        assert.ok(typeof generation === 'number', committed.body);
        const [entry] = logLines(t.home, generation, 'commit.log');
        assert.equal(entry!.step, 'commit');
        assert.equal(entry!.changes, 1);
        assert.equal(entry!.manifest, committed.json().manifest);
        assert.equal(typeof entry!.durationMs, 'number');
      }
      const merge = await t.app.inject({
        method: 'POST',
        url: route('v2', 'c', '/vacuum?vacuum-type=MERGE'),
      });
      assert.equal(merge.statusCode, 200, merge.body);
      const folders = readdirSync(join(t.home, 'data', 'c', 'live', 'log'));
      const merged = folders.find((name) => {
        try {
          return logLines(t.home, Number.parseInt(name, 10), 'merge.log').length > 0;
        } catch {
          return false;
        }
      });
      assert.ok(merged !== undefined, `a merge.log among ${folders.join(', ')}`);
      const [entry] = logLines(t.home, Number.parseInt(merged, 10), 'merge.log');
      assert.equal(entry!.step, 'merge');
      assert.equal(entry!.documents, 2);
      assert.equal((entry!.inputs as number[]).length, 2);
    } finally {
      await t.close();
    }
  });

  it(`keeps the folders of the newest ${GENERATION_LOGS_KEPT} generations only, by number`, () => {
    const root = join(tempFolder(), 'log');
    for (let generation = 1; generation <= GENERATION_LOGS_KEPT + 20; generation++) {
      appendGenerationLog(join(root, `${generation}-`), 'commit.log', { step: 'commit', generation });
    }
    const kept = readdirSync(root)
      .map((name) => Number.parseInt(name, 10))
      .sort((a, b) => a - b);
    assert.equal(kept.length, GENERATION_LOGS_KEPT);
    assert.equal(kept[0], 21);
    assert.equal(kept.at(-1), GENERATION_LOGS_KEPT + 20);
    // 100 sorts before 99 as text: the order is by number, not by name.
    assert.ok(kept.includes(99) && kept.includes(100));
  });

  it('pruning leaves entries that are not generation folders alone', () => {
    const root = tempFolder();
    for (const generation of [3, 10, 200]) mkdirSync(join(root, `${generation}-`));
    writeFileSync(join(root, 'notes.txt'), 'kept');
    mkdirSync(join(root, 'other'));
    pruneGenerationLogs(root, 1);
    assert.deepEqual(readdirSync(root).sort(), ['200-', 'notes.txt', 'other']);
  });
});

describe('GenerationLogWriter', () => {
  it("a finished merge goes to the new generation's merge.log, a failed one to push.log", () => {
    const root = tempFolder();
    const { log, lines } = capturedLog();
    const writer = new GenerationLogWriter(new SearchHome(root), 'c', log);
    writer.onIndexEvent({
      type: 'merge-done',
      into: 7,
      generations: [3, 4],
      documents: 12,
      durationMs: 41.6,
    });
    const [entry] = logLines(root, 7, 'merge.log');
    assert.equal(entry?.step, 'merge');
    assert.deepEqual(entry?.inputs, [3, 4]);
    assert.equal(entry?.documents, 12);
    assert.equal(entry?.durationMs, 42);

    writer.onIndexEvent({
      type: 'merge-failed',
      into: 8,
      generations: [5, 6],
      snapshot: null,
      error: new Error('disk full'),
    });
    const failed = lines.find((line) => line.msg === 'merge failed');
    assert.equal(failed?.generation, 8);
    assert.deepEqual(failed?.inputs, [5, 6]);
    assert.equal((failed?.err as { message?: string } | undefined)?.message, 'disk full');
  });

  it('a log that cannot be written is reported in push.log and not thrown', () => {
    const root = tempFolder();
    // A file where the log folder's parent must be: the folder cannot be made.
    mkdirSync(join(root, 'data', 'c'), { recursive: true });
    writeFileSync(join(root, 'data', 'c', 'live'), 'not a folder');
    const { log, lines } = capturedLog();
    new GenerationLogWriter(new SearchHome(root), 'c', log).write(3, 'commit.log', { step: 'commit' });
    const reported = lines.find((line) => line.msg === 'cannot write generation log');
    assert.equal(reported?.generation, 3);
  });
});
