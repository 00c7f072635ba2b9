import type { CollectionManager } from '../../collection/collection-manager.js';
import { COLLECTION_PARAMS, ERROR_RESPONSES } from '../common-schemas.js';
import { PUSH_TAGS, type PushApp } from './push-app.js';

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

export const COMMIT_RESPONSE = {
  type: 'object',
  additionalProperties: false,
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

/** Progress of a vacuum, also shown by the state call. */
export const VACUUM_PROGRESS = {
  type: 'object',
  additionalProperties: false,
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

/** Answer of `POST .../click-logs`. */
export const CLICK_LOGS_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  properties: {
    message: { type: 'string' },
    clicksProcessed: { type: 'integer', description: 'Clicks counted by this run (none twice).' },
    documentsUpdated: { type: 'integer', description: 'Documents re-indexed with new click evidence.' },
  },
  required: ['message', 'clicksProcessed', 'documentsUpdated'],
} as const;

/**
 * Commit (staged changes become searchable), vacuum (MERGE or RE_INDEX) and click-log
 * processing (ranking evidence; see src/collection/evidence/collection-evidence.ts).
 */
export function commitAndVacuumRoutes(app: PushApp, manager: CollectionManager): void {
  app.post(
    '/collections/:collection/commit',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Make staged changes searchable',
        description:
          'wait=true (default): 200 once the new generation is live. wait=false: 202 at once. 503 GENERATION_LIMIT when merging failed and the generation limit is reached.',
        params: COLLECTION_PARAMS,
        querystring: COMMIT_QUERY,
        response: { 200: COMMIT_RESPONSE, 202: COMMIT_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const wait = request.query.wait;
      const result = await manager.collection(request.params.collection).commit(wait, request.id);
      if (!wait) {
        reply.code(202);
        return { message: 'commit started', changes: result.changes };
      }
      return { generation: result.generation, manifest: result.manifest, changes: result.changes };
    },
  );

  app.post(
    '/collections/:collection/vacuum',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Merge generations or re-index every document',
        description:
          'MERGE: all generations into one, killed documents dropped. RE_INDEX: every stored document indexed again under the current configuration (after a metadata mapping change). Progress is in the state call.',
        params: COLLECTION_PARAMS,
        querystring: VACUUM_QUERY,
        response: { 200: VACUUM_PROGRESS, 202: VACUUM_PROGRESS, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { wait } = request.query;
      const progress = await manager
        .collection(request.params.collection)
        .vacuum(request.query['vacuum-type'], wait, request.id);
      if (!wait) reply.code(202);
      return progress;
    },
  );

  app.post(
    '/collections/:collection/click-logs',
    {
      schema: {
        tags: PUSH_TAGS,
        summary: 'Process the click logs now',
        description:
          'Counts the clicks logged since the last run (otherwise processed every push.click-logs.interval-seconds, hourly by default): a clicked result rises for the queries that led to it and, more weakly, for every query; clicks lose half their weight every push.click-logs.half-life-days (30). Answers once the documents with new click evidence are re-indexed and committed. Processing twice counts nothing twice.',
        params: COLLECTION_PARAMS,
        response: { 200: CLICK_LOGS_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const result = await manager.collection(request.params.collection).processClickLogs();
      return {
        message: `${result.clicksProcessed} clicks processed; ${result.documentsUpdated} documents re-indexed`,
        clicksProcessed: result.clicksProcessed,
        documentsUpdated: result.documentsUpdated,
      };
    },
  );
}
