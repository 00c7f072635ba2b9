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

export const SNAPSHOT_RESPONSE = {
  ...SNAPSHOT,
  properties: {
    ...SNAPSHOT.properties,
    folder: { type: 'string', description: 'Where the snapshot is, relative to SEARCH_HOME.' },
    note: { type: 'string', description: 'What it takes for the snapshot to be a backup.' },
  },
  required: [...SNAPSHOT.required, 'folder', 'note'],
} as const;

/** Said with every snapshot created, and in docs/push-api.md. */
export const SNAPSHOT_NOTE =
  'a snapshot is a backup only once copied away: its files are hard links to the live index files, ' +
  'so damage to a live file (a disk error, an edit in place) damages the snapshot too; copy the folder ' +
  'to other storage, and check a snapshot with GET .../snapshot/{name}/verify';

const SNAPSHOT_VERIFY_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    ok: { type: 'boolean', description: 'true when every file is present and intact.' },
    manifest: {
      type: ['integer', 'null'],
      description: 'The manifest (commit) the snapshot holds; null when the manifest itself is damaged.',
    },
    files: { type: 'integer', description: 'Files checked (the manifest included).' },
    damaged: {
      type: 'array',
      description: 'Each file missing or damaged, with what is wrong with it.',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: { file: { type: 'string' }, problem: { type: 'string' } },
        required: ['file', 'problem'],
      },
    },
  },
  required: ['name', 'ok', 'manifest', 'files', 'damaged'],
} as const;

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
    async (request) => {
      const { collection, name } = request.params;
      const snapshot = await manager.collection(collection).createSnapshot(name);
      return { ...snapshot, folder: `data/${collection}/snapshot/${name}`, note: SNAPSHOT_NOTE };
    },
  );

  app.get(
    '/collections/:collection/snapshot/:name/verify',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Check every file of a snapshot',
        description:
          'Reads every file of the snapshot and checks it is present, has the right header and checksum; answers 200 with ok and each damaged file (ok=false when any is). Does not start the collection or touch live/. A snapshot shares its files with the live index (hard links), so a live file damaged in place damages the snapshot too: copy snapshots away to keep backups.',
        params: SNAPSHOT_PARAMS,
        response: { 200: SNAPSHOT_VERIFY_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => manager.collection(request.params.collection).verifySnapshot(request.params.name),
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
