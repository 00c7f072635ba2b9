import type { preParsingHookHandler } from 'fastify';
import type { CollectionManager } from '../../collection/collection-manager.js';
import { canonicalizeKey } from '../../collection/key.js';
import { COLLECTION_PARAMS, ERROR_RESPONSES } from '../common-schemas.js';
import { readContentAndMetadata } from '../content-and-metadata.js';
import { extractPushMetadata } from '../metadata-headers.js';
import { PUSH_TAGS, type PushApp } from './push-app.js';

const KEY = {
  type: 'string',
  description:
    'The document URI (with a scheme, at most 2000 characters), URL-encoded. Canonicalised: no path → "/", fragment removed, dot segments resolved.',
} as const;

export const KEY_QUERY = {
  type: 'object',
  properties: { key: KEY },
  required: ['key'],
} as const;

export const KEY_FILTERS_QUERY = {
  type: 'object',
  properties: {
    key: KEY,
    filters: {
      type: 'string',
      description:
        'Filter chain for this document, same syntax as filter.classes (e.g. "Html" or "Xml,PlainText").',
    },
  },
  required: ['key'],
} as const;

export const REDIRECT_QUERY = {
  type: 'object',
  properties: {
    key: KEY,
    target: {
      type: 'string',
      description: 'The URI that key redirects to (validated and canonicalised like a key).',
    },
  },
  required: ['key', 'target'],
} as const;

export const STORED_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  properties: {
    message: { type: 'string' },
    storedKeys: { type: 'array', items: { type: 'string' }, description: 'The canonical keys changed.' },
  },
  required: ['message', 'storedKeys'],
} as const;

const METADATA_MAP = {
  type: 'object',
  description: 'Metadata name → values, as pushed (plus X-Service-Push-Received-Time).',
  additionalProperties: { type: 'array', items: { type: 'string' } },
} as const;

export const DOCUMENT_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  properties: {
    key: { type: 'string', description: 'The canonical key.' },
    pushContent: {
      type: ['object', 'null'],
      additionalProperties: false,
      description: 'null when the collection has no document at the key (the answer is still 200).',
      properties: {
        content: { type: 'string', description: 'The content as pushed, base64.' },
        contentType: { type: 'string' },
        metadata: METADATA_MAP,
        receivedTime: { type: 'string', description: 'UTC yyyyMMddHHmmss.SSSZ of the PUT.' },
      },
      required: ['content', 'contentType', 'metadata', 'receivedTime'],
    },
    committed: {
      type: 'boolean',
      description: 'false while the version shown is staged (not yet searchable).',
    },
    redirect: { type: 'string', description: 'Present when the key is a redirect: its target.' },
  },
  required: ['key', 'pushContent'],
} as const;

const EMPTY = Buffer.alloc(0);
/** Media type stored when a PUT has no Content-Type (what HTTP lets a recipient assume). */
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** What the document routes need from the push API plugin. */
export interface DocumentRoutesOptions {
  manager: CollectionManager;
  /** `push.max-request-bytes`: the body limit of the routes that carry a document. */
  maxRequestBytes: number;
  /** Checks a document write and reserves room for its body before the body is read. */
  admitBody: preParsingHookHandler;
}

/**
 * Documents and redirects: PUT (raw body, metadata in headers), content-and-metadata
 * (multipart), GET as pushed, DELETE; PUT and DELETE of a redirect. Every change is durable
 * when the answer comes and searchable after the next commit.
 */
