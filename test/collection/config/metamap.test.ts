import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classesForSource, parseMetamap, serializeMetamap } from '../../../src/collection/config/metamap.js';
import { throwsAtLine } from './helpers.js';

describe('parseMetamap', () => {
  const text = [
    '# class,type,source',
    'author,1,Author',
    'author,1,dc.creator',
    'author,1,<H2>',
    'author,1,Author',
    '',
    't,1,<h1>',
    'd,0,published',
    'f,0,format',
    'price,3,Price',
    'geo,2,location',
    'FUxNY2,0,x',
    'csv,0,a,b,c',
  ].join('\n');

  it('groups several sources per class, keeps a repeated line once, and tells HTML elements from metadata names', () => {
    const metamap = parseMetamap(text);
    assert.deepEqual([...metamap.classes.keys()], ['author', 't', 'd', 'f', 'price', 'geo', 'FUxNY2', 'csv']);
    assert.deepEqual(metamap.classes.get('author'), {
      className: 'author',
      type: 1,
      sources: [
        { kind: 'metadata', name: 'Author' },
        { kind: 'metadata', name: 'dc.creator' },
        { kind: 'html-element', name: 'h2' },
      ],
    });
    assert.equal(metamap.classes.get('price')?.type, 3);
    assert.equal(metamap.classes.get('geo')?.type, 2);
    assert.deepEqual(metamap.classes.get('csv')?.sources, [{ kind: 'metadata', name: 'a,b,c' }]);
  });

  it('round-trips through serializeMetamap', () => {
    const metamap = parseMetamap(text);
    assert.deepEqual(parseMetamap(serializeMetamap(metamap)), metamap);
  });

  it('finds the classes of a source, ignoring case', () => {
    const metamap = parseMetamap('a,0,Author\nb,1,author\nc,0,<H1>\n');
    assert.deepEqual(
      classesForSource(metamap, 'metadata', 'AUTHOR').map((m) => m.className),
      ['a', 'b'],
    );
    assert.deepEqual(
      classesForSource(metamap, 'html-element', 'h1').map((m) => m.className),
      ['c'],
    );
    assert.deepEqual(classesForSource(metamap, 'metadata', 'nobody'), []);
  });

  it('refuses reserved classes, FUN classes and bad class names with their line', () => {
    for (const reserved of ['k', 'K', 'h', 'u', 'v']) {
      throwsAtLine(() => parseMetamap(`a,0,x\n${reserved},0,y\n`), 'metamap.cfg', 2, /reserved/);
    }
    throwsAtLine(() => parseMetamap('# c\nFUNstuff,0,x'), 'metamap.cfg', 2, /starting with FUN/);
    throwsAtLine(() => parseMetamap('fun,0,x'), 'metamap.cfg', 1, /starting with FUN/);
    throwsAtLine(() => parseMetamap('a-b,0,x'), 'metamap.cfg', 1, /ASCII letters and digits/);
    throwsAtLine(() => parseMetamap('é,0,x'), 'metamap.cfg', 1, /ASCII letters and digits/);
    throwsAtLine(() => parseMetamap('a'.repeat(65) + ',0,x'), 'metamap.cfg', 1, /65 characters/);
    assert.equal(parseMetamap('a'.repeat(64) + ',0,x').classes.size, 1);
    throwsAtLine(() => parseMetamap(',0,x'), 'metamap.cfg', 1, /class name is empty/);
  });

  it('refuses bad types, including type 4 and text-only special classes with other types', () => {
    throwsAtLine(() => parseMetamap('a,0,x\nb,5,y'), 'metamap.cfg', 2, /not 0, 1, 2 or 3/);
    throwsAtLine(() => parseMetamap('a,,x'), 'metamap.cfg', 1, /not 0, 1, 2 or 3/);
    throwsAtLine(() => parseMetamap('a,4,x'), 'metamap.cfg', 1, /type 4.*not supported/);
    throwsAtLine(() => parseMetamap('d,3,x'), 'metamap.cfg', 1, /use type 0 or 1/);
    throwsAtLine(() => parseMetamap('a,0,x\n\n\na,1,y'), 'metamap.cfg', 4, /type 0 on line 1/);
  });

  it('refuses lines without three fields and bad sources', () => {
    throwsAtLine(() => parseMetamap('a,0,x\na,0\n'), 'metamap.cfg', 2, /class,type,source/);
    throwsAtLine(() => parseMetamap('a 0 x'), 'metamap.cfg', 1, /class,type,source/);
    throwsAtLine(() => parseMetamap('a,0,'), 'metamap.cfg', 1, /source.*empty/);
    throwsAtLine(() => parseMetamap('a,0,<>'), 'metamap.cfg', 1, /not <element>/);
    // <dc.title> was never an element: the error says how a meta tag is mapped.
    throwsAtLine(
      () => parseMetamap('t,0,title\nt,0,<dc.title>'),
      'metamap.cfg',
      2,
      /not <element>.*<meta name="dc\.title"> tag is mapped by its plain name: dc\.title/,
    );
    throwsAtLine(() => parseMetamap('a,0,<dc.title'), 'metamap.cfg', 1, /not <element>/);
    throwsAtLine(() => parseMetamap('a,0,<a b>', 'conf/c/metamap.cfg'), 'conf/c/metamap.cfg', 1);
  });
});
