import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileGuardedRegex, findNestedRepetition } from '../../../src/collection/config/guarded-regex.js';

describe('compileGuardedRegex', () => {
  it('refuses nested unbounded repetition, the shape of exponential backtracking', () => {
    for (const p of [
      '(a+)+b',
      '(a*)*',
      '(\\w+\\s?)*$',
      '((ab)*c)+',
      '(?:x|y+)*z',
      '(a{2,})+',
      '(a{1,3})*',
      '(?<n>a+)+',
      '((a+))+',
    ]) {
      assert.throws(() => compileGuardedRegex(p), /exponential/, p);
    }
  });

  it('accepts ordinary patterns, bounded outer counts and quantifiers inside classes or escapes', () => {
    for (const p of [
      '^https?://www\\.example\\.com/',
      '.*foo.*bar',
      '(foo|bar)+',
      '(\\d{1,3}\\.){3}\\d{1,3}',
      '(a+)?',
      '(abc)+',
      '(a{3})+',
      '[+*]+',
      '(\\+)+',
      '(a\\*)*',
      '(?=a+)b',
      'x{1,}y',
      '\\.(pdf|docx?)$',
    ]) {
      assert.doesNotThrow(() => compileGuardedRegex(p), p);
    }
  });

  it('points at the offending group', () => {
    assert.equal(findNestedRepetition('ab(c+)+'), 5);
    assert.throws(() => compileGuardedRegex('(?i)ab(c+)+'), /character 10/);
  });

  it('turns a leading (?i) into case-insensitive matching', () => {
    const re = compileGuardedRegex('(?i)/News/');
    assert.equal(re.test('http://a.com/NEWS/x'), true);
    assert.equal(compileGuardedRegex('/News/').test('http://a.com/NEWS/x'), false);
  });

  it('reports syntax errors and overlong patterns', () => {
    assert.throws(() => compileGuardedRegex('(a'), /invalid regular expression/);
    assert.throws(() => compileGuardedRegex('a'.repeat(1001)), /1001 characters/);
    assert.doesNotThrow(() => compileGuardedRegex('a'.repeat(1000)));
  });
});
