import type { FastifyInstance } from 'fastify';
import type { CollectionManager } from '../collection/collection-manager.js';
import { errorForLog } from '../collection/push-log.js';
import type { InitialAdmin } from '../security/initial-admin.js';
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
  /**
   * Install handlers for an uncaught exception or an unhandled promise rejection. Either is a
   * bug, and the process may be in a state nobody planned for. The error is written to the
   * server log and to `web/log/push.log`. The server then shuts down as it does on SIGTERM
   * and exits with 1, so that a supervisor restarts it and the journal is replayed. Without
   * these handlers Node prints the stack to stderr and exits at once, and the log never shows
   * why. The CLI sets this; embedders keep their own policy. Default false.
   */
  handleFatalErrors?: boolean;
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
  /** What the start did about the first user and `SEARCH_ADMIN_PASSWORD`. */
  initialAdmin: InitialAdmin;
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
  const { app, manager, bodyBudget, initialAdmin } = await buildApp(options);
  try {
    await app.listen({ port: options.port ?? 8080, host: options.host ?? '127.0.0.1' });
  } catch (error) {
    // E.g. the port is taken: give the home back (collections, lock) before reporting it.
    await app.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 8080);
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | undefined;
  const removers: (() => void)[] = [];
  const close = (): Promise<void> =>
    (closing ??= app.close().finally(() => {
      for (const remove of removers) remove();
    }));
  const listen = <A extends unknown[]>(event: string, handler: (...args: A) => void): void => {
    process.on(event, handler as (...args: unknown[]) => void);
    removers.push(() => process.off(event, handler as (...args: unknown[]) => void));
  };

  /** Closes gracefully and exits: with `exitCode` when the close succeeds, 1 when it fails or takes too long. */
  const shutDownAndExit = (exitCode: number): void => {
    const timeoutMs = options.shutdownTimeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      app.log.error({ timeoutMs }, 'shutdown took too long: exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    close().then(
      () => {
        app.log.info('shut down cleanly');
        process.exit(exitCode);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };

  if (options.handleSignals === true) {
    const onSignal = (signal: NodeJS.Signals): void => {
      if (closing !== undefined) {
        // A second signal: the operator does not want to wait.
        app.log.warn({ signal }, 'second signal during shutdown: exiting now');
        process.exit(1);
      }
      app.log.info({ signal }, 'shutting down: finishing in-flight requests, then closing collections');
      shutDownAndExit(0);
    };
    listen('SIGTERM', onSignal);
    listen('SIGINT', onSignal);
  }

  if (options.handleFatalErrors === true) {
    const onFatal = (kind: string, error: unknown): void => {
      const message = `${kind}: shutting down`;
      app.log.fatal({ err: error }, message);
      manager.log.fatal({ err: errorForLog(error) }, message);
      // A second one while closing: the close itself may be what fails.
      if (closing !== undefined) process.exit(1);
      shutDownAndExit(1);
    };
    listen('uncaughtException', (error: unknown) => onFatal('uncaught exception', error));
    listen('unhandledRejection', (reason: unknown) => onFatal('unhandled promise rejection', reason));
  }

  return { app, manager, bodyBudget, url, port, close, initialAdmin };
}
