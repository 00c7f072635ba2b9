import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';

/** Tag of the document routes (the spec's push-api section). */
export const PUSH_API_TAG = 'push-api';
/** Tag of collection operations and the upgrade calls (the spec's push-api-collection section). */
export const PUSH_API_COLLECTION_TAG = 'push-api-collection';
/** Tag of the public search routes (`/s/`). */
export const SEARCH_TAG = 'search';
/** Tag of `/health`, `/ready` and `/metrics`. */
export const OPERATIONS_TAG = 'operations';

/**
 * Metadata headers declared on the document PUT, so that "try it out" can send them: the names
 * the default `metamap.cfg` maps (any other `X-Service-Push-Metadata-{name}` works too).
 */
export const DOCUMENTED_METADATA_NAMES: readonly string[] = Object.freeze([
  'Title',
  'Description',
  'Author',
  'Keywords',
  'Date',
]);

/**
 * Examples of parameters, by name (wherever a route has one of that name). Swagger UI fills
 * examples into "try it out", so an optional parameter that changes the answer (filters,
 * fmo, gscope1, metadata) has none: its description gives one instead.
 */
const PARAMETER_EXAMPLES: Record<string, string> = {
  collection: 'docs',
  key: 'https://example.com/guide/install',
  target: 'https://example.com/guide/setup',
  name: 'nightly',
  'vacuum-type': 'MERGE',
};

const METADATA_EXAMPLES: Record<string, string> = {
  Title: 'Installing the server',
  Description: 'How to install and start the server on Debian.',
  Author: 'Ann Example',
  Keywords: 'install; debian',
  Date: '2026-11-20',
};

const PUBLIC_OR_USER: Record<string, string[]>[] = [{}, { token: [] }, { basic: [] }];

/** An answer of `/s/search.json`, for the OpenAPI document (its schema is the route's). */
const SEARCH_RESPONSE_EXAMPLE = {
  question: {
    query: 'install server',
    collection: 'docs',
    startRank: 1,
    numRanks: 10,
    fmo: false,
    gscope1: null,
    searchedFor: 'install server',
  },
  response: {
    resultPacket: {
      query: 'install server',
      resultsSummary: {
        totalMatching: 1,
        totalMatchingExact: true,
        fullyMatching: 1,
        partiallyMatching: 0,
        currStart: 1,
        currEnd: 1,
        numRanks: 10,
        nextStart: null,
        prevStart: null,
      },
      results: [
        {
          rank: 1,
          score: 4.37,
          title: 'Installing the server',
          liveUrl: 'https://example.com/guide/install',
          displayUrl: 'example.com/guide/install',
          clickTrackingUrl: '/s/redirect?collection=docs&url=…&auth=…&rank=1&query=install+server',
          summary: 'How to <b>install</b> and start the <b>server</b> on Debian.',
          listMetadata: { t: ['Installing the server'], a: ['Ann Example'] },
          collection: 'docs',
          gscopesSet: [],
          fileSize: 1024,
          fileType: 'html',
          date: '2026-11-20',
        },
      ],
      spell: null,
    },
    facets: [],
  },
};

const TEXT = (description: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});

/** What the document says about routes whose handlers read their input themselves. */
const EXTRA_OPERATIONS: Record<string, (schema: FastifySchema & Record<string, unknown>) => void> = {
  '/s/search.json': (out) => {
    const packet = (out.response as Record<string, object> | undefined)?.[200];
    out.response = {
      ...(out.response as object),
      200: { description: 'The result packet.', ...packet, examples: [SEARCH_RESPONSE_EXAMPLE] },
    };
  },
  '/s/search.html': (out) => {
    out.produces = ['text/html'];
    out.response = { 200: { description: 'The results page (HTML).', type: 'string' } };
  },
  '/s/redirect': (out) => {
    out.response = { 302: { description: 'To the clicked URL (Location header).', type: 'null' } };
  },
  '/health': (out) => {
    out.response = {
      200: {
        description: 'The server answers.',
        type: 'object',
        properties: { status: { type: 'string', enum: ['ok'] } },
        examples: [{ status: 'ok' }],
      },
    };
  },
  '/ready': (out) => {
    const body = {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ready', 'not ready'] },
        collections: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              collection: { type: 'string' },
              state: { type: 'string', enum: ['STARTING', 'FAILED'] },
              reason: { type: 'string' },
              file: { type: 'string' },
            },
            required: ['collection', 'state'],
          },
        },
      },
    };
    out.response = {
      200: { description: 'Ready.', ...body, examples: [{ status: 'ready', collections: [] }] },
      503: {
        description: 'A collection is STARTING or FAILED.',
        ...body,
        examples: [
          {
            status: 'not ready',
            collections: [
              { collection: 'docs', state: 'FAILED', reason: 'checksum mismatch', file: 'gen-7.pst' },
            ],
          },
        ],
      },
    };
  },
};

