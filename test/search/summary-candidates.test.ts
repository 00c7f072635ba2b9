import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stemmer } from 'stemmer';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import { candidatePatterns, spellingPrefix } from '../../src/search/summary-candidates.js';
import { seededRandom } from '../support/seeded-random.js';

/** Word bases: short and long, vowel and consonant endings, a leading `y`. */
const BASES = [
  'ab',
  'ag',
  'rel',
  'relat',
  'condit',
  'happ',
  'poss',
  'vis',
  'gener',
  'hop',
  'agr',
  'prob',
  'yell',
  'y',
  'ion',
  'nat',
  'rat',
  'sens',
  'form',
  'control',
  'protocol',
  'congest',
  'retransmiss',
  'fil',
  'bl',
  'tr',
  'sh',
  'fl',
  'ar',
  'oper',
  'valu',
  'electr',
  'hope',
  'digit',
  'crit',
  'ed',
  'cr',
];
/** Porter's suffixes (steps 1 to 5) and words' endings that produce them. */
const SUFFIXES = [
  '',
  's',
  'es',
  'ies',
  'sses',
  'ss',
  'ed',
  'ing',
  'eed',
  'y',
  'ly',
  'ily',
  'ational',
  'tional',
  'enci',
  'anci',
  'izer',
  'bli',
  'alli',
  'entli',
  'eli',
  'ousli',
  'ization',
  'ation',
  'ator',
  'alism',
  'iveness',
  'fulness',
  'ousness',
  'aliti',
  'iviti',
  'biliti',
  'logi',
  'icate',
  'ative',
  'alize',
  'iciti',
  'ical',
  'ful',
  'ness',
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
  'ion',
  'e',
  'll',
  'le',
  'bility',
  'ability',
  'ibility',
  'ably',
  'ibly',
  'ency',
  'ancy',
  'ality',
  'ivity',
  'logy',
  'bly',
  'ating',
  'izing',
  'bling',
  'ated',
  'ized',
  'bled',
  'ily',
  'iness',
  'ational',
  'ousli',
  'ently',
];

describe('spellingPrefix', () => {
  it('is a prefix of every lower-case word whose stem is the term (the pinned stemmer)', () => {
    const words = new Set<string>();
    for (const base of BASES)
      for (const first of SUFFIXES) for (const second of SUFFIXES) words.add(base + first + second);
    // Random words over the letters Porter's rules look at.
    const next = seededRandom(19);
    const letters = 'aeiouybcdglmnrstvz';
    for (let i = 0; i < 200_000; i++) {
      let word = '';
      const length = 1 + Math.floor(next() * 12);
      for (let j = 0; j < length; j++) word += letters[Math.floor(next() * letters.length)]!;
      words.add(word);
    }
    let stemmed = 0;
    for (const word of words) {
      const stem = stemmer(word);
      if (stem !== word) stemmed++;
      const prefix = spellingPrefix(stem, true)!;
      assert.ok(word.startsWith(prefix), `${word} → ${stem}, prefix ${prefix}`);
    }
    assert.ok(stemmed > words.size / 2, 'most words are changed by stemming');
  });

  it('is the term without stemming, and has no ASCII spelling for a term outside ASCII', () => {
    assert.equal(spellingPrefix('happi', false), 'happi');
    assert.equal(spellingPrefix('happi', true), 'happ');
    assert.equal(spellingPrefix('possibl', true), 'possib');
    assert.equal(spellingPrefix('probable', true), 'probab');
    assert.equal(spellingPrefix('hope', true), 'hop');
    assert.equal(spellingPrefix('protocol', true), 'protocol');
    // Terms with digits or `.` are never stemmed.
    assert.equal(spellingPrefix('ipv6', true), 'ipv6');
    assert.equal(spellingPrefix('1.1e', true), '1.1e');
    assert.equal(spellingPrefix('straße', true), undefined);
    assert.equal(spellingPrefix('日本', true), undefined);
  });
});

describe('candidatePatterns', () => {
  const matches = (pattern: RegExp, text: string): number[] =>
    [...text.matchAll(new RegExp(pattern.source, pattern.flags))].map((m) => m.index);

  it('finds every spelling of a term in any case, apostrophes, and characters outside ASCII', () => {
    const analyzer = createAnalyzer({ stem: true });
    const patterns = candidatePatterns(analyzer.terms('protocols dont'), true)!;
    const text = "PROTOCOL, don't; Protocolled é";
    assert.deepEqual(matches(patterns.ascii, text), [0, 13, 17]);
    assert.deepEqual(matches(patterns.any, text), [0, 13, 17, 29]);
    // `.` in a term is itself, not any character.
    const dotted = candidatePatterns(['1.1'], false)!;
    assert.deepEqual(matches(dotted.ascii, '1.1 1x1'), [0]);
  });

  it('is null when a spelling prefix is shorter than asked (analyse everything then)', () => {
    // `be` may be the stem of `bed`... only its `b` is sure.
    assert.equal(candidatePatterns(['be'], true, 2), null);
    assert.notEqual(candidatePatterns(['be'], false, 2), null);
    assert.notEqual(candidatePatterns(['be'], true, 1), null);
  });
});
