import type { CollectionManager } from '../../collection/collection-manager.js';
import { SearchError } from '../../errors.js';
import { COLLECTION_PARAMS, ERROR_RESPONSES } from '../common-schemas.js';
import { VACUUM_PROGRESS } from './commit-and-vacuum.js';
import { PUSH_TAGS, type PushApp } from './push-app.js';

export const STATE_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  properties: {
    collection: { type: 'string' },
    state: { type: 'string', enum: ['STOPPED', 'STARTING', 'RUNNING', 'STOPPING', 'FAILED'] },
    mode: {
      type: 'string',
      enum: ['DEFAULT', 'SLAVE'],
      description: 'DEFAULT takes changes; SLAVE is a read-only query processor syncing from its master.',
    },
    master: { type: 'string', description: "A query processor's master (push.replication.master-url)." },
    reason: {
      type: 'string',
      description: 'Why the collection is FAILED, or why it does not run (push.run=false).',
    },
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
  additionalProperties: false,
  properties: {
    state: { type: 'string', enum: ['IN_PROGRESS', 'PREPARED'] },
    error: { type: 'string', description: 'A collection that could not be committed during preparation.' },
  },
  required: ['state'],
} as const;

/**
 * A collection's state and stop (neither starts the collection), and the installation-wide
 * upgrade preparation.
 */
export function stateAndUpgradeRoutes(app: PushApp, manager: CollectionManager): void {
  app.get(
    '/collections/:collection/state',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Collection state',
        description:
          'STOPPED, STARTING, RUNNING, STOPPING or FAILED (with the reason); counts and vacuum progress while running. Does not start the collection.',
        params: COLLECTION_PARAMS,
        response: { 200: STATE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => manager.collection(request.params.collection).stateView(),
  );

  app.post(
    '/collections/:collection/state/stop',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Stop the collection',
        description:
          'Waits for running requests, closes the index and journal: STOPPED. Staged changes stay durable. Any other push request starts it again.',
        params: COLLECTION_PARAMS,
        response: { 200: STATE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const collection = manager.collection(request.params.collection);
      await collection.stop();
      return collection.stateView();
    },
  );

  app.post(
    '/upgrade/prepare',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Prepare the installation for an upgrade',
        description:
          'Writes refused (503 + Retry-After), every collection committed, merges finished, files synced. In memory only: a restart undoes it.',
        response: { 200: UPGRADE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async () => manager.prepareUpgrade(),
  );

  app.post(
    '/upgrade/prepare/status',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Upgrade preparation status',
        description: '503 UPGRADE_NOT_STARTED until prepare was called; then IN_PROGRESS or PREPARED.',
        response: { 200: UPGRADE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async () => {
      const status = manager.upgradeStatus();
      if (status === undefined) {
        throw new SearchError(
          'UPGRADE_NOT_STARTED',
          'the upgrade preparation has not been started: POST /push-api/v1/upgrade/prepare first',
        );
      }
      return status;
    },
  );
}
