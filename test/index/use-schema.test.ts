import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SearchError } from '../../src/errors.js';
import { SearchIndex } from '../../src/index/search-index.js';

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** How many live documents hold `term` in the body field, over every generation. */
function docFreq(index: SearchIndex, term: string): number {
  const searcher = index.acquireSearcher();
  try {
    return searcher.generations.reduce((sum, generation) => sum + generation.docFreq('body', term), 0);
  } finally {
    searcher.release();
  }
}

for (const indexThreads of [0, 2]) {
  describe(`SearchIndex.useSchema (${indexThreads === 0 ? 'staged on the calling thread' : 'staged in worker threads'})`, () => {
    it('refuses while changes are staged; after a commit, what is staged next is analysed the new way, older generations keep their terms', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'pushsearch-schema-'));
      folders.push(folder);
      const index = await SearchIndex.open({
        directory: folder,
        indexThreads,
        mergeThreads: 0,
        autoMerge: false,
      });
      try {
        index.put({ key: 'k:a', fields: { body: 'running runners' } });
        assert.throws(
          () => index.useSchema({ defaultAnalyzer: { stem: false } }),
          (error: unknown) =>
            error instanceof SearchError &&
            error.code === 'WRONG_STATE' &&
            /1 staged changes/.test(error.message),
        );
        await index.commit();
        index.useSchema({ defaultAnalyzer: { stem: false } });
        assert.equal(index.schema.options.defaultAnalyzer?.stem, false);
        index.put({ key: 'k:b', fields: { body: 'running runners' } });
        await index.commit();
        assert.equal(docFreq(index, 'run'), 1, 'k:a, indexed with stemming');
        assert.equal(docFreq(index, 'running'), 1, 'k:b, indexed without');
      } finally {
        await index.close();
      }
    });
  });
}
