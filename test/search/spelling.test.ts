import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import { suggestSpelling, type SpellingSource } from '../../src/search/spelling.js';

/** A vocabulary of term → document frequency, searched as the search service would. */
function sourceOf(vocabulary: Record<string, number>): SpellingSource & { scanned: number[] } {
  const terms = Object.keys(vocabulary).sort();
  const scanned: number[] = [];
  return {
    scanned,
    analyzer: createAnalyzer({}),
    docFreq: (term) => vocabulary[term] ?? 0,
    termsWithPrefix: (prefix, limit) => {
      scanned.push(limit);
      return terms.filter((t) => t.startsWith(prefix)).slice(0, limit);
    },
    surfaceOf: (term) => (term in vocabulary ? term : undefined),
    // A query finds as many documents as its rarest word.
    count: (text) => Math.min(...text.split(' ').map((w) => vocabulary[w] ?? 0)),
  };
}

describe('suggestSpelling', () => {
  const vocabulary = {
    protocol: 900,
    protocols: 300,
    transport: 500,
    network: 700,
    netwrok: 1,
    routing: 80,
    router: 60,
    the: 5000,
  };

  it('corrects one transposition, deletion, insertion or replacement to the most frequent neighbour', () => {
    assert.equal(suggestSpelling(['netwrok'], sourceOf(vocabulary)), 'network');
    assert.equal(suggestSpelling(['protocl'], sourceOf(vocabulary)), 'protocol');
    assert.equal(suggestSpelling(['protoccol'], sourceOf(vocabulary)), 'protocol');
    assert.equal(suggestSpelling(['trabsport'], sourceOf(vocabulary)), 'transport');
  });

  it('corrects two edits in longer words, and leaves frequent and unknown-neighbourhood words alone', () => {
    assert.equal(suggestSpelling(['trnaspotr'], sourceOf(vocabulary)), 'transport');
    assert.equal(suggestSpelling(['protocol'], sourceOf(vocabulary)), null);
    assert.equal(suggestSpelling(['zebra'], sourceOf(vocabulary)), null);
  });

  it('keeps correct words of a query and proposes only what finds more documents', () => {
    assert.equal(
      suggestSpelling(['the', 'netwrok', 'protocol'], sourceOf(vocabulary)),
      'the network protocol',
    );
    // "routeing" → "routing" (distance 1) exists but finds no more documents than the rare typo's neighbour would.
    assert.equal(suggestSpelling(['routeing'], sourceOf({ ...vocabulary, routeing: 1 })), 'routing');
  });

  it('reads a bounded slice of the dictionary, and none when a single edit is enough', () => {
    const source = sourceOf(vocabulary);
    suggestSpelling(['netwrok'], source);
    assert.deepEqual(source.scanned, []);
    suggestSpelling(['trnaspotr'], source);
    assert.ok(
      source.scanned.length === 1 && source.scanned[0]! <= 5000,
      `scanned ${source.scanned.join(',')}`,
    );
  });
});

describe('suggestSpelling surfaces', () => {
  it('asks for a word of the collection, preferring the edits of the typed word that analyse to the correction', () => {
    // With stemming the dictionary holds `kerbero`; both `kerberos` and `kerbero` analyse to it.
    const asked: { term: string; preferred: readonly string[] }[] = [];
    const source: SpellingSource = {
      analyzer: createAnalyzer({ stem: true }),
      docFreq: (term) => (term === 'kerbero' ? 50 : 0),
      termsWithPrefix: () => [],
      surfaceOf: (term, preferred) => {
        asked.push({ term, preferred });
        return 'kerberos';
      },
      count: (text) => (text === 'kerberos' ? 50 : 0),
    };
    assert.equal(suggestSpelling(['kerberso'], source), 'kerberos');
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.term, 'kerbero');
    assert.ok(asked[0]!.preferred.includes('kerberos'), asked[0]!.preferred.join(','));
    assert.ok(asked[0]!.preferred.includes('kerbero'), asked[0]!.preferred.join(','));
  });
});

describe('suggestSpelling budget', () => {
  const vocabulary = { network: 700, protocol: 900, transport: 500 };
  const counting = () => {
    const source = sourceOf(vocabulary);
    let lookups = 0;
    source.docFreq = (term) => {
      lookups++;
      return vocabulary[term as keyof typeof vocabulary] ?? 0;
    };
    return { source, lookups: () => lookups };
  };

  it('makes at most maxLookups dictionary lookups, however many unknown words the query has', () => {
    const words = Array.from({ length: 40 }, (_, i) => `zqx${String.fromCharCode(97 + (i % 26))}wvk`);
    const { source, lookups } = counting();
    assert.equal(suggestSpelling(words, source, { maxLookups: 1000 }), null);
    assert.ok(lookups() <= 1000, `${lookups()} lookups`);
  });

  it('gives up on a correction the budget does not reach', () => {
    // "network" is a transposition near the end of "netwrok": a few hundred edits are tried first.
    assert.equal(suggestSpelling(['netwrok'], counting().source, { maxLookups: 50 }), null);
    assert.equal(suggestSpelling(['netwrok'], counting().source), 'network');
  });
});
