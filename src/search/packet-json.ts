import buildSerializer from 'fast-json-stringify';
import { SEARCH_RESPONSE_SCHEMA, type SearchResponse } from './result-packet.js';

/**
 * The result packet as `/s/search.json` sends it: serialised by fast-json-stringify with
 * {@link SEARCH_RESPONSE_SCHEMA}, as Fastify's own serializer compiler does for the route's
 * 200 response (same library, same version, same schema, no options), so the bytes are the
 * ones Fastify would send. A search thread serialises here and hands the event loop the
 * finished bytes: the packet is not cloned across threads nor serialised on the event loop.
 */
const stringify = buildSerializer(SEARCH_RESPONSE_SCHEMA as object) as (response: SearchResponse) => string;
const encoder = new TextEncoder();

/**
 * The JSON bytes of a result packet, in a buffer of their own (never a slice of a shared
 * pool), so that a thread can transfer it.
 */
export function searchResponseBytes(response: SearchResponse): Uint8Array {
  return encoder.encode(stringify(response));
}