export function documentRoutes(app: PushApp, options: DocumentRoutesOptions): void {
  const { manager } = options;
  const documentRoute = { bodyLimit: options.maxRequestBytes, preParsing: options.admitBody };

  app.put(
    '/collections/:collection/documents',
    {
      ...documentRoute,
      schema: {
        tags: PUSH_TAGS,
        summary: 'Add or replace a document',
        description:
          'Body: the content; Content-Type: its type. Metadata from X-Service-Push-Metadata-{name} headers (also X-Funnelback-Push-Meta-Data-{name}); names keep their case. The change is durable when the answer comes, searchable after the next commit.',
        params: COLLECTION_PARAMS,
        querystring: KEY_FILTERS_QUERY,
        response: { 200: STORED_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const collection = manager.collection(request.params.collection);
      const metadata = extractPushMetadata(request.raw.rawHeaders);
      const key = await collection.putDocument({
        key: request.query.key,
        content: (request.body as Buffer | undefined) ?? EMPTY,
        contentType: request.headers['content-type'] ?? DEFAULT_CONTENT_TYPE,
        metadata,
        filters: request.query.filters,
      });
      return stored(`document ${key} stored; searchable after the next commit`, key);
    },
  );

  const contentAndMetadataRoute = {
    ...documentRoute,
    schema: {
      tags: PUSH_TAGS,
      summary: 'Add or replace a document with content and metadata in one multipart body',
      description:
        'multipart/form-data or multipart/mixed. Part "content": the document, with its own Content-Type. Part "metadata" (optional): a UTF-8 JSON object, name → string or array of strings; names keep their case and may hold any Unicode, values may hold line breaks. Parts without a name: the application/json one is the metadata, the other the content.',
      params: COLLECTION_PARAMS,
      querystring: KEY_FILTERS_QUERY,
      response: { 200: STORED_RESPONSE, ...ERROR_RESPONSES },
    },
  } as const;
  for (const method of ['POST', 'PUT'] as const) {
    app.route({
      method,
      url: '/collections/:collection/documents/content-and-metadata',
      ...contentAndMetadataRoute,
      handler: async (request) => {
        const collection = manager.collection(request.params.collection);
        const fromHeaders = extractPushMetadata(request.raw.rawHeaders);
        const parsed = readContentAndMetadata(
          (request.body as Buffer | undefined) ?? EMPTY,
          request.headers['content-type'],
        );
        // Header metadata (rare here) comes first, the metadata part adds to it.
        const metadata = fromHeaders;
        for (const [name, values] of Object.entries(parsed.metadata)) {
          metadata[name] = [...(metadata[name] ?? []), ...values];
        }
        const key = await collection.putDocument({
          key: request.query.key,
          content: parsed.content,
          contentType: parsed.contentType,
          metadata,
          filters: request.query.filters,
        });
        return stored(`document ${key} stored; searchable after the next commit`, key);
      },
    });
  }

  app.get(
    '/collections/:collection/documents',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Read a document as pushed',
        description:
          'The staged version when there is one (committed: false), else the committed one. Metadata holds only what the push set, plus the received time. An absent key answers 200 with pushContent null (as the original does).',
        params: COLLECTION_PARAMS,
        querystring: KEY_QUERY,
        response: { 200: DOCUMENT_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const collection = manager.collection(request.params.collection);
      const view = await collection.getDocument(request.query.key);
      // compat: the original answers an absent key with 200 and a null pushContent, and real
      // clients treat any other status as a failure.
      return view ?? { key: canonicalizeKey(request.query.key), pushContent: null };
    },
  );

  app.delete(
    '/collections/:collection/documents',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Delete a document',
        description:
          'Staged: the document leaves search results at the next commit. Answers 200 also when the key was absent.',
        params: COLLECTION_PARAMS,
        querystring: KEY_QUERY,
        response: { 200: STORED_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const key = await manager.collection(request.params.collection).deleteDocument(request.query.key);
      return stored(`document ${key} deleted; gone from searches after the next commit`, key);
    },
  );

  app.put(
    '/collections/:collection/redirects',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Make a key redirect to another',
        description:
          'Staged. The key is no result of its own; links and anchor text aimed at it count for the target. Replaces content or a redirect at the key.',
        params: COLLECTION_PARAMS,
        querystring: REDIRECT_QUERY,
        response: { 200: STORED_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const key = await manager
        .collection(request.params.collection)
        .putRedirect(request.query.key, request.query.target);
      return stored(`redirect from ${key} stored; live after the next commit`, key);
    },
  );

  app.delete(
    '/collections/:collection/redirects',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Remove a redirect',
        description:
          'Staged. Removes whatever is stored at the key (redirect or document), like the document DELETE.',
        params: COLLECTION_PARAMS,
        querystring: KEY_QUERY,
        response: { 200: STORED_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const key = await manager.collection(request.params.collection).deleteDocument(request.query.key);
      return stored(`redirect at ${key} removed; effective after the next commit`, key);
    },
  );
}

function stored(message: string, key: string): { message: string; storedKeys: string[] } {
  return { message, storedKeys: [key] };
}
