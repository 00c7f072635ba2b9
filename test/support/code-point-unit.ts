import fc from 'fast-check';

/** The code points `unit: 'binary'` draws from: all but the surrogates U+D800..U+DFFF. */
const CHOICES = 0x110000 - 0x800;

/** Which of the {@link CHOICES} a one-code-point string is (what fast-check's unmapper answers). */
function choiceOf(value: unknown): number {
  const point = typeof value === 'string' ? value.codePointAt(0) : undefined;
  if (point === undefined || String.fromCodePoint(point) !== value || (point >= 0xd800 && point < 0xe000))
    throw new Error('not a single code point outside the surrogates');
  return point < 0xd800 ? point : point - 0x800;
}

/**
 * The unit of `fc.string({ unit: 'binary' })` (any code point but a lone surrogate), drawn as
 * fast-check draws it: the same choice for the same seed, so the same strings, the dangerous
 * ones ("__proto__", "constructor", ...) included. fast-check's own builds, at the first string
 * arbitrary of that unit, a reverse map of all 1.1 million code points: a second of CPU and
 * 90 MB of heap that every later garbage collection of the test file walks again. Here the
 * reverse is a computation.
 */
export const anyCodePoint: fc.Arbitrary<string> = fc
  .nat({ max: CHOICES - 1 })
  .map((choice) => String.fromCodePoint(choice < 0xd800 ? choice : choice + 0x800), choiceOf);
