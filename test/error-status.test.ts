import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CODES, isErrorCode, statusForCode } from '../src/error-status.js';

describe('statusForCode', () => {
  it('answers the statuses of the API contract', () => {
    const expected: Record<string, number> = {
      KEY_MISSING: 400,
      KEY_INVALID: 400,
      KEY_TOO_LONG: 400,
      METADATA_INVALID: 400,
      BODY_INVALID: 400,
      MULTIPART_INVALID: 400,
      FILTER_FAILED: 400,
      CONFIG_INVALID: 400,
      QUERY_INVALID: 400,
      BODY_TIMEOUT: 408,
      UNAUTHENTICATED: 401,
      FORBIDDEN: 403,
      COLLECTION_NOT_FOUND: 404,
      DOCUMENT_NOT_FOUND: 404,
      SNAPSHOT_NOT_FOUND: 404,
      NOT_FOUND: 404,
      WRONG_STATE: 409,
      COLLECTION_EXISTS: 409,
      SNAPSHOT_EXISTS: 409,
      BODY_TOO_LARGE: 413,
      UNSUPPORTED_MEDIA_TYPE: 415,
      INSUFFICIENT_STORAGE: 507,
      UPGRADE_PREPARING: 503,
      GENERATION_LIMIT: 503,
      UPGRADE_NOT_STARTED: 503,
      COLLECTION_FAILED: 503,
      INDEX_CORRUPT: 500,
      INTERNAL: 500,
    };
    for (const [code, status] of Object.entries(expected)) {
      assert.ok(isErrorCode(code), code);
      assert.equal(statusForCode(code), status, code);
    }
  });

  it('answers 500 for codes nobody documented', () => {
    assert.equal(statusForCode('SOMETHING_NEW'), 500);
    assert.equal(statusForCode('toString'), 500);
    assert.equal(statusForCode('__proto__'), 500);
    assert.equal(isErrorCode('constructor'), false);
  });

  it('lists every code once, upper-case, each with an HTTP error status', () => {
    assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length);
    for (const code of ERROR_CODES) {
      assert.match(code, /^[A-Z][A-Z_]*$/);
      const status = statusForCode(code);
      assert.ok(status >= 400 && status <= 599, code);
    }
  });
});
