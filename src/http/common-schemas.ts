/**
 * JSON schemas every API surface shares (push API, admin API, account routes): the error
 * body, the collection path parameter, a plain message answer. Route schemas validate
 * parameters, serialise responses (only the listed properties are sent) and are the source
 * of the OpenAPI document; every route schema has `tags`, `summary` and `description` for it.
 */

const ERROR_BODY = {
  type: 'object',
  additionalProperties: false,
  description: 'Every error: the HTTP status, a stable upper-case code and a message that says what to fix.',
  properties: {
    status: { type: 'integer' },
    error: { type: 'string', description: 'Stable error code, e.g. KEY_INVALID.' },
    message: { type: 'string' },
  },
  required: ['status', 'error', 'message'],
} as const;

/** Error responses every route can give. */
export const ERROR_RESPONSES = { '4xx': ERROR_BODY, '5xx': ERROR_BODY } as const;

export const COLLECTION_PARAMS = {
  type: 'object',
  properties: { collection: { type: 'string', description: 'Collection name.' } },
  required: ['collection'],
} as const;

export const MESSAGE_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  properties: { message: { type: 'string' } },
  required: ['message'],
} as const;

// Route documentation fields for the OpenAPI document (the same declarations as
// @fastify/swagger's, so both can coexist).
declare module 'fastify' {
  interface FastifySchema {
    tags?: readonly string[];
    summary?: string;
    description?: string;
  }
}