/**
 * Registers @fastify/swagger, which builds the OpenAPI 3.0 document (served by `api-ui.ts`)
 * from the schemas of the routes registered after it: call it before any documented route
 * (the operations routes included). The validating schemas are the source; this module adds
 * what they cannot say:
 * - tags: document and redirect routes `push-api`, collection operations and the
 *   installation-wide upgrade calls `push-api-collection` (the spec's sections), `search`,
 *   `operations`;
 * - request bodies the routes read raw (a document PUT, the multipart endpoint), and the
 *   metadata headers of a document PUT, so that "try it out" can send them;
 * - the answers of `/s/search.html`, `/s/redirect`, `/health` and `/ready`, and an example of
 *   the search answer;
 * - examples of parameters and bodies;
 * - security schemes `basic` (HTTP Basic) and `token` (`X-Security-Token`); login, search and
 *   the operations routes need none;
 * - JSON Schema keywords OpenAPI 3.0 does not have (`propertyNames`) turned into what 3.0
 *   can say (see {@link toOpenApi30Schema}).
 * The UI pages themselves are left out.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'pushsearch API',
        version: '1',
        description:
          'The push API (every route under both /push-api/v1 and /push-api/v2), the account routes (login for a token), the admin API, search (/s/) and the operations endpoints. Errors answer {"status", "error", "message"}.',
      },
      tags: [
        {
          name: PUSH_API_TAG,
          description: 'Documents and redirects: add, read, replace, delete (staged until a commit).',
        },
        {
          name: PUSH_API_COLLECTION_TAG,
          description:
            'Collection operations (commit, vacuum, click logs, snapshots, restore, state, stop) and the installation-wide upgrade preparation.',
        },
        { name: 'account', description: 'Log in for an X-Security-Token; who am I; log out.' },
        {
          name: 'admin-collections',
          description: 'Create, list and delete collections; read and replace their configuration files.',
        },
        { name: 'admin-users', description: 'Users, permissions, collection access and tokens.' },
        {
          name: SEARCH_TAG,
          description:
            'Search a collection (public unless search.public=false), the results page, click logging.',
        },
        { name: OPERATIONS_TAG, description: 'Liveness, readiness and Prometheus metrics.' },
      ],
      components: {
        securitySchemes: {
          token: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Security-Token',
            description: 'From POST /admin-api/account/v1/login.',
          },
          basic: { type: 'http', scheme: 'basic' },
        },
      },
      security: [{ token: [] }, { basic: [] }],
    },
    transform: ({ schema, url, route }) => ({ schema: documented(schema, url, route.method), url }),
    transformObject: (documentObject) => {
      const { openapiObject } = documentObject as { openapiObject: Record<string, unknown> };
      forEachSchema(openapiObject, toOpenApi30Schema);
      return openapiObject;
    },
  });
}

/** Whether a route belongs in the API document (the APIs, search, operations; not UI pages). */
function isDocumented(url: string): boolean {
  return (
    url.startsWith('/push-api/') ||
    url.startsWith('/admin-api/') ||
    url.startsWith('/s/') ||
    url === '/health' ||
    url === '/ready' ||
    url === '/metrics'
  );
}

