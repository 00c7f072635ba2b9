/**
 * JSON schemas of the push API routes: they validate parameters, serialise responses (only
 * the listed properties are sent), and are the source the OpenAPI document is generated
 * from. Every route schema has `tags`, `summary` and `description` for that document.
 */

const ERROR_BODY = {
  type: 'object',
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

export const SNAPSHOT_PARAMS = {
  type: 'object',
  properties: {
    collection: { type: 'string', description: 'Collection name.' },
    name: { type: 'string', description: 'Snapshot name: letters, digits, ".", "_", "-".' },
  },
  required: ['collection', 'name'],
} as const;

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

export const COMMIT_QUERY = {
  type: 'object',
  properties: {
    wait: {
      type: 'boolean',
      default: true,
      description: 'true: answer once the new generation is live; false: answer 202 at once.',
    },
  },
} as const;

export const VACUUM_QUERY = {
  type: 'object',
  properties: {
    'vacuum-type': {
      type: 'string',
      enum: ['MERGE', 'RE_INDEX'],
      description:
        'MERGE: all generations into one. RE_INDEX: every document indexed again under the current configuration.',
    },
    wait: {
      type: 'boolean',
      default: true,
      description: 'true: answer when done; false: answer 202 at once (progress in the state call).',
    },
  },
  required: ['vacuum-type'],
} as const;

export const STORED_RESPONSE = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    storedKeys: { type: 'array', items: { type: 'string' }, description: 'The canonical keys changed.' },
  },
  required: ['message', 'storedKeys'],
} as const;

export const MESSAGE_RESPONSE = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
} as const;

const METADATA_MAP = {
  type: 'object',
  description: 'Metadata name → values, as pushed (plus X-Service-Push-Received-Time).',
  additionalProperties: { type: 'array', items: { type: 'string' } },
} as const;

export const DOCUMENT_RESPONSE = {
  type: 'object',
  properties: {
    key: { type: 'string', description: 'The canonical key.' },
    pushContent: {
      type: ['object', 'null'],
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

export const COMMIT_RESPONSE = {
  type: 'object',
  properties: {
    generation: {
      type: ['integer', 'null'],
      description: 'The generation written (null when nothing was staged).',
    },
    manifest: { type: 'integer' },
    changes: {
      type: 'integer',
      description: 'Staged changes made searchable (wait=true) or being committed (wait=false).',
    },
    message: { type: 'string' },
  },
  required: ['changes'],
} as const;

const VACUUM_PROGRESS = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['MERGE', 'RE_INDEX'] },
    state: { type: 'string', enum: ['RUNNING', 'DONE', 'FAILED'] },
    done: { type: 'integer' },
    total: { type: 'integer' },
    startedAt: { type: 'string' },
    finishedAt: { type: 'string' },
    error: { type: 'string' },
  },
  required: ['type', 'state', 'done', 'total', 'startedAt'],
} as const;

export const VACUUM_RESPONSE = VACUUM_PROGRESS;

const SNAPSHOT = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    manifest: { type: 'integer', description: 'The manifest (commit) the snapshot holds.' },
    documents: { type: 'integer' },
    created: { type: 'string' },
    bytes: { type: 'integer' },
  },
  required: ['name', 'manifest', 'documents', 'created', 'bytes'],
} as const;

export const SNAPSHOT_RESPONSE = SNAPSHOT;

export const SNAPSHOT_LIST_RESPONSE = {
  type: 'object',
  properties: { snapshots: { type: 'array', items: SNAPSHOT } },
  required: ['snapshots'],
} as const;

export const STATE_RESPONSE = {
  type: 'object',
  properties: {
    collection: { type: 'string' },
    state: { type: 'string', enum: ['STOPPED', 'STARTING', 'RUNNING', 'STOPPING', 'FAILED'] },
    reason: { type: 'string', description: 'Why the collection is FAILED.' },
    file: { type: 'string', description: 'The file that made it FAILED, when one did.' },
    documents: { type: 'integer' },
    stagedChanges: { type: 'integer' },
    generations: { type: 'integer' },
    lastCommitTime: { type: ['string', 'null'] },
    mergesRunning: { type: 'integer' },
    vacuum: VACUUM_PROGRESS,
    stats: {
      type: 'object',
      additionalProperties: true,
      description: 'Tot* counters and Cur* gauges of the index and journal.',
    },
  },
  required: ['collection', 'state'],
} as const;

export const UPGRADE_RESPONSE = {
  type: 'object',
  properties: {
    state: { type: 'string', enum: ['IN_PROGRESS', 'PREPARED'] },
    error: { type: 'string', description: 'A collection that could not be committed during preparation.' },
  },
  required: ['state'],
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

/** Answer of `POST .../click-logs`. */
export const CLICK_LOGS_RESPONSE = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    clicksProcessed: { type: 'integer', description: 'Clicks counted by this run (none twice).' },
    documentsUpdated: { type: 'integer', description: 'Documents re-indexed with new click evidence.' },
  },
  required: ['message', 'clicksProcessed', 'documentsUpdated'],
} as const;
