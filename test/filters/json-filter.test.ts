import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectSearchError, runFilters } from './run-filter.js';

const json = (s: string) => runFilters(s, 'application/json');

describe('JSON filter', () => {
  it('makes every string value the text, in document order, one a line', () => {
    const doc = json(
      '{"title": "Guide", "n": 3, "body": {"intro": "Hello", "parts": ["one", "two"]}, "ok": true}',
    );
    assert.equal(doc.text, 'Guide\nHello\none\ntwo');
  });

  it('stores scalars under their dotted path, arrays flattened, null skipped', () => {
    const doc = json(
      '{"a": {"b": "x", "c": [1, 2.5, {"d": "y"}, [false]]}, "tags": ["p", "q"], "none": null, ' +
        '"items": [{"name": "n1"}, {"name": "n2", "extra": {"k": "v"}}]}',
    );
    assert.deepEqual(doc.metadata, {
      'a.b': ['x'],
      'a.c': ['1', '2.5', 'false'],
      'a.c.d': ['y'],
      tags: ['p', 'q'],
      'items.name': ['n1', 'n2'],
      'items.extra.k': ['v'],
    });
  });

  it('takes a top-level string title as the title, and only that', () => {
    assert.equal(json('{"title": "  Top  ", "x": {"title": "nested"}}').title, 'Top');
    assert.equal(json('{"x": {"title": "nested"}}').title, undefined);
    assert.equal(json('{"title": 42}').title, undefined);
    assert.equal(json('[{"title": "in array"}]').title, undefined);
  });

  it('reads a top-level array or scalar', () => {
    assert.deepEqual(json('[{"a": "1"}, {"a": "2"}]').metadata, { a: ['1', '2'] });
    const scalar = json('"just a string"');
    assert.equal(scalar.text, 'just a string');
    assert.deepEqual(scalar.metadata, {});
  });

  it('keeps keys such as __proto__ and constructor as plain names', () => {
    const doc = json('{"__proto__": {"polluted": "yes"}, "constructor": "c"}');
    assert.deepEqual(Object.keys(doc.metadata).sort(), ['__proto__.polluted', 'constructor']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('handles nesting deeper than the call stack', () => {
    const depth = 100_000;
    const doc = json('{"a":'.repeat(depth) + '"deep"' + '}'.repeat(depth));
    assert.equal(doc.text, 'deep');
    // Paths this deep would be quadratic in size: no metadata past 64 levels.
    assert.deepEqual(doc.metadata, {});
    assert.deepEqual(json('['.repeat(depth) + '"x"' + ']'.repeat(depth)).text, 'x');
  });

  it('fails on invalid JSON with FILTER_FAILED, naming the filter and the place', () => {
    const err = expectSearchError(() => json('{\n  "a": 1,\n  "b": }'), 'FILTER_FAILED');
    assert.match(err.message, /^Json filter/);
    assert.match(err.message, /invalid JSON/);
    expectSearchError(() => json(''), 'FILTER_FAILED');
    expectSearchError(() => json('{"a": 1} trailing'), 'FILTER_FAILED');
    const positioned = expectSearchError(() => json('{"a": 1,\n "b": 2'), 'FILTER_FAILED');
    assert.match(positioned.message, /line 2, column \d+/);
  });
});
