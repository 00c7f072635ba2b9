import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SearchError } from '../../src/errors.js';
import { matchXmlPath, parseXmlPath } from '../../src/collection/config/xml-config.js';
import { compileXPath, matchesPath } from '../../src/collection/filters/xpath-pattern.js';

describe('xml.cfg xpaths in the XML filter', () => {
  it('match exactly as the xml.cfg parser defines them (its matcher is the oracle)', () => {
    const name = fc.constantFrom('a', 'b', 'c');
    const xpath = fc
      .tuple(
        fc.array(fc.tuple(fc.constantFrom('/', '//'), name), { minLength: 1, maxLength: 4 }),
        fc.option(name),
      )
      .map(([steps, attr]) => steps.map(([sep, n]) => sep + n).join('') + (attr === null ? '' : `/@${attr}`));
    const stack = fc.array(name, { minLength: 1, maxLength: 7 });
    fc.assert(
      fc.property(xpath, stack, (source, elements) => {
        const ours = compileXPath(source);
        const theirs = parseXmlPath(source);
        assert.equal(ours.attribute, theirs.attribute);
        assert.equal(
          matchesPath(ours, elements),
          matchXmlPath(theirs, elements, theirs.attribute),
          `${source} on /${elements.join('/')}`,
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('understand the spellings the xml.cfg parser accepts', () => {
    for (const source of ['/a/b', '//b', '/a//b/c', '/a/@id', '//b/@id', '//b@id', '/dc:record/dc:title']) {
      const ours = compileXPath(source);
      assert.equal(ours.source, source);
      assert.equal(ours.attribute, parseXmlPath(source).attribute, source);
    }
  });

  it('refuse what they cannot evaluate with FILTER_FAILED', () => {
    for (const source of ['a/b', '/a[1]', '/a/b[@id="x"]', '/', '/a//', '/a///b', '/a/@id/b']) {
      assert.throws(
        () => compileXPath(source),
        (e: unknown) => e instanceof SearchError && e.code === 'FILTER_FAILED' && e.message.includes(source),
        source,
      );
    }
  });
});
