/**
 * Typed JSON bodies for assertions. A 2xx body has the type its route's response schema
 * declares: the server serialises by that schema (only the listed properties, in their
 * types), and the types come from the same schemas (`src/client/types.ts`). An error body
 * is checked to be the contract's `{ status, error, message }` before a test reads it.
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import type { ErrorBody } from '../../src/http/error-reply.js';
import type { SNAPSHOT_LIST_RESPONSE } from '../../src/http/push-api/snapshots.js';

/** An inject response whose `json()` is typed `T` (the route's 2xx body) unless told otherwise. */
export type Answer<T> = Omit<LightMyRequestResponse, 'json'> & { json<U = T>(): U };

/** The answer of `GET …/snapshot`. */
export type SnapshotList = FromSchema<typeof SNAPSHOT_LIST_RESPONSE>;

/**
 * The JSON body of an answer (an inject response, or a real request's `{ status, body }`),
 * typed as its route's 2xx schema declares.
 */
export function jsonOf<T>(answer: { body: string }): T {
  return parseJson(answer.body) as T;
}

/** JSON text parsed to `unknown`, for narrowing (the test fails, showing the text, if it is not JSON). */
export function parseJson(text: string | Buffer): unknown {
  try {
    return JSON.parse(text.toString()) as unknown;
  } catch {
    assert.fail(`not JSON: ${text.toString().slice(0, 500)}`);
  }
}

/** True for an object with a property `name` (narrows to a record with it). */
export function hasProperty<K extends string>(value: unknown, name: K): value is Record<K, unknown> {
  return typeof value === 'object' && value !== null && name in value;
}

/**
 * The error body of an answer (an inject response, or the body text of a real request); the
 * test fails, showing the body, when it is not `{ status, error, message }`.
 */
export function errorOf(answer: Pick<LightMyRequestResponse, 'body'> | string | Buffer): ErrorBody {
  const text = typeof answer === 'string' || Buffer.isBuffer(answer) ? answer.toString() : answer.body;
  const body = parseJson(text);
  if (
    hasProperty(body, 'status') &&
    hasProperty(body, 'error') &&
    hasProperty(body, 'message') &&
    typeof body.status === 'number' &&
    typeof body.error === 'string' &&
    typeof body.message === 'string'
  ) {
    return { status: body.status, error: body.error, message: body.message };
  }
  assert.fail(`not an error body: ${text.slice(0, 500)}`);
}
