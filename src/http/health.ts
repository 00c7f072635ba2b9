import type { FastifyInstance } from 'fastify';
import type { CollectionManager } from '../collection/collection-manager.js';
import type { CollectionState, CollectionStateView } from '../collection/push-collection.js';

/** Options of the {@link healthRoutes} plugin. */
export interface HealthRoutesOptions {
  manager: CollectionManager;
  /**
   * `replication.ready-max-lag-seconds` of global.cfg: a query processor further behind its
   * master than this (or failing to sync) makes `/ready` answer 503. Undefined: lag is not
   * checked unless the request asks (`/ready?max-lag-seconds=`).
   */
  maxLagSeconds?: number;
  /** Makes paths in failure reasons relative to the home (the probes are public); default: none. */
  hidePaths?: (text: string) => string;
}

/** A collection that keeps the installation from being ready. */
export interface UnreadyCollection {
  collection: string;
  /**
   * STARTING, FAILED, or LAGGING (a query processor further behind its master than the
   * allowed lag); absent for a meta collection whose configuration is broken.
   */
  state?: CollectionState | 'LAGGING';
  /** Why it failed, how far behind it is, or why its configuration does not load. */
  reason?: string;
  /** `COLLECTION_CONFIG_BROKEN` when the collection's configuration files on disk do not load. */
  error?: 'COLLECTION_CONFIG_BROKEN';
  /** The index file found corrupt, when that is the reason. */
  file?: string;
}

/** Body of `GET /ready`. */
export interface ReadyAnswer {
  status: 'ready' | 'not ready';
  collections: UnreadyCollection[];
}

/**
 * The collections whose configuration on disk does not load (they answer 503 until it is
 * fixed), and the push collections that are STARTING or FAILED, read from `stateView()`
 * (which never starts a collection). STOPPED ones are not counted otherwise: collections
 * start on their first request, so an installation with idle collections is ready.
 */
export function unreadyCollections(manager: CollectionManager, maxLagSeconds?: number): UnreadyCollection[] {
  const unready: UnreadyCollection[] = [];
  for (const name of manager.names()) {
    const broken = brokenConfiguration(manager, name);
    if (broken !== undefined) {
      unready.push(broken);
      continue;
    }
    let view: CollectionStateView;
    try {
      if (manager.typeOf(name) !== 'push') continue;
      view = manager.collection(name).stateView();
    } catch {
      continue; // deleted while we listed
    }
    if (maxLagSeconds !== undefined && view.mode === 'SLAVE' && view.state === 'RUNNING') {
      const lagging = laggingReason(manager, name, maxLagSeconds);
      if (lagging !== undefined) unready.push({ collection: name, state: 'LAGGING', reason: lagging });
      continue;
    }
    if (view.state !== 'STARTING' && view.state !== 'FAILED') continue;
    unready.push({
      collection: name,
      state: view.state,
      ...(view.reason !== undefined ? { reason: view.reason } : {}),
      ...(view.file !== undefined ? { file: view.file } : {}),
    });
  }
  return unready;
}

/** Why a running query processor is too far behind, or undefined when it is not. */
function laggingReason(manager: CollectionManager, name: string, maxLagSeconds: number): string | undefined {
  let sync;
  try {
    sync = manager.collection(name).syncState();
  } catch {
    return undefined;
  }
  if (sync.state === 'STOPPED') return undefined; // stopped on purpose: it serves what it has
  if (sync.lastSyncedGeneration === null) return 'it has installed nothing from its master yet';
  if (sync.lagSeconds > maxLagSeconds)
    return `${sync.lagSeconds} s behind its master (at most ${maxLagSeconds} s allowed)${
      sync.lastError === null ? '' : `; last error: ${sync.lastError.message}`
    }`;
  return undefined;
}

/** Reads `max-lag-seconds` of a `/ready` request: a whole number of seconds, or undefined. */
function lagParameter(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) return undefined;
  return Number(value);
}

/** The collection's entry when its settings do not load (cached when they do, so this is cheap). */
function brokenConfiguration(manager: CollectionManager, name: string): UnreadyCollection | undefined {
  try {
    manager.settings.get(name);
    return undefined;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'COLLECTION_CONFIG_BROKEN') return undefined;
    let state: CollectionState | undefined;
    try {
      state = manager.collection(name).stateView().state;
    } catch {
      state = undefined; // a meta collection, or deleted while we listed
    }
    return {
      collection: name,
      ...(state !== undefined ? { state } : {}),
      reason: (error as Error).message,
      error: 'COLLECTION_CONFIG_BROKEN',
    };
  }
}

/**
 * Probes for load balancers and orchestrators, public (no user), never starting a collection:
 * - `GET /health` (liveness): 200 `{"status":"ok"}` whenever the event loop answers.
 * - `GET /ready` (readiness): 200 when every push collection that is not STOPPED is RUNNING
 *   and every collection's configuration loads, else 503 with the collections STARTING,
 *   FAILED or with a broken configuration (with the reason and, for a corrupt index, the file). A FAILED collection stays listed until it is stopped (POST state/stop)
 *   or starts successfully. On a query processor, with `?max-lag-seconds=N` or
 *   `replication.ready-max-lag-seconds` of global.cfg, a collection further behind its master
 *   (or that has installed nothing yet) is listed as LAGGING, so that a load balancer takes
 *   the server out until it caught up.
 */
export async function healthRoutes(app: FastifyInstance, options: HealthRoutesOptions): Promise<void> {
  const { manager, maxLagSeconds } = options;
  const hidePaths = options.hidePaths ?? ((text: string) => text);
  const tags = ['operations'];

  app.get(
    '/health',
    { schema: { tags, summary: 'Liveness: 200 while the server answers' } },
    async (_request, reply) => {
      void reply.header('cache-control', 'no-store');
      return { status: 'ok' };
    },
  );

  app.get(
    '/ready',
    {
      schema: {
        tags,
        summary: 'Readiness: 200 when no push collection is STARTING, FAILED or (query processors) LAGGING',
        description:
          'Answers {"status": "ready" | "not ready", "collections": [{collection, state?, reason?, file?, error?}]}: 503 lists the collections STARTING, FAILED or LAGGING, and those whose configuration files do not load (error COLLECTION_CONFIG_BROKEN, reason: the file and line or key to fix). LAGGING: a query processor further behind its master than max-lag-seconds (the parameter, else replication.ready-max-lag-seconds of global.cfg; unchecked without either).',
        querystring: {
          type: 'object',
          properties: {
            'max-lag-seconds': {
              type: 'string',
              pattern: '^[0-9]{1,9}$',
              description: 'Most seconds a query processor may be behind its master and still be ready.',
            },
          },
        },
      },
    },
    async (request, reply): Promise<ReadyAnswer> => {
      const asked = lagParameter((request.query as Record<string, unknown>)['max-lag-seconds']);
      const collections = unreadyCollections(manager, asked ?? maxLagSeconds).map((unready) =>
        unready.reason === undefined ? unready : { ...unready, reason: hidePaths(unready.reason) },
      );
      void reply.header('cache-control', 'no-store');
      if (collections.length > 0) {
        void reply.code(503);
        return { status: 'not ready', collections };
      }
      return { status: 'ready', collections };
    },
  );
}
