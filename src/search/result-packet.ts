import type { FromSchema } from 'json-schema-to-ts';

/**
 * The search answer (`/s/search.json`), field names as the original's result packet so that
 * existing front ends work. The JSON schema is the one definition: the route serialises with
 * it (only the listed properties are sent), the OpenAPI document shows it, and the types the
 * search service builds and the client library returns are derived from it. Properties are
 * listed in the order the service builds them, so the bytes are those of `JSON.stringify`.
 */

const NULLABLE_INTEGER = { type: ['integer', 'null'] } as const;

export const SEARCH_RESULT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    rank: { type: 'integer', description: 'Position in the whole result list, from 1.' },
    score: { type: 'number', description: 'Relevance score of this result (higher is better).' },
    title: { type: 'string' },
    liveUrl: { type: 'string', description: 'The document key.' },
    displayUrl: { type: 'string', description: 'The key without its scheme.' },
    clickTrackingUrl: {
      type: 'string',
      description: 'Signed /s/redirect link that logs the click and redirects to liveUrl.',
    },
    summary: { type: 'string', description: 'Text around the query words, HTML-escaped, words in <b>.' },
    listMetadata: {
      type: 'object',
      description: 'Metadata class → values.',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
    metaData: {
      type: 'object',
      description:
        "The original's metaData: class → values joined with |, for the classes of -SF=[...] in query_processor_options (every class without -SF).",
      additionalProperties: { type: 'string' },
    },
    collection: { type: 'string', description: 'The collection the document is in.' },
    gscopesSet: { type: 'array', items: { type: 'string' } },
    fileSize: { type: 'integer' },
    fileType: { type: 'string' },
    date: { type: ['string', 'null'] },
    kmFromOrigin: {
      type: ['number', 'null'],
      description: 'With origin=lat,long: km from the origin to the document (null when it has no location).',
    },
  },
  required: [
    'rank',
    'score',
    'title',
    'liveUrl',
    'displayUrl',
    'clickTrackingUrl',
    'summary',
    'listMetadata',
    'metaData',
    'collection',
    'gscopesSet',
    'fileSize',
    'fileType',
    'date',
  ],
} as const;

export const FACET_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    className: { type: 'string' },
    values: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          label: { type: 'string' },
          count: { type: 'integer' },
          selected: { type: 'boolean' },
        },
        required: ['label', 'count', 'selected'],
      },
    },
  },
  required: ['name', 'className', 'values'],
} as const;

/** The answer of `GET /s/search.json`. */
export const SEARCH_RESPONSE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    question: {
      type: 'object',
      additionalProperties: false,
      properties: {
        query: { type: 'string' },
        collection: { type: 'string' },
        startRank: { type: 'integer' },
        numRanks: { type: 'integer' },
        fmo: { type: 'boolean' },
        gscope1: { type: ['string', 'null'] },
        searchedFor: {
          type: 'string',
          description: 'The words searched for, as the engine understood them.',
        },
      },
      required: ['query', 'collection', 'startRank', 'numRanks', 'fmo', 'gscope1', 'searchedFor'],
    },
    response: {
      type: 'object',
      additionalProperties: false,
      properties: {
        resultPacket: {
          type: 'object',
          additionalProperties: false,
          properties: {
            query: { type: 'string' },
            resultsSummary: {
              type: 'object',
              additionalProperties: false,
              properties: {
                totalMatching: { type: 'integer' },
                totalMatchingExact: {
                  type: 'boolean',
                  description: 'false when totalMatching is a lower bound (counting stopped early).',
                },
                fullyMatching: { type: 'integer' },
                partiallyMatching: { type: 'integer' },
                currStart: { type: 'integer' },
                currEnd: { type: 'integer' },
                numRanks: { type: 'integer' },
                nextStart: NULLABLE_INTEGER,
                prevStart: NULLABLE_INTEGER,
                timedOut: {
                  type: 'boolean',
                  description:
                    'true when the query ran out of its time budget (search.timeout-ms): the results are the best found in time, counts are lower bounds, facets or spelling may be missing.',
                },
                prefixTermsCapped: {
                  type: 'boolean',
                  description:
                    'true when a truncated word (word*) had more terms than search.max-prefix-terms: the most frequent ones were searched.',
                },
              },
              required: [
                'totalMatching',
                'totalMatchingExact',
                'fullyMatching',
                'partiallyMatching',
                'currStart',
                'currEnd',
                'numRanks',
                'nextStart',
                'prevStart',
                'timedOut',
                'prefixTermsCapped',
              ],
            },
            results: { type: 'array', items: SEARCH_RESULT_SCHEMA },
            spell: {
              type: ['object', 'null'],
              description: '"Did you mean": a corrected query, or null.',
              additionalProperties: false,
              properties: { text: { type: 'string' } },
              required: ['text'],
            },
          },
          required: ['query', 'resultsSummary', 'results', 'spell'],
        },
        facets: { type: 'array', items: FACET_SCHEMA },
      },
      required: ['resultPacket', 'facets'],
    },
  },
  required: ['question', 'response'],
} as const;

export type SearchResult = FromSchema<typeof SEARCH_RESULT_SCHEMA>;
export type FacetView = FromSchema<typeof FACET_SCHEMA>;
export type SearchResponse = FromSchema<typeof SEARCH_RESPONSE_SCHEMA>;
