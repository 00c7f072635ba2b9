import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  matchXmlPath,
  parseXmlConfig,
  parseXmlPath,
  serializeXmlConfig,
} from '../../../src/collection/config/xml-config.js';
import { throwsAtLine } from './helpers.js';

const HEADER = 'PADRE XML Mapping Version: 2';

describe('parseXmlConfig', () => {
  const text = [
    HEADER,
    'docurl,/item/link',
    '# a comment',
    't,1,,/item/title',
    'a,0,,//author',
    'a,0,,//creator/@name',
    'id,0,,/item/@id',
    'price,3,,//offer//price',
    '-,,,//DUMMY',
  ].join('\n');

  it('reads the header, docurl and class lines', () => {
    const config = parseXmlConfig(text);
    assert.deepEqual(
      config.docUrl.map((p) => p.source),
      ['/item/link'],
    );
    assert.deepEqual([...config.classes.keys()], ['t', 'a', 'id', 'price']);
    assert.deepEqual(
      config.classes.get('a')?.paths.map((p) => p.source),
      ['//author', '//creator/@name'],
    );
    assert.equal(config.classes.get('price')?.type, 3);
  });

  it('round-trips through serializeXmlConfig', () => {
    const config = parseXmlConfig(text);
    assert.deepEqual(parseXmlConfig(serializeXmlConfig(config)), config);
  });

  it('accepts an empty file and comments before the header', () => {
    assert.equal(parseXmlConfig('').classes.size, 0);
    assert.equal(parseXmlConfig('# nothing yet\n').classes.size, 0);
    assert.equal(parseXmlConfig(`# mapping\n\n  ${HEADER}  \nt,1,,/a`).classes.size, 1);
  });

  it('requires the header first, version 2', () => {
    throwsAtLine(
      () => parseXmlConfig('t,1,,/a\n'),
      'xml.cfg',
      1,
      /first line must be "PADRE XML Mapping Version: 2"/,
    );
    throwsAtLine(
      () => parseXmlConfig('\n\nPADRE XML Mapping Version: 1\n'),
      'xml.cfg',
      3,
      /version 1 is not supported/,
    );
  });

  it('reports bad lines with their line number', () => {
    const bad = (line: string): string => `${HEADER}\nt,1,,/ok\n${line}\n`;
    throwsAtLine(() => parseXmlConfig(bad('dvdAspect//Aspect')), 'xml.cfg', 3, /expected class,type,,xpath/);
    throwsAtLine(() => parseXmlConfig(bad('t,1,//x')), 'xml.cfg', 3, /expected class,type,,xpath/);
    throwsAtLine(
      () => parseXmlConfig(bad('docfile,/a/b')),
      'xml.cfg',
      3,
      /special line \(docurl,xpath; docfiletype,xpath; document,xpath\)/,
    );
    throwsAtLine(() => parseXmlConfig(bad('a,1,x,/a')), 'xml.cfg', 3, /third field must be empty/);
    throwsAtLine(() => parseXmlConfig(bad('k,1,,/a')), 'xml.cfg', 3, /reserved/);
    throwsAtLine(() => parseXmlConfig(bad('t,0,,/other')), 'xml.cfg', 3, /type 1 on line 2/);
    throwsAtLine(() => parseXmlConfig(bad('a,9,,/a')), 'xml.cfg', 3, /not 0, 1, 2 or 3/);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,/a/b[1]')), 'xml.cfg', 3, /predicates are not supported/);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,//b[@id="x"]')), 'xml.cfg', 3, /predicate/);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,relative/path')), 'xml.cfg', 3, /must start with \//);
    throwsAtLine(() => parseXmlConfig(bad('docurl,a/b')), 'xml.cfg', 3, /must start with \//);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,/a/*')), 'xml.cfg', 3, /wildcard/);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,/a|/b')), 'xml.cfg', 3, /union/);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,/a/text()')), 'xml.cfg', 3, /function/);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,/a/../b')), 'xml.cfg', 3, /"\.\." step/);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,/a/')), 'xml.cfg', 3, /empty step/);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,/a/@id/b')), 'xml.cfg', 3, /attribute before its last step/);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,//@id')), 'xml.cfg', 3, /without an element/);
    throwsAtLine(() => parseXmlConfig(bad('a,1,,/1abc')), 'xml.cfg', 3, /invalid element name/);
  });
});

describe('parseXmlPath', () => {
  it('parses absolute, anywhere and attribute paths', () => {
    assert.deepEqual(parseXmlPath('/a/b'), {
      source: '/a/b',
      steps: [
        { axis: 'child', name: 'a' },
        { axis: 'child', name: 'b' },
      ],
      attribute: undefined,
    });
    assert.deepEqual(parseXmlPath('//b').steps, [{ axis: 'descendant', name: 'b' }]);
    assert.equal(parseXmlPath('/a/@id').attribute, 'id');
    assert.deepEqual(parseXmlPath('//b/@id').steps, [{ axis: 'descendant', name: 'b' }]);
    assert.equal(parseXmlPath('//attributes@isbn').attribute, 'isbn');
    assert.deepEqual(
      parseXmlPath('/dc:record/dc:title').steps.map((s) => s.name),
      ['dc:record', 'dc:title'],
    );
  });
});

describe('matchXmlPath', () => {
  const m = (path: string, elements: string[], attribute?: string): boolean =>
    matchXmlPath(parseXmlPath(path), elements, attribute);

  it('matches absolute paths from the root only', () => {
    assert.equal(m('/a/b', ['a', 'b']), true);
    assert.equal(m('/a/b', ['x', 'a', 'b']), false);
    assert.equal(m('/a/b', ['a', 'b', 'c']), false);
    assert.equal(m('/a/b', ['a', 'x', 'b']), false);
  });

  it('matches // anywhere, also between steps', () => {
    assert.equal(m('//b', ['b']), true);
    assert.equal(m('//b', ['a', 'x', 'b']), true);
    assert.equal(m('//b', ['b', 'c']), false);
    assert.equal(m('/a//c', ['a', 'b', 'b', 'c']), true);
    assert.equal(m('/a//c', ['x', 'a', 'c']), false);
    assert.equal(m('//a/b', ['r', 'a', 'b']), true);
    assert.equal(m('//a/b', ['a', 'r', 'b']), false);
  });

  it('is case-sensitive and tells attributes from elements', () => {
    assert.equal(m('/a/B', ['a', 'b']), false);
    assert.equal(m('/a/@id', ['a'], 'id'), true);
    assert.equal(m('/a/@id', ['a']), false);
    assert.equal(m('/a', ['a'], 'id'), false);
    assert.equal(m('//b/@id', ['r', 'b'], 'ID'), false);
  });
});
