import type { FastifyInstance } from 'fastify';
import type { CollectionManager } from '../collection/collection-manager.js';
import type { ByteBudget } from './byte-budget.js';
import { buildApp, type BuildAppOptions } from './build-app.js';

/** Options of {@link startServer}. */
export interface StartServerOptions extends BuildAppOptions {
  /** TCP port; 0 picks a free one (see {@link RunningServer.url}). Default 8080. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /**
   * Install SIGTERM/SIGINT handlers that shut down gracefully and exit the process with 0
   * (the CLI does; tests and embedders usually do not). Default false.
   */
  handleSignals?: boolean;
  /** Longest a graceful shutdown may take before the process exits with 1. Default 60 s. */
  shutdownTimeoutMs?: number;
}

/** A listening server. */
export interface RunningServer {
  app: FastifyInstance;
  manager: CollectionManager;
  /** The document body budget (gauges for stats and tests). */
  bodyBudget: ByteBudget;
  /** `http://host:port` it listens on. */
  url: string;
  port: number;
  /**
   * Graceful shutdown: stops accepting connections, lets in-flight requests finish (idle
   * keep-alive connections are closed, new requests on busy ones get 503), then stops every
   * collection: staged changes stay in the journal, nothing is committed that no client
   * asked for. Idempotent.
   */
  close(): Promise<void>;
}

/** Builds the app and listens. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { app, manager, bodyBudget } = await buildApp(options);
  await app.listen({ port: options.port ?? 8080, host: options.host ?? '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 8080);
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | undefined;
  let removeSignalHandlers = (): void => {};
  const close = (): Promise<void> => (closing ??= app.close().finally(() => removeSignalHandlers()));

  if (options.handleSignals === true) {
    const timeoutMs = options.shutdownTimeoutMs ?? 60_000;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (closing !== undefined) {
        // A second signal: the operator does not want to wait.
        app.log.warn({ signal }, 'second signal during shutdown: exiting now');
        process.exit(1);
      }
      app.log.info({ signal }, 'shutting down: finishing in-flight requests, then closing collections');
      const timer = setTimeout(() => {
        app.log.error({ timeoutMs }, 'shutdown took too long: exiting');
        process.exit(1);
      }, timeoutMs);
      timer.unref();
      close().then(
        () => {
          app.log.info('shut down cleanly');
          process.exit(0);
        },
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    removeSignalHandlers = () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    };
  }

  return { app, manager, bodyBudget, url, port, close };
}
