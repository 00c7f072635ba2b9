#!/usr/bin/env node
/**
 * The `pushsearch` command line: `serve` runs the server; `collection` works offline on the
 * installation folder or through the admin API; every other command talks to a running
 * server through the client library (`src/client/`). `pushsearch COMMAND --help` explains a
 * command; exit codes are those of `exit-codes.ts` (documented in the help below).
 */
import { readFileSync } from 'node:fs';
import { parseCli, type CliArgs, type OptionName } from './cli-options.js';
import { collectionCommand } from './collection-command.js';
import { describeError, exitCodeFor, EXIT, UsageError } from './exit-codes.js';
import { loadCommand } from './load-command.js';
import { CONNECTION_HELP, REMOTE_COMMANDS, type Command } from './remote-commands.js';
import { SERVE_OPTIONS, SERVE_USAGE } from './serve-usage.js';

const USAGE = `Usage: pushsearch serve [--home DIR] [--port N] [--host ADDR]
       pushsearch COMMAND [arguments] [options]

Commands:
  serve                              run the HTTP server
  collection create|list|delete      manage collections (offline, or --url for the admin API)
  user list|show|add|passwd|delete   manage users (admin API)
  token create|list|revoke USER      API tokens for programs (admin API)
  put COLLECTION KEY [FILE]          add or replace a document
  get COLLECTION KEY                 print a document as pushed
  delete COLLECTION KEY              delete a document
  commit COLLECTION                  make staged changes searchable
  vacuum COLLECTION                  merge generations or re-index
  snapshot create|list|delete|restore COLLECTION [NAME]
  state COLLECTION                   the collection's state
  stop COLLECTION                    stop the collection
  search COLLECTION QUERY...         search (a table, or --json)
  load COLLECTION FOLDER|FILE.jsonl  push many documents, then commit
  prepare-upgrade [--status]         prepare the installation for an upgrade

${CONNECTION_HELP}

\`pushsearch --version\` prints the version.
Exit codes: 0 ok; 1 error (the server refused or failed); 2 wrong command line; 3 not found;
4 not authenticated or not allowed; 5 conflict (wrong state, name taken); 6 server
unreachable or unavailable (503); 7 load finished with failed documents; 130 load stopped
by Ctrl-C.
\`pushsearch COMMAND --help\` explains a command.
`;

const COMMANDS: Readonly<Record<string, Command>> = {
  ...REMOTE_COMMANDS,
  collection: collectionCommand,
  load: loadCommand,
};

/** The version in package.json (read at run time: the build copies no JSON). */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The options a command takes; undefined for no or an unknown command (the parser's table then). */
function optionsOf(command: string | undefined): readonly OptionName[] | undefined {
  if (command === 'serve') return SERVE_OPTIONS;
  return command === undefined ? undefined : COMMANDS[command]?.options;
}

/** The help of one command (with the server options for server commands). */
function helpOf(command: string | undefined): string {
  if (command === 'serve') return `${SERVE_USAGE}\n`;
  const found = command === undefined ? undefined : COMMANDS[command];
  if (found === undefined) return USAGE;
  return command === 'collection' ? `${found.usage}\n` : `${found.usage}\n\n${CONNECTION_HELP}\n`;
}

/** Runs the command line; resolves with the exit code, or undefined while `serve` runs. */
async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | undefined> {
  let args: CliArgs | undefined;
  try {
    args = parseCli(argv, env, optionsOf);
    const command = args.positionals[0];
    if (args.values.version === true) {
      process.stdout.write(`pushsearch ${VERSION}\n`);
      return EXIT.OK;
    }
    if (args.values.help === true) {
      process.stdout.write(helpOf(command));
      return EXIT.OK;
    }
    if (command === undefined) throw new UsageError('no command given');
    // Loaded on demand: the server's modules (Fastify, the engine) would slow every client command.
    if (command === 'serve') return await (await import('./serve-command.js')).serveCommand(args);
    const found = COMMANDS[command];
    if (found === undefined) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    return await found.run(args);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${helpOf(args?.positionals[0])}`);
    } else {
      process.stderr.write(`${describeError(error)}\n`);
    }
    return exitCodeFor(error);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = EXIT.ERROR;
  },
);
