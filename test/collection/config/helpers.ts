import assert from 'node:assert/strict';
import { ConfigFileError } from '../../../src/collection/config/config-file-error.js';

/** Asserts that `fn` throws a CONFIG_INVALID ConfigFileError for `file` at `line` whose message matches. */
export function throwsAtLine(
  fn: () => unknown,
  file: string,
  line: number | undefined,
  message?: RegExp,
): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ConfigFileError, `expected ConfigFileError, got ${String(e)}`);
    assert.equal(e.code, 'CONFIG_INVALID');
    assert.equal(e.file, file);
    assert.equal(e.line, line, e.message);
    assert.deepEqual(e.details, line === undefined ? { file } : { file, line });
    if (line !== undefined) assert.ok(e.message.startsWith(`${file} line ${line}: `), e.message);
    if (message !== undefined) assert.match(e.message, message);
    return true;
  });
}
