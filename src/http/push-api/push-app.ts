import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

/**
 * The Fastify instance the push API's resource modules register on: request parameters,
 * query strings and answers are typed from each route's JSON schema (one source for
 * validation, types and the OpenAPI document).
 */
export type PushApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  JsonSchemaToTsProvider
>;

/** OpenAPI tag of every push API route. */
export const PUSH_TAGS = ['push-api'];
