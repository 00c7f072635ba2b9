import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gscopesForKey, parseGscopes, serializeGscopes } from '../../../src/collection/config/gscopes.js';
import {
  parseQueryGscopes,
  queriesById,
  serializeQueryGscopes,
} from '../../../src/collection/config/query-gscopes.js';
import { throwsAtLine } from './helpers.js';

describe('parseGscopes', () => {
  const text = [
    '# news and docs',
    'news ^https?://www\\.example\\.com/news/',
    'news   ^https?://news\\.example\\.com/',
    'docs (?i)/DOCS/',
    'news ^https?://www\\.example\\.com/news/',
    'pdf \\.pdf$',
  ].join('\n');

  it('ORs lines with the same ID, searching the key unanchored', () => {
    const gscopes = parseGscopes(text);
    assert.equal(gscopes.rules.length, 4);
    assert.deepEqual(gscopesForKey(gscopes, 'https://news.example.com/a.pdf'), ['news', 'pdf']);
    assert.deepEqual(gscopesForKey(gscopes, 'http://www.example.com/news/1'), ['news']);
    assert.deepEqual(gscopesForKey(gscopes, 'http://x.org/Docs/intro'), ['docs']);
    assert.deepEqual(gscopesForKey(gscopes, 'http://x.org/other'), []);
  });

  it('round-trips through serializeGscopes', () => {
    const gscopes = parseGscopes(text);
    assert.deepEqual(
      parseGscopes(serializeGscopes(gscopes)).rules.map((r) => [r.id, r.pattern]),
      gscopes.rules.map((r) => [r.id, r.pattern]),
    );
  });

  it('reports bad lines with their line number', () => {
    throwsAtLine(() => parseGscopes('a x\n\nnews\n'), 'gscopes.cfg', 3, /no regex/);
    throwsAtLine(() => parseGscopes('a x\nbad-id x\n'), 'gscopes.cfg', 2, /ASCII letters and digits/);
    throwsAtLine(() => parseGscopes('a x\n' + 'i'.repeat(65) + ' x\n'), 'gscopes.cfg', 2, /65 characters/);
    throwsAtLine(
      () => parseGscopes('a x\n# c\nb (unclosed\n'),
      'gscopes.cfg',
      3,
      /invalid regular expression/,
    );
    throwsAtLine(() => parseGscopes('a (?=b)\n'), 'gscopes.cfg', 1, /lookaround/);
    throwsAtLine(() => parseGscopes('a ' + 'x'.repeat(1001)), 'gscopes.cfg', 1, /at most 1000/);
    assert.equal(parseGscopes('i'.repeat(64) + ' x').rules.length, 1);
  });
});

describe('parseQueryGscopes', () => {
  it('reads ID query lines, ORing the queries of one ID', () => {
    const config = parseQueryGscopes(
      '# q\nsport football OR rugby\nsport "world cup"\nnews  -sport  breaking\n',
    );
    assert.deepEqual(Object.fromEntries(queriesById(config)), {
      sport: ['football OR rugby', '"world cup"'],
      news: ['-sport  breaking'],
    });
    assert.deepEqual(parseQueryGscopes(serializeQueryGscopes(config)), config);
  });

  it('reports bad lines with their line number', () => {
    throwsAtLine(() => parseQueryGscopes('a b\nonlyid\n'), 'query-gscopes.cfg', 2, /no query/);
    throwsAtLine(() => parseQueryGscopes('a.b c\n'), 'query-gscopes.cfg', 1, /ASCII letters and digits/);
  });
});
