/**
 * Waiting in tests for what happens in the background (a commit, a sync, a server coming up)
 * without a guessed sleep: a condition is polled until it holds, and a deadline turns a hang
 * into a failure that names what was awaited.
 */

/** How often a condition is checked again. */
const POLL_MS = 25;

/** What a check answers while the wait goes on. */
type NotYet = false | undefined;

/**
 * Polls `check` until it answers something other than `false` or `undefined`, and resolves
 * with that answer: `true` for a yes/no check, the value found for a search. After
 * `timeoutMs` it throws an error naming `what`, followed by `describe()` (say, the last state
 * seen).
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  describe: () => string = () => '',
): Promise<Exclude<T, NotYet>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    // TypeScript does not narrow a generic by these comparisons; the cast says what they checked.
    if (value !== undefined && value !== false) return value as Exclude<T, NotYet>;
    if (Date.now() > deadline) {
      const detail = describe();
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${detail === '' ? '' : ` ${detail}`}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
