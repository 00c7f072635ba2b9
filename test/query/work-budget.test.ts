import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchIndex } from '../../src/index/search-index.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';
import { executeQuery } from '../../src/query/execute-query.js';
import { matchSet } from '../../src/query/match-set.js';
import { BudgetExhausted, WorkBudget } from '../../src/query/work-budget.js';

/** A budget whose deadline passes after `checks` clock readings: a deterministic clock for tests. */
class CountedBudget extends WorkBudget {
  constructor(
    private checks: number,
    maxPrefixTerms?: number,
  ) {
    super(Infinity, maxPrefixTerms);
  }

  override expired(): boolean {
    if (this.timedOut) return true;
    if (this.checks-- <= 0) this.timedOut = true;
    return this.timedOut;
  }
}

/** Three generations of 10 documents each; every document holds `common`, generation g also `gen{g}`. */
async function threeGenerations() {
  const index = await SearchIndex.open({
    directory: new MemoryDirectory(),
    mergeThreads: 0,
    autoMerge: false,
  });
  for (let g = 0; g < 3; g++) {
    for (let d = 0; d < 10; d++)
      index.put({ key: `k${g}-${d}`, fields: { body: `common gen${g} word${g}${d}` }, stored: {} });
    await index.commit();
  }
  const searcher = index.acquireSearcher();
  return {
    generations: searcher.generations,
    close: async () => {
      searcher.release();
      await index.close();
    },
  };
}

describe('work budget', () => {
  it('answers the hits found before the deadline, flagged timedOut, with a lower-bound count', async () => {
    const { generations, close } = await threeGenerations();
    const query = { kind: 'term', field: 'body', term: 'common' } as const;
    const full = executeQuery(generations, query, { k: 100 });
    assert.equal(full.totalHits, 30);
    assert.equal(full.timedOut, false);
    // Checks: one before the weight, one per generation: the third generation check fails.
    const budget = new CountedBudget(3);
    const partial = executeQuery(generations, query, { k: 100, budget });
    assert.equal(partial.timedOut, true);
    assert.equal(budget.timedOut, true);
    assert.equal(partial.totalHitsExact, false);
    assert.ok(partial.hits.length > 0 && partial.hits.length < 30, `${partial.hits.length} hits`);
    assert.ok(
      partial.hits.every((hit) => hit.generationIndex < 2),
      'only generations searched before the deadline',
    );
    const late = executeQuery(generations, query, { k: 100, budget: new CountedBudget(0) });
    assert.deepEqual([late.timedOut, late.hits.length], [true, 0], 'a query past its deadline does nothing');
    await close();
  });

  it('stops a match set (facets) with BudgetExhausted rather than a partial set', async () => {
    const { generations, close } = await threeGenerations();
    assert.throws(
      () =>
        matchSet(
          generations,
          { kind: 'term', field: 'body', term: 'common' },
          { budget: new CountedBudget(1) },
        ),
      BudgetExhausted,
    );
    await close();
  });

  it('caps prefix expansions at maxPrefixTerms (the most frequent ones) and flags it', async () => {
    const { generations, close } = await threeGenerations();
    // word* expands to 30 terms (one document each); gen* to 3 (ten documents each).
    const capped = new WorkBudget(Infinity, 5);
    const result = executeQuery(
      generations,
      { kind: 'prefix', field: 'body', prefix: 'word' },
      { k: 100, budget: capped },
    );
    assert.equal(capped.prefixTermsCapped, true);
    assert.equal(result.totalHits, 5, 'five expansions, one document each');
    const roomy = new WorkBudget(Infinity, 5);
    const gen = executeQuery(
      generations,
      { kind: 'prefix', field: 'body', prefix: 'gen' },
      { k: 100, budget: roomy },
    );
    assert.equal(roomy.prefixTermsCapped, false);
    assert.equal(gen.totalHits, 30);
    await close();
  });

  it('reads the wall clock: a budget of 0 ms is expired, a long one is not', () => {
    assert.equal(WorkBudget.forMs(0).expired(), true);
    const budget = WorkBudget.forMs(60_000);
    assert.equal(budget.expired(), false);
    assert.ok(budget.remainingMs() > 59_000);
    assert.doesNotThrow(() => budget.check());
  });
});
