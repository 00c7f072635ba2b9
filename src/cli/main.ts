#!/usr/bin/env node
/**
 * The `pushsearch` command line. For now one command:
 *
 *   pushsearch serve [--home DIR] [--port N] [--host ADDR]
 *
 * Settings come from the options, else the environment (`SEARCH_HOME`, `PORT`, `HOST`,
 * `LOG_LEVEL`), else the defaults of the API contract (`./search-home`, 8080, 127.0.0.1,
 * info). The first start creates the `$SEARCH_HOME` layout. SIGTERM or SIGINT shut down
 * gracefully (in-flight requests finish, collections close, exit 0).
 */
import { parseArgs } from 'node:util';
import { SearchError } from '../errors.js';
import { startServer } from '../http/server.js';
import { CollectionManager } from '../collection/collection-manager.js';
import { silentPushLog } from '../collection/push-log.js';
import { SearchHome } from '../collection/search-home.js';

const USAGE = `Usage: pushsearch serve [--home DIR] [--port N] [--host ADDR]
       pushsearch collection create NAME [--meta MEMBER,MEMBER...] [--home DIR]
       pushsearch collection list|delete [NAME] [--home DIR]

Commands:
  serve               Run the HTTP server (push API, search).
  collection create   Create a push collection (or a meta collection with --meta).
  collection list     List collections.
  collection delete   Delete a collection and its data (stop the server first).

Options (environment variable in brackets):
  --home DIR    installation folder [SEARCH_HOME], default ./search-home
  --port N      TCP port [PORT], default 8080 (0: any free port)
  --host ADDR   interface [HOST], default 127.0.0.1
  -h, --help    this text
Logging: LOG_LEVEL (trace, debug, info, warn, error, silent), default info.
`;

const LOG_LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

/** Runs the command line; resolves with the exit code for commands that end (not `serve`). */
async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | undefined> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        home: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        meta: { type: 'string' },
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const command = positionals[0];
  if (command === 'collection') return collectionCommand(positionals.slice(1), values.home ?? env.SEARCH_HOME ?? './search-home', values.meta);
  if (command !== 'serve' || positionals.length > 1) {
    process.stderr.write(
      `${command === undefined ? 'no command given' : `unknown command ${positionals.join(' ')}`}\n\n${USAGE}`,
    );
    return 2;
  }

  const home = values.home ?? env.SEARCH_HOME ?? './search-home';
  const portText = values.port ?? env.PORT ?? '8080';
  const port = /^\d+$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 0 && port <= 65535)) {
    process.stderr.write(`the port must be a number from 0 to 65535, got ${JSON.stringify(portText)}\n`);
    return 2;
  }
  const host = values.host ?? env.HOST ?? '127.0.0.1';
  const level = (env.LOG_LEVEL ?? 'info').toLowerCase();
  if (!LOG_LEVELS.has(level)) {
    process.stderr.write(
      `LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}, got ${JSON.stringify(env.LOG_LEVEL)}\n`,
    );
    return 2;
  }

  try {
    const server = await startServer({ home, port, host, logger: { level }, handleSignals: true });
    server.app.log.info({ home, url: server.url }, `pushsearch listening on ${server.url}`);
  } catch (error) {
    const message =
      error instanceof SearchError ? `${error.code}: ${error.message}` : (error as Error).message;
    process.stderr.write(`cannot start the server: ${message}\n`);
    return 1;
  }
  return undefined;
}

/** Offline collection administration on the installation folder. */
async function collectionCommand(args: string[], home: string, meta: string | undefined): Promise<number> {
  const manager = new CollectionManager(new SearchHome(home), silentPushLog());
  const [action, name] = args;
  try {
    switch (action) {
      case 'create':
        if (name === undefined) break;
        manager.create(name, meta === undefined ? 'push' : 'meta', meta?.split(',').map((m) => m.trim()) ?? []);
        process.stdout.write(`created ${meta === undefined ? 'push' : 'meta'} collection ${name} in ${home}\n`);
        return 0;
      case 'list':
        for (const info of manager.list()) process.stdout.write(`${info.name}\t${info.type}\n`);
        return 0;
      case 'delete':
        if (name === undefined) break;
        if (!manager.exists(name)) throw new SearchError('COLLECTION_NOT_FOUND', `collection ${name} does not exist`);
        await manager.delete(name);
        process.stdout.write(`deleted collection ${name}\n`);
        return 0;
    }
    process.stderr.write(`collection needs create NAME, list or delete NAME\n\n${USAGE}`);
    return 2;
  } catch (error) {
    const message = error instanceof SearchError ? `${error.code}: ${error.message}` : (error as Error).message;
    process.stderr.write(`${message}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