/** The schema a route is documented with (the validating schema, plus what it cannot say). */
function documented(
  schema: FastifySchema | undefined,
  url: string,
  method: string | string[],
): FastifySchema & Record<string, unknown> {
  if (!isDocumented(url)) return { ...schema, hide: true };
  const out: FastifySchema & Record<string, unknown> = { ...schema };
  out.querystring = withExamples(out.querystring);
  out.params = withExamples(out.params);
  if (url.startsWith('/push-api/')) {
    out.tags = /\/(documents|redirects)(\/|$)/.test(url) ? [PUSH_API_TAG] : [PUSH_API_COLLECTION_TAG];
  }
  if (url.startsWith('/s/')) {
    out.tags = [SEARCH_TAG];
    out.security = PUBLIC_OR_USER;
  }
  if (url === '/health' || url === '/ready') out.security = [];
  // Public unless metrics.public=false.
  if (url === '/metrics') {
    out.security = PUBLIC_OR_USER;
    out.produces = ['text/plain'];
    out.response = { 200: TEXT('Prometheus text exposition format.') };
  }
  EXTRA_OPERATIONS[url]?.(out);
  const methods = Array.isArray(method) ? method : [method];
  if (url.endsWith('/documents') && methods.includes('PUT')) {
    out.body = {
      type: 'string',
      description: 'The document content; Content-Type says its type.',
      examples: [
        '<html><head><title>Installing the server</title></head><body>Install it with apt.</body></html>',
      ],
    };
    out.consumes = [
      'text/html',
      'text/plain',
      'application/xml',
      'application/json',
      'application/pdf',
      'application/octet-stream',
    ];
    out.headers = {
      type: 'object',
      properties: Object.fromEntries(
        DOCUMENTED_METADATA_NAMES.map((name) => [
          `X-Service-Push-Metadata-${name}`,
          {
            type: 'string',
            description: `Metadata ${name}, e.g. "${METADATA_EXAMPLES[name]}". Any X-Service-Push-Metadata-{name} header adds metadata {name} (names keep their case; repeat a header for several values); the default metamap.cfg maps the ones listed here.`,
          },
        ]),
      ),
    };
  }
  if (url.endsWith('/documents/content-and-metadata')) {
    out.body = {
      type: 'object',
      properties: {
        content: {
          type: 'string',
          format: 'binary',
          description: 'The document, with its own Content-Type.',
        },
        metadata: {
          type: 'string',
          description: 'JSON object: name → string or array of strings.',
          examples: [JSON.stringify({ Title: METADATA_EXAMPLES.Title, Keywords: ['install', 'debian'] })],
        },
      },
      required: ['content'],
    };
    out.consumes = ['multipart/form-data'];
  }
  if (url.endsWith('/account/v1/login')) {
    out.security = [];
    out.consumes = ['application/x-www-form-urlencoded', 'application/json'];
  }
  return out;
}

/** A copy of an object schema whose properties named in {@link PARAMETER_EXAMPLES} carry an example. */
function withExamples(schema: unknown): unknown {
  const object = schema as { properties?: Record<string, Record<string, unknown>> } | undefined;
  if (object?.properties === undefined) return schema;
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [name, property] of Object.entries(object.properties)) {
    const example = PARAMETER_EXAMPLES[name];
    properties[name] =
      example === undefined || property.examples !== undefined
        ? property
        : { ...property, examples: [example] };
  }
  return { ...object, properties };
}

type SchemaObject = Record<string, unknown>;

/**
 * Rewrites one schema object in place into what OpenAPI 3.0's Schema Object allows:
 * `propertyNames` (JSON Schema draft 6, used by our validators to refuse a misspelt property
 * with a clear error rather than drop it) becomes `additionalProperties: false` when it lists
 * the properties, else a sentence of the description.
 */
export function toOpenApi30Schema(schema: SchemaObject): void {
  const names = schema.propertyNames as { enum?: unknown[]; pattern?: string } | undefined;
  if (names === undefined) return;
  delete schema.propertyNames;
  const properties = Object.keys((schema.properties as SchemaObject | undefined) ?? {});
  if (
    Array.isArray(names.enum) &&
    names.enum.every((name) => properties.includes(String(name))) &&
    schema.additionalProperties === undefined
  ) {
    schema.additionalProperties = false;
    return;
  }
  const rule = Array.isArray(names.enum)
    ? `one of ${names.enum.map(String).join(', ')}`
    : `matching ${String(names.pattern)}`;
  schema.description = `${typeof schema.description === 'string' ? `${schema.description} ` : ''}Property names: ${rule}.`;
}

/** Calls `visit` on every Schema Object of an OpenAPI document (nested ones included). */
export function forEachSchema(document: unknown, visit: (schema: SchemaObject) => void): void {
  const walkSchema = (schema: unknown): void => {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
    const object = schema as SchemaObject;
    visit(object);
    for (const property of Object.values((object.properties as SchemaObject | undefined) ?? {}))
      walkSchema(property);
    for (const key of ['items', 'additionalProperties', 'not']) walkSchema(object[key]);
    for (const key of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(object[key])) for (const member of object[key] as unknown[]) walkSchema(member);
  };
  const walkContent = (content: unknown): void => {
    for (const media of Object.values((content as Record<string, { schema?: unknown }> | undefined) ?? {}))
      walkSchema(media.schema);
  };
  const doc = document as {
    paths?: Record<string, Record<string, unknown>>;
    components?: { schemas?: Record<string, unknown> };
  };
  for (const schema of Object.values(doc.components?.schemas ?? {})) walkSchema(schema);
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item) as {
      parameters?: { schema?: unknown }[];
      requestBody?: { content?: unknown };
      responses?: Record<string, { content?: unknown }>;
    }[]) {
      if (operation === null || typeof operation !== 'object') continue;
      for (const parameter of operation.parameters ?? []) walkSchema(parameter.schema);
      walkContent(operation.requestBody?.content);
      for (const response of Object.values(operation.responses ?? {})) walkContent(response.content);
    }
  }
}
