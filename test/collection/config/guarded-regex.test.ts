import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileGuardedRegex, MAX_PROGRAM_SIZE } from '../../../src/collection/config/guarded-regex.js';

/** The patterns of issue #22 whose backtracking cost doubles with every character of a key. */
const BACKTRACKING_PATTERNS = ['^http://x/(\\w|\\d)*$', '(a|a)*$', '(a*){2,30}b', '(.*){1,20}x'];

describe('compileGuardedRegex', () => {
  it('matches patterns that backtrack exponentially in linear time, with the right answers', () => {
    const long = 'a'.repeat(1990);
    const expected: Record<string, [string, boolean][]> = {
      '^http://x/(\\w|\\d)*$': [
        [`http://x/${long}!`, false],
        [`http://x/${long}`, true],
      ],
      '(a|a)*$': [[`${long}!`, true]],
      '(a*){2,30}b': [
        [long, false],
        [`${long}b`, true],
      ],
      '(.*){1,20}x': [
        [long, false],
        [`${long}x`, true],
      ],
    };
    for (const pattern of BACKTRACKING_PATTERNS) {
      const regex = compileGuardedRegex(pattern);
      for (const [key, match] of expected[pattern]) assert.equal(regex.test(key), match, pattern);
    }
    // Nested repetition, which the former guard had to refuse, is harmless now.
    assert.equal(compileGuardedRegex('(a+)+b').test('a'.repeat(2000)), false);
    assert.equal(compileGuardedRegex('(\\d{1,3}\\.)+').test('http://10.0.0.1/'), true);
  });

  it('accepts ordinary patterns and the Perl escapes of the original', () => {
    for (const [pattern, key] of [
      ['^https?://www\\.example\\.com/', 'https://www.example.com/a'],
      ['.*foo.*bar', 'xfooybar'],
      ['(\\d{1,3}\\.){3}\\d{1,3}', '10.1.2.3'],
      ['\\/a\\-b', 'x/a-b'],
      ['\\.(pdf|docx?)$', 'http://a/b.doc'],
      ['[+*]+', 'a+b'],
    ]) {
      assert.equal(compileGuardedRegex(pattern).test(key), true, pattern);
    }
  });

  it('turns (?i) into case-insensitive matching', () => {
    assert.equal(compileGuardedRegex('(?i)/News/').test('http://a.com/NEWS/x'), true);
    assert.equal(compileGuardedRegex('/News/').test('http://a.com/NEWS/x'), false);
  });

  it('refuses what cannot run in linear time with a reason', () => {
    assert.throws(() => compileGuardedRegex('(?=a)b'), /lookaround cannot run in linear time/);
    assert.throws(() => compileGuardedRegex('(a)\\1'), /backreferences cannot run in linear time/);
  });

  it('refuses syntax errors, overlong patterns and oversized programs', () => {
    assert.throws(() => compileGuardedRegex('(a'), /invalid regular expression/);
    assert.throws(() => compileGuardedRegex('a'.repeat(1001)), /1001 characters/);
    assert.doesNotThrow(() => compileGuardedRegex('a'.repeat(900)));
    assert.throws(
      () => compileGuardedRegex('(?:a?){500}a{500}'),
      new RegExp(`compiles to \\d+ instructions; at most ${MAX_PROGRAM_SIZE}`),
    );
  });
});
