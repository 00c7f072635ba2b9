import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SearchIndex } from '../../src/index/search-index.js';
import { THREAD_NAMES } from '../../src/index/thread-name.js';

/** Names of this process's live threads, as `ps -L` shows them. */
function threadNames(): string[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      return [readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()];
    } catch {
      return []; // ended meanwhile
    }
  });
}

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe(
  'thread names',
  { skip: process.platform !== 'linux' && 'thread names are read from Linux /proc' },
  () => {
    it('indexing and merge threads carry their names while they work, so an operator can tell them apart', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'pushsearch-threads-'));
      folders.push(folder);
      const index = await SearchIndex.open({
        directory: folder,
        indexThreads: 2,
        mergeThreads: 1,
        autoMerge: false,
      });
      try {
        assert.equal(
          threadNames().filter((name) => name === THREAD_NAMES.indexing).length,
          0,
          'indexing threads start on demand',
        );
        for (let round = 0; round < 3; round++) {
          for (let i = 0; i < 2000; i++)
            index.put({ key: `http://x/${round}/${i}`, fields: { body: `alpha ${round} ${i}` }, stored: {} });
          await index.commit();
        }
        assert.equal(threadNames().filter((name) => name === THREAD_NAMES.indexing).length, 2);
        // A merge thread lives only while it merges: look for it until the merge ends.
        let sawMergeThread = false;
        const merge = index.forceMerge();
        let done = false;
        void merge.finally(() => (done = true));
        while (!done) {
          if (threadNames().includes(THREAD_NAMES.merge)) sawMergeThread = true;
          await new Promise((resolve) => setImmediate(resolve));
        }
        await merge;
        assert.ok(sawMergeThread, 'a thread named ps-merge ran the merge');
      } finally {
        await index.close();
      }
    });
  },
);
