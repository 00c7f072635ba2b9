import type { CollectionManager } from '../../collection/collection-manager.js';
import { COLLECTION_PARAMS, ERROR_RESPONSES, MESSAGE_RESPONSE } from '../common-schemas.js';
import { PUSH_TAGS, type PushApp } from './push-app.js';

export const SNAPSHOT_PARAMS = {
  type: 'object',
  properties: {
    collection: { type: 'string', description: 'Collection name.' },
    name: { type: 'string', description: 'Snapshot name: letters, digits, ".", "_", "-".' },
  },
  required: ['collection', 'name'],
} as const;

const SNAPSHOT = {
  type: 'object',
  additionalProperties: false,
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
  additionalProperties: false,
  properties: { snapshots: { type: 'array', items: SNAPSHOT } },
  required: ['snapshots'],
} as const;

/**
 * Snapshots (create, list, delete) and restore from one. Only creation starts the
 * collection: list, delete and restore work on a STOPPED or FAILED collection, which is when
 * an operator needs them (restore requires STOPPED).
 */
export function snapshotRoutes(app: PushApp, manager: CollectionManager): void {
  app.put(
    '/collections/:collection/snapshot/:name',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Snapshot the last commit',
        description:
          'Hard links of the files of the last commit into data/{collection}/snapshot/{name}. 409 when the name is taken.',
        params: SNAPSHOT_PARAMS,
        response: { 200: SNAPSHOT_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => manager.collection(request.params.collection).createSnapshot(request.params.name),
  );

  app.get(
    '/collections/:collection/snapshot',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'List snapshots',
        description: 'Does not start the collection.',
        params: COLLECTION_PARAMS,
        response: { 200: SNAPSHOT_LIST_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => ({ snapshots: manager.collection(request.params.collection).listSnapshots() }),
  );

  app.delete(
    '/collections/:collection/snapshot/:name',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Delete a snapshot',
        description: 'Does not start the collection.',
        params: SNAPSHOT_PARAMS,
        response: { 200: MESSAGE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      manager.collection(request.params.collection).deleteSnapshot(request.params.name);
      return { message: `snapshot ${request.params.name} deleted` };
    },
  );

  app.post(
    '/collections/:collection/restore/from-snapshot/:name',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Replace the live index by a snapshot',
        description:
          'Needs the collection STOPPED (POST state/stop first; 409 otherwise). Staged changes are discarded; the next request starts the collection on the snapshot.',
        params: SNAPSHOT_PARAMS,
        response: { 200: MESSAGE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { collection, name } = request.params;
      await manager.collection(collection).restoreSnapshot(name);
      return {
        message: `collection ${collection} restored from snapshot ${name}; the next request starts it`,
      };
    },
  );
}
