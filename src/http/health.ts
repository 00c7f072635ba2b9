import type { FastifyInstance } from 'fastify';
import type { CollectionManager } from '../collection/collection-manager.js';
import type { CollectionStateView } from '../collection/push-collection.js';

/** Options of the {@link healthRoutes} plugin. */
export interface HealthRoutesOptions {
  manager: CollectionManager;
}

/** A push collection that keeps the installation from being ready. */
export interface UnreadyCollection {
  collection: string;
  state: 'STARTING' | 'FAILED';
  /** Why it failed (FAILED only). */
  reason?: string;
  /** The index file found corrupt, when that is the reason. */
  file?: string;
}

/** Body of `GET /ready`. */
export interface ReadyAnswer {
  status: 'ready' | 'not ready';
  collections: UnreadyCollection[];
}

/**
 * The push collections that are STARTING or FAILED, read from `stateView()` (which never
 * starts a collection). STOPPED ones are not counted: collections start on their first
 * request, so an installation with idle collections is ready.
 */
export function unreadyCollections(manager: CollectionManager): UnreadyCollection[] {
  const unready: UnreadyCollection[] = [];
  for (const name of manager.names()) {
    let view: CollectionStateView;
    try {
      if (manager.typeOf(name) !== 'push') continue;
      view = manager.collection(name).stateView();
    } catch {
      continue; // deleted while we listed
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

/**
 * Probes for load balancers and orchestrators, public (no user), never starting a collection:
 * - `GET /health` (liveness): 200 `{"status":"ok"}` whenever the event loop answers.
 * - `GET /ready` (readiness): 200 when every push collection that is not STOPPED is RUNNING,
 *   else 503 with the collections STARTING or FAILED (with the reason and, for a corrupt
 *   index, the file). A FAILED collection stays listed until it is stopped (POST state/stop)
 *   or starts successfully.
 */
export async function healthRoutes(app: FastifyInstance, options: HealthRoutesOptions): Promise<void> {
  const { manager } = options;
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
        summary: 'Readiness: 200 when no push collection is STARTING or FAILED',
        description:
          'Answers {"status": "ready" | "not ready", "collections": [{collection, state, reason?, file?}]}: 503 lists the collections STARTING or FAILED.',
      },
    },
    async (_request, reply): Promise<ReadyAnswer> => {
      const collections = unreadyCollections(manager);
      void reply.header('cache-control', 'no-store');
      if (collections.length > 0) {
        void reply.code(503);
        return { status: 'not ready', collections };
      }
      return { status: 'ready', collections };
    },
  );
}
