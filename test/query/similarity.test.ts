import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Saturation } from '../../src/query/similarity.js';

describe('Saturation.sumLimit', () => {
  it('gives a sum whose score is at most the asked score, and next to the largest such sum', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 20, noNaN: true }),
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        fc.double({ min: 0.1, max: 3, noNaN: true }),
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        (idf, boost, k1, fraction) => {
          const sat = new Saturation(idf, boost, k1);
          // A score a real sum gives (the heap's worst is a document's score), and one between.
          for (const minScore of [sat.score(fraction * 50), fraction * sat.scale]) {
            const limit = sat.sumLimit(minScore);
            // minScore > 0 here, so some positive sums score no more than it.
            assert.ok(limit > 0, `limit ${limit} for ${minScore}`);
            // Runners count every sum <= limit as not entering: its score must not beat minScore.
            assert.ok(sat.score(limit) <= minScore, `score(${limit}) > ${minScore}`);
            // Tight: a sum a relative 2^-30 above it does score more (else most sums that
            // cannot enter would still be saturated).
            if (sat.score(limit * (1 + 2 ** -30)) <= minScore) {
              assert.fail(`limit ${limit} for ${minScore} is not the largest`);
            }
            // Remembered: asked again, the same limit.
            assert.equal(sat.sumLimit(minScore), limit);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('has no sum below a negative score, and every sum at or above the scale', () => {
    const sat = new Saturation(2, 1, 1.2);
    assert.equal(sat.sumLimit(-1), -1);
    assert.equal(sat.sumLimit(sat.scale), Infinity);
    assert.equal(sat.sumLimit(0), 0);
    // k1 = 0 ("no frequency effect"): any positive sum scores the scale.
    const flat = new Saturation(2, 1, 0);
    assert.equal(flat.score(1e-9), flat.scale);
    assert.ok(flat.score(flat.sumLimit(flat.scale / 2)) <= flat.scale / 2);
  });
});
