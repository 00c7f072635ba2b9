import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseCfg, serializeCfg, updateCfgText } from '../../../src/collection/config/cfg-file.js';
import { ConfigFileError } from '../../../src/collection/config/config-file-error.js';
import { throwsAtLine } from './helpers.js';

describe('parseCfg', () => {
  it('reads key=value lines, skipping comments and blank lines, trimming whitespace', () => {
    const text = [
      '# Collection settings',
      '',
      '  push.max-generations = 32  ',
      '\tfilter.classes=A:B',
      '   # indented comment',
      'indexer_options=',
    ].join('\n');
    assert.deepEqual(
      [...parseCfg(text, 'collection.cfg')],
      [
        ['push.max-generations', '32'],
        ['filter.classes', 'A:B'],
        ['indexer_options', ''],
      ],
    );
  });

  it('splits at the first = only and keeps # inside values', () => {
    const entries = parseCfg('query_processor_options=-a=1 -b=x=y\nurl=http://a.com/p#frag\n', 'c.cfg');
    assert.equal(entries.get('query_processor_options'), '-a=1 -b=x=y');
    assert.equal(entries.get('url'), 'http://a.com/p#frag');
  });

  it('lets later keys win', () => {
    const entries = parseCfg('a=1\nb=2\na=3\n', 'c.cfg');
    assert.equal(entries.get('a'), '3');
    assert.equal(entries.size, 2);
  });

  it('handles CRLF, CR and a byte-order mark', () => {
    assert.deepEqual(
      [...parseCfg('\ufeffa=1\r\nb=2\rc=3', 'c.cfg')],
      [
        ['a', '1'],
        ['b', '2'],
        ['c', '3'],
      ],
    );
  });

  it('reports a malformed line with its file name and 1-based line number', () => {
    throwsAtLine(
      () => parseCfg('a=1\n\n# comment\nthis line has no equals\n', 'conf/news/collection.cfg'),
      'conf/news/collection.cfg',
      4,
      /no "="/,
    );
    throwsAtLine(() => parseCfg('a=1\n=value\n', 'global.cfg'), 'global.cfg', 2, /key before "=" is empty/);
    throwsAtLine(
      () => parseCfg('a=1\r\nb=2\r\nmy key=3', 'global.cfg'),
      'global.cfg',
      3,
      /contains whitespace/,
    );
    // line numbers count blank lines and comments, also after a BOM and with CRLF
    throwsAtLine(() => parseCfg('\ufeff# c\r\n\r\n\r\nbad\r\n', 'x.cfg'), 'x.cfg', 4);
  });
});

describe('serializeCfg', () => {
  it('writes key=value lines after an optional header', () => {
    const text = serializeCfg(
      new Map([
        ['a', '1'],
        ['b', 'x=y'],
      ]),
      { header: 'made by the admin UI' },
    );
    assert.equal(text, '# made by the admin UI\na=1\nb=x=y\n');
    assert.equal(serializeCfg({}), '');
  });

  it('refuses what would not read back the same', () => {
    assert.throws(() => serializeCfg({ 'a b': '1' }), ConfigFileError);
    assert.throws(() => serializeCfg({ a: 'line\nbreak' }), ConfigFileError);
    assert.throws(() => serializeCfg({ a: ' padded' }), ConfigFileError);
    assert.throws(() => serializeCfg({ '#a': '1' }), ConfigFileError);
    assert.throws(() => serializeCfg({ '': '1' }), ConfigFileError);
  });

  it('round-trips through parseCfg', () => {
    const key = fc.string({ minLength: 1, maxLength: 20 }).filter((k) => /^[^\s=#][^\s=]*$/.test(k));
    const value = fc.string({ maxLength: 40 }).map((v) => v.replace(/[\r\n]/g, '').trim());
    fc.assert(
      fc.property(fc.dictionary(key, value), (dict) => {
        const map = new Map(Object.entries(dict));
        assert.deepEqual(parseCfg(serializeCfg(map), 'x.cfg'), map);
      }),
      { numRuns: 500 },
    );
  });
});

describe('updateCfgText', () => {
  const original =
    '# Settings\npush.max-generations=64\n\n# filters\nfilter.classes=A\npush.max-generations=70\nother=1\n';

  it('changes a key in place at its last occurrence and keeps comments', () => {
    const updated = updateCfgText(original, { 'push.max-generations': '80' }, 'collection.cfg');
    assert.equal(updated, '# Settings\n\n# filters\nfilter.classes=A\npush.max-generations=80\nother=1\n');
  });

  it('removes keys set to null and appends new keys', () => {
    const updated = updateCfgText(
      original,
      new Map([
        ['filter.classes', null],
        ['new.key', 'v'],
      ]),
      'collection.cfg',
    );
    assert.equal(
      updated,
      '# Settings\npush.max-generations=64\n\n# filters\npush.max-generations=70\nother=1\nnew.key=v\n',
    );
    assert.equal(parseCfg(updated, 'c').get('new.key'), 'v');
  });

  it('keeps CRLF line ends and refuses a malformed file with its line', () => {
    assert.equal(updateCfgText('a=1\r\nb=2\r\n', { b: '3' }, 'c.cfg'), 'a=1\r\nb=3\r\n');
    throwsAtLine(() => updateCfgText('a=1\nbroken\n', { a: '2' }, 'c.cfg'), 'c.cfg', 2);
  });
});
