import type { CollectionManager } from '../../collection/collection-manager.js';
import { COLLECTION_PARAMS, ERROR_RESPONSES } from '../common-schemas.js';
import { PUSH_TAGS, type PushApp } from './push-app.js';
import { STATE_RESPONSE } from './state-and-upgrade.js';

const MODE_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    mode: {
      type: 'string',
      enum: ['DEFAULT', 'SLAVE'],
      description:
        'DEFAULT: takes changes (an admin). SLAVE: read-only query processor syncing from push.replication.master-url.',
    },
  },
  required: ['mode'],
} as const;

/** Body of the sync state (`GET /sync/collections/{c}/state`). */
export const SYNC_STATE_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  properties: {
    collection: { type: 'string' },
    mode: { type: 'string', enum: ['DEFAULT', 'SLAVE'] },
    state: {
      type: 'string',
      enum: ['STOPPED', 'IN_SYNC', 'SYNCING', 'ERROR'],
      description:
        'STOPPED: no sync runs (see reason). IN_SYNC: the newest state of the master is installed. SYNCING: transferring a newer one. ERROR: the last attempt failed (lastError); retrying.',
    },
    reason: { type: 'string', description: 'Why the sync does not run, when it does not.' },
    master: { type: ['string', 'null'], description: 'push.replication.master-url.' },
    lastSyncedGeneration: {
      type: ['integer', 'null'],
      description:
        "Manifest number of the installed state (the admin's numbering; it goes back after a restore there).",
    },
    lastSyncedId: {
      type: ['string', 'null'],
      description: 'Id of the installed state (SHA-256 of the manifest and its files).',
    },
    lastCommitTime: {
      type: ['string', 'null'],
      description: "Commit time of the installed state (the admin's clock).",
    },
    lastSyncTime: { type: ['string', 'null'], description: 'When this server installed it.' },
    masterGeneration: {
      type: ['integer', 'null'],
      description: 'Newest manifest number the master announced.',
    },
    lagSeconds: {
      type: 'number',
      description: 'Seconds since the master published a state not installed here (0 when in sync).',
    },
    lagGenerations: { type: 'integer', description: 'Manifests behind the master (0 when in sync).' },
    bytesPulled: { type: 'integer', description: 'Bytes downloaded since the sync started.' },
    filesPulled: { type: 'integer' },
    lastContact: { type: ['string', 'null'], description: 'Last time the master answered.' },
    lastError: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { time: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
      description: 'The last failure (a wrong server_secret shows as SYNC_SIGNATURE_INVALID).',
    },
  },
  required: ['collection', 'mode', 'state', 'master', 'lagSeconds', 'lagGenerations'],
} as const;

/**
 * Replication as the push API shows it: a collection's mode (`POST .../mode?mode=`), and the
 * sync of a query processor (`/sync/collections/{c}/state`, `.../start`, `.../stop`). The
 * master side that query processors call is `replication-routes.ts` (signed, no user).
 */
export function replicationApiRoutes(app: PushApp, manager: CollectionManager): void {
  app.post(
    '/collections/:collection/mode',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Switch the collection between DEFAULT and SLAVE',
        description:
          'SLAVE: writes are refused from now on (409 COLLECTION_READ_ONLY naming the master), staged changes are committed, and the collection syncs from push.replication.master-url. DEFAULT: the state the query processor served becomes its live index and it takes changes again.',
        params: COLLECTION_PARAMS,
        querystring: MODE_QUERY,
        response: { 200: STATE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const collection = manager.collection(request.params.collection);
      await collection.setMode(request.query.mode);
      return collection.stateView();
    },
  );

  const syncState = (name: string) => ({ collection: name, ...manager.collection(name).syncState() });

  app.get(
    '/sync/collections/:collection/state',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: "A query processor's sync state",
        description:
          'State, master, last synced generation and commit time, lag (seconds and generations), bytes pulled, last error. Does not start the collection.',
        params: COLLECTION_PARAMS,
        response: { 200: SYNC_STATE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => syncState(request.params.collection),
  );

  app.post(
    '/sync/collections/:collection/state/start',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: "Start a query processor's sync",
        description:
          'Starts pulling from push.replication.master-url (kept across restarts). 409 WRONG_STATE for a collection in mode DEFAULT or without a master, 409 COLLECTION_DISABLED with push.run=false.',
        params: COLLECTION_PARAMS,
        response: { 200: SYNC_STATE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      await manager.collection(request.params.collection).startSync();
      return syncState(request.params.collection);
    },
  );

  app.post(
    '/sync/collections/:collection/state/stop',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: "Stop a query processor's sync",
        description:
          'Stops pulling (kept across restarts until started again); searches go on over the installed state.',
        params: COLLECTION_PARAMS,
        response: { 200: SYNC_STATE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      await manager.collection(request.params.collection).stopSync();
      return syncState(request.params.collection);
    },
  );
}
