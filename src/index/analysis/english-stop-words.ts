/**
 * The built-in English stop words (`stopWords: true`): Lucene's classic
 * `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`, 33 words. It is small on purpose: a removed word
 * can never be searched for on its own, and larger lists (Snowball's has about 175 words)
 * also remove words such as `before`, `after` or `only` that carry meaning in specifications.
 * Note that `not` is in it ("MUST NOT"): phrase queries still match across the gap it leaves.
 */
export const ENGLISH_STOP_WORDS: readonly string[] = Object.freeze([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'no',
  'not',
  'of',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
]);
