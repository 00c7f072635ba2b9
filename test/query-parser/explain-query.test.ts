import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import { explainQuery } from '../../src/query/parser/explain-query.js';
import { parseQuery } from '../../src/query/parser/parse-query.js';

const analyzer = createAnalyzer({ stem: false, stopWords: true });
const explainText = (text: string, allRequired = false) =>
  explainQuery(parseQuery(text, { analyzerFor: () => analyzer, allRequired }).tree);

describe('explainQuery', () => {
  it('reads a parsed query back in the query language, with analysed terms', () => {
    assert.equal(explainText('Julius CAESAR'), 'julius caesar');
    assert.equal(
      explainText('+t:Rome -Antony "hail caesar" [mighty brave] protoc*'),
      '+t:rome "hail caesar" [mighty brave] protoc* -antony',
    );
    assert.equal(explainText('a:[x y] [t:x y]'), 'a:[x y] [t:x y]');
    assert.equal(explainText('|u:gov rome'), 'rome |u:gov');
  });

  it('shows the gaps stop words leave in a phrase', () => {
    assert.equal(explainText('"state of the art"'), '"state ? ? art"');
    assert.equal(explainText('state-of-the-art'), '"state ? ? art"');
  });

  it('shows fully matching only as required clauses', () => {
    assert.equal(explainText('rome caesar', true), '+rome +caesar');
  });

  it('shows "everything but" as * with exclusions', () => {
    assert.equal(explainText('-brutus -t:antony'), '* -brutus -t:antony');
  });

  it('shows a split truncated word as its required parts', () => {
    assert.equal(explainText('e-ma* rome'), '(+e +ma*) rome');
  });

  it('gives an empty string for an empty query', () => {
    assert.equal(explainQuery(null), '');
    assert.equal(explainText('the [ ] "'), '');
  });

  it('explains hand-built trees too', () => {
    assert.equal(
      explainQuery({
        kind: 'bool',
        should: [
          { kind: 'term', term: 'a' },
          { kind: 'term', term: 'b' },
          { kind: 'term', term: 'c' },
        ],
        minShouldMatch: 2,
      }),
      '(a b c)~2',
    );
    assert.equal(
      explainQuery({
        kind: 'bool',
        must: [{ kind: 'boost', boost: 2, query: { kind: 'term', field: 't', term: 'x' } }],
        filter: [{ kind: 'range', field: 'price', min: 10 }],
        should: [
          { kind: 'bool', must: [{ kind: 'term', term: 'y' }], mustNot: [{ kind: 'term', term: 'z' }] },
        ],
      }),
      '+(t:x)^2 (+y -z) |price:10..',
    );
  });
});
