import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { isSearchError } from '../../src/errors.js';
import { statusForCode } from '../../src/error-status.js';
import { replicationRoutes, type ReplicationRoutesOptions } from '../../src/http/replication-routes.js';
import { REPLICATION_PREFIX } from '../../src/replication/sync-client.js';
import type { ReplicaIndex } from '../../src/replication/replica-index.js';
import type { Searcher } from '../../src/index/searcher.js';
import { executeQuery } from '../../src/query/execute-query.js';
import type { Query } from '../../src/query/query-tree.js';

const folders: string[] = [];

export function tempFolder(prefix = 'pushsearch-repl-'): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  folders.push(folder);
  return folder;
}

export function removeTempFolders(): void {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

/** A real HTTP server on loopback answering the master routes, errors in the contract's form. */
export async function serveMaster(
  options: ReplicationRoutesOptions,
): Promise<{ app: FastifyInstance; url: string; requests: { url: string; range?: string }[] }> {
  const app = Fastify();
  const requests: { url: string; range?: string }[] = [];
  app.addHook('onRequest', (request, _reply, done) => {
    requests.push({
      url: request.url,
      ...(request.headers.range !== undefined ? { range: request.headers.range } : {}),
    });
    done();
  });
  app.setErrorHandler((error, _request, reply) => {
    const code = isSearchError(error)
      ? error.code
      : (error as { statusCode?: number }).statusCode === 400
        ? 'REQUEST_INVALID'
        : 'INTERNAL';
    const status = statusForCode(code);
    void reply.code(status).send({ status, error: code, message: (error as Error).message });
  });
  await app.register(replicationRoutes, { ...options, prefix: REPLICATION_PREFIX });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, requests };
}

/** Resolves once `condition` holds, checked after every install of `replica` (and now). */
export function untilInstalled(
  replica: ReplicaIndex,
  condition: () => boolean,
  timeoutMs = 30_000,
  describe: () => string = () => '',
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (condition()) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`not reached within ${timeoutMs} ms ${describe()}`));
    }, timeoutMs);
    const off = replica.onInstall(() => {
      if (!condition()) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

/** Keys and scores of a query's top 50, in order. */
export function answer(searcher: Searcher, query: Query): [string, number][] {
  const found = executeQuery(searcher.generations, query, { k: 50, totalHitsThreshold: Infinity });
  return found.hits.map((hit) => [searcher.stored(hit.generationIndex, hit.docId).$key as string, hit.score]);
}
