import { startServer } from '../http/server.js';
import { noMore, type CliArgs } from './cli-options.js';
import { describeError, EXIT, UsageError } from './exit-codes.js';

const LOG_LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

/**
 * Starts the server; resolves with undefined while it runs (SIGTERM or SIGINT shut it down
 * gracefully and exit 0), or with an exit code when it cannot start.
 */
export async function serveCommand(args: CliArgs): Promise<number | undefined> {
  noMore(args, 1);
  const { env, values } = args;
  const home = values.home ?? env.SEARCH_HOME ?? './search-home';
  const portText = values.port ?? env.PORT ?? '8080';
  const port = /^\d+$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 0 && port <= 65535))
    throw new UsageError(`the port must be a number from 0 to 65535, got ${JSON.stringify(portText)}`);
  const host = values.host ?? env.HOST ?? '127.0.0.1';
  const level = (env.LOG_LEVEL ?? 'info').toLowerCase();
  if (!LOG_LEVELS.has(level)) {
    throw new UsageError(
      `LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}, got ${JSON.stringify(env.LOG_LEVEL)}`,
    );
  }
  try {
    const server = await startServer({
      home,
      port,
      host,
      logger: { level },
      handleSignals: true,
      handleFatalErrors: true,
    });
    server.app.log.info({ home, url: server.url }, `pushsearch listening on ${server.url}`);
  } catch (error) {
    process.stderr.write(`cannot start the server: ${describeError(error)}\n`);
    return EXIT.ERROR;
  }
  return undefined;
}
