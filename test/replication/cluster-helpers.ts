/**
 * Real servers on loopback for the replication suites: each server is
 * `node dist/src/cli/main.js serve` on its own home and a port chosen once, so that it can be
 * killed and started again where its query processors expect it.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { addCollectionCfg, writeGlobalCfg } from '../http/helpers.js';
import { requestAsAdmin, spawnServer, type AdminAnswer } from '../support/server-process.js';

/** A free loopback port (closed again: the server binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One server of a cluster: its home, port and (while it runs) its process. */
export class ClusterServer {
  child: ChildProcess | undefined;
  exited: Promise<number | null> = Promise.resolve(null);
  readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  constructor(
    readonly name: string,
    readonly home: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the server; resolves once it listens. */
  async start(): Promise<void> {
    try {
      const { child, exited } = await spawnServer(this.home, { port: this.port });
      this.child = child;
      this.exited = exited;
    } catch (error) {
      throw new Error(`${this.name}: ${(error as Error).message}`);
    }
  }

  /** SIGKILL; resolves once the process is gone. */
  async kill(): Promise<void> {
    this.child?.kill('SIGKILL');
    await this.exited;
    this.child = undefined;
    // Connections to the dead process must not be reused.
    this.agent.destroy();
    (this as { agent: http.Agent }).agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  }

  /** SIGTERM (a clean stop); resolves once the process is gone. */
  async stop(): Promise<void> {
    if (this.child === undefined) return;
    this.child.kill('SIGTERM');
    await this.exited;
    this.child = undefined;
    this.agent.destroy();
  }

  /** One request as the admin user; a body is sent as text/plain. */
  request(method: string, path: string, body?: string): Promise<AdminAnswer> {
    return requestAsAdmin(this.port, this.agent, method, path, body);
  }

  /** A request that must answer `status` (the body is parsed as JSON). */
  async json<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: string,
    status = 200,
  ): Promise<T> {
    const answer = await this.request(method, path, body);
    if (answer.status !== status)
      throw new Error(
        `${this.name}: ${method} ${path} answered ${answer.status}, not ${status}: ${answer.body}`,
      );
    return JSON.parse(answer.body) as T;
  }
}

/** What each server of a cluster is: an admin, or a query processor of `master`. */
export interface ServerPlan {
  name: string;
  /** The master's server (its URL goes into push.replication.master-url); none: an admin. */
  master?: ClusterServer;
  /** global.cfg's server_secret (default the cluster's). */
  secret?: string;
  collectionCfg?: string[];
}

/** Homes and ports of a cluster (servers not started), all with collection `collection`. */
export class Cluster {
  readonly root = mkdtempSync(join(tmpdir(), 'pushsearch-cluster-'));
  readonly servers: ClusterServer[] = [];

  constructor(
    readonly collection: string,
    readonly secret: string,
  ) {}

  async add(plan: ServerPlan): Promise<ClusterServer> {
    const home = join(this.root, plan.name);
    mkdirSync(join(home, 'conf'), { recursive: true });
    writeClusterGlobalCfg(home, plan.secret ?? this.secret);
    const manager = new CollectionManager(new SearchHome(home), silentPushLog());
    manager.create(this.collection, 'push');
    const lines = [
      // Commits only when the test asks: what travels is exactly what it committed.
      'push.auto-commit.timeout-seconds=0',
      'push.auto-commit.max-changes=0',
      ...(plan.master === undefined
        ? []
        : ['push.initial-mode=SLAVE', `push.replication.master-url=${plan.master.url}`]),
      ...(plan.collectionCfg ?? []),
    ];
    addCollectionCfg(home, this.collection, lines);
    const server = new ClusterServer(plan.name, home, await freePort());
    this.servers.push(server);
    return server;
  }

  /** Kills whatever still runs and removes the homes. */
  async close(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.kill().catch(() => undefined)));
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** global.cfg of a cluster server: the shared secret, one search thread, one worker thread. */
export function writeClusterGlobalCfg(home: string, secret: string): void {
  writeGlobalCfg(home, [
    `server_secret=${secret}`,
    'search.thread-count=1',
    'push.worker-thread-count=1',
    'search.timeout-ms=20000',
  ]);
}
