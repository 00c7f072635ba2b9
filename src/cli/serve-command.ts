import { LOG_LINE_FORMAT } from '../collection/push-log.js';
import { START_PAGES } from '../http/landing-page.js';
import { startServer } from '../http/server.js';
import type { InitialAdmin } from '../security/initial-admin.js';
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
      logger: { ...LOG_LINE_FORMAT, level },
      handleSignals: true,
      handleFatalErrors: true,
    });
    server.app.log.info({ home, url: server.url }, `pushsearch listening on ${server.url}`);
    process.stderr.write(startMessage(server.url, server.initialAdmin));
  } catch (error) {
    process.stderr.write(`cannot start the server: ${describeError(error)}\n`);
    return EXIT.ERROR;
  }
  return undefined;
}

/** What a person starting the server reads first: where to click, and how to log in. */
function startMessage(url: string, initialAdmin: InitialAdmin): string {
  const lines = [
    `pushsearch is running at ${url}/`,
    `  admin UI     ${url}${START_PAGES.adminUi}`,
    `  search page  ${url}${START_PAGES.searchPage}?collection=NAME&query=WORDS`,
    `  API UI       ${url}${START_PAGES.apiUi}`,
  ];
  switch (initialAdmin.kind) {
    case 'created':
      lines.push(
        initialAdmin.passwordFile === undefined
          ? '  log in as admin with the password in SEARCH_ADMIN_PASSWORD'
          : `  log in as admin with the password in ${initialAdmin.passwordFile}`,
      );
      break;
    case 'adopted':
      lines.push("  admin's password is now SEARCH_ADMIN_PASSWORD (the generated one is gone)");
      break;
    case 'ignored':
      lines.push(
        `WARNING: SEARCH_ADMIN_PASSWORD is IGNORED: ${initialAdmin.reason}. It sets admin's password only at the first start or over the generated one; change it with \`pushsearch user passwd admin\` or in the admin UI.`,
      );
      break;
    case 'unchanged':
      break;
  }
  return lines.join('\n') + '\n';
}
