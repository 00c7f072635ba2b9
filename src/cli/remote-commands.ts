import { readFileSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import { SearchError } from '../errors.js';
import type { PushClient } from '../client/push-client.js';
import type { SearchResponse, UserInput } from '../client/types.js';
import { PERMISSIONS } from '../security/permissions.js';
import {
  clientFrom,
  intOption,
  metadataOption,
  noMore,
  printJson,
  required,
  type CliArgs,
} from './cli-options.js';
import { EXIT, UsageError } from './exit-codes.js';
import { plural } from '../plural.js';

/** A subcommand: its help text and what it does (resolves with the exit code). */
export interface Command {
  usage: string;
  run(args: CliArgs): Promise<number>;
}

/** Options every server command takes, for the help texts. */
export const CONNECTION_HELP = `Server (environment variable in brackets):
  --url URL         the server, e.g. http://127.0.0.1:8080 [PUSHSEARCH_URL]
  --user NAME       user name [PUSHSEARCH_USER], default admin
  --password PW     password [PUSHSEARCH_PASSWORD]
  --basic           HTTP Basic on every request instead of a login token
  --json            print the server's answer as JSON (for scripts)
  -h, --help        this text`;

/** Content types by file extension, for `put` and `load` of files. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xml': 'application/xml',
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.md': 'text/plain',
  '.csv': 'text/csv',
  '.pdf': 'application/pdf',
};

/** Runs `work` with a client from the command line and closes it afterwards. */
async function withClient<T>(args: CliArgs, work: (client: PushClient) => Promise<T>): Promise<T> {
  const client = clientFrom(args);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** Prints the answer as JSON with `--json`, else the line `text` makes of it. */
function report<T>(args: CliArgs, answer: T, text: (answer: T) => string): number {
  if (args.values.json === true) printJson(answer);
  else process.stdout.write(`${text(answer)}\n`);
  return EXIT.OK;
}

const put: Command = {
  usage: `Usage: pushsearch put COLLECTION KEY [FILE|-] [options]
Adds or replaces the document at KEY (a URI) with the content of FILE (stdin when - or absent).
  --content-type T      its media type (default: by the file extension, else application/octet-stream)
  -m, --metadata N=V    a metadata value (repeat for several)
  --filters CHAIN       filter chain for this document, e.g. Html`,
  async run(args) {
    const collection = required(args, 1, 'COLLECTION');
    const key = required(args, 2, 'KEY');
    noMore(args, 4);
    const file = args.positionals[3] ?? '-';
    const content = file === '-' ? readFileSync(0) : readFileSync(file);
    const contentType =
      args.values['content-type'] ?? (file === '-' ? undefined : CONTENT_TYPES[extname(file).toLowerCase()]);
    return withClient(args, async (client) =>
      report(
        args,
        await client.add(collection, key, content, {
          metadata: metadataOption(args),
          contentType,
          filterChain: args.values.filters,
        }),
        (answer) => answer.message,
      ),
    );
  },
};

const get: Command = {
  usage: `Usage: pushsearch get COLLECTION KEY [-o FILE] [--json]
Prints the document as pushed (its content; with --json the whole answer with metadata).
  -o, --output FILE     write the content to FILE instead`,
  async run(args) {
    const collection = required(args, 1, 'COLLECTION');
    const key = required(args, 2, 'KEY');
    noMore(args, 3);
    return withClient(args, async (client) => {
      const document = await client.get(collection, key);
      if (args.values.json === true) {
        const { content: _content, ...answer } = document;
        printJson(answer);
      } else if (args.values.output !== undefined) writeFileSync(args.values.output, document.content);
      else process.stdout.write(document.content);
      return EXIT.OK;
    });
  },
};

const del: Command = {
  usage: `Usage: pushsearch delete COLLECTION KEY
Deletes the document at KEY (gone from searches after the next commit).`,
  async run(args) {
    const collection = required(args, 1, 'COLLECTION');
    const key = required(args, 2, 'KEY');
    noMore(args, 3);
    return withClient(args, async (client) =>
      report(args, await client.delete(collection, key), (a) => a.message),
    );
  },
};

const commit: Command = {
  usage: `Usage: pushsearch commit COLLECTION [--no-wait]
Makes staged changes searchable; waits until they are, unless --no-wait.`,
  async run(args) {
    const collection = required(args, 1, 'COLLECTION');
    noMore(args, 2);
    return withClient(args, async (client) =>
      report(args, await client.commit(collection, args.values['no-wait'] !== true), (a) =>
        a.generation === undefined
          ? `commit started (${a.changes} changes)`
          : `committed ${a.changes} changes (generation ${a.generation ?? 'none'})`,
      ),
    );
  },
};

const vacuum: Command = {
  usage: `Usage: pushsearch vacuum COLLECTION [--type MERGE|RE_INDEX] [--no-wait]
MERGE (default): all generations into one. RE_INDEX: every document indexed again.`,
  async run(args) {
    const collection = required(args, 1, 'COLLECTION');
    noMore(args, 2);
    const type = (args.values.type ?? 'MERGE').toUpperCase();
    if (type !== 'MERGE' && type !== 'RE_INDEX')
      throw new UsageError(`--type must be MERGE or RE_INDEX, got ${args.values.type}`);
    return withClient(args, async (client) =>
      report(
        args,
        await client.vacuum(collection, type, args.values['no-wait'] !== true),
        (a) => `vacuum ${a.type}: ${a.state} (${a.done}/${a.total})`,
      ),
    );
  },
};

const snapshot: Command = {
  usage: `Usage: pushsearch snapshot create|list|delete|restore COLLECTION [NAME]
  create COLLECTION NAME    snapshot the last commit
  list COLLECTION           the snapshots
  delete COLLECTION NAME    remove a snapshot
  restore COLLECTION NAME   stop the collection, then replace its live index by the snapshot
                            (--no-stop: fail unless it is already stopped)`,
  async run(args) {
    const action = required(args, 1, 'create, list, delete or restore');
    const collection = required(args, 2, 'COLLECTION');
    return withClient(args, async (client) => {
      switch (action) {
        case 'list': {
          noMore(args, 3);
          const snapshots = await client.listSnapshots(collection);
          if (args.values.json === true) printJson({ snapshots });
          else if (snapshots.length === 0) process.stdout.write(`no snapshots of ${collection}\n`);
          else {
            printTable(
              ['NAME', 'CREATED', 'DOCUMENTS', 'BYTES'],
              snapshots.map((s) => [s.name, s.created, String(s.documents), String(s.bytes)]),
            );
          }
          return EXIT.OK;
        }
        case 'create': {
          const name = required(args, 3, 'NAME');
          noMore(args, 4);
          return report(
            args,
            await client.createSnapshot(collection, name),
            (s) => `snapshot ${s.name} created (${s.documents} documents)`,
          );
        }
        case 'delete': {
          const name = required(args, 3, 'NAME');
          noMore(args, 4);
          return report(args, await client.deleteSnapshot(collection, name), (a) => a.message);
        }
        case 'restore': {
          const name = required(args, 3, 'NAME');
          noMore(args, 4);
          if (args.values['no-stop'] !== true) await client.stop(collection);
          return report(args, await client.restoreSnapshot(collection, name), (a) => a.message);
        }
        default:
          throw new UsageError(
            `unknown snapshot action ${JSON.stringify(action)}: create, list, delete or restore`,
          );
      }
    });
  },
};

const state: Command = {
  usage: `Usage: pushsearch state COLLECTION
The collection's state (STOPPED, RUNNING, ...) and counts; does not start it.`,
  async run(args) {
    const collection = required(args, 1, 'COLLECTION');
    noMore(args, 2);
    return withClient(args, async (client) =>
      report(args, await client.state(collection), (s) =>
        [
          `${s.collection}: ${s.state}${s.reason === undefined ? '' : ` (${s.reason})`}`,
          ...(s.documents === undefined
            ? []
            : [
                `documents ${s.documents}, staged changes ${s.stagedChanges ?? 0}, generations ${s.generations ?? 0}`,
              ]),
        ].join('\n'),
      ),
    );
  },
};

const stop: Command = {
  usage: `Usage: pushsearch stop COLLECTION
Stops the collection (staged changes stay durable); the next push request starts it.`,
  async run(args) {
    const collection = required(args, 1, 'COLLECTION');
    noMore(args, 2);
    return withClient(args, async (client) =>
      report(args, await client.stop(collection), (s) => `${s.collection}: ${s.state}`),
    );
  },
};

const search: Command = {
  usage: `Usage: pushsearch search COLLECTION QUERY... [-n N] [--start-rank N] [--json]
Searches the collection and prints the results as a table (--json: the whole result packet).
  -n, --num-ranks N     results per page (default 10)
  --start-rank N        first rank (default 1)`,
  async run(args) {
    const collection = required(args, 1, 'COLLECTION');
    const query = args.positionals.slice(2).join(' ');
    if (query === '') throw new UsageError('missing QUERY');
    const numRanks = intOption(args, 'num-ranks', 10, 1, 1000);
    const startRank = intOption(args, 'start-rank', 1, 1, 10_000);
    return withClient(args, async (client) => {
      const answer = await client.search(collection, query, { numRanks, startRank });
      if (args.values.json === true) printJson(answer);
      else printResults(answer);
      return EXIT.OK;
    });
  },
};

const prepareUpgrade: Command = {
  usage: `Usage: pushsearch prepare-upgrade [--status]
Starts the installation-wide upgrade preparation (writes refused until a restart);
--status only reports IN_PROGRESS or PREPARED (exit 6 when it was not started).`,
  async run(args) {
    noMore(args, 1);
    return withClient(args, async (client) =>
      report(
        args,
        args.values.status === true ? await client.upgradeStatus() : await client.prepareUpgrade(),
        (a) => `upgrade preparation: ${a.state}`,
      ),
    );
  },
};

/** A comma-separated permission list, each one checked (a typo is a usage error, not a 400 later). */
function permissionList(text: string): UserInput['permissions'] {
  const known: readonly string[] = PERMISSIONS;
  const list = splitList(text);
  for (const permission of list) {
    if (!known.includes(permission))
      throw new UsageError(`unknown permission ${JSON.stringify(permission)}: use ${PERMISSIONS.join(', ')}`);
  }
  return list as UserInput['permissions'];
}

const user: Command = {
  usage: `Usage: pushsearch user add NAME --new-password PW [--permissions P,P] [--collections C,C]
       pushsearch user passwd NAME --new-password PW
  add      creates (or replaces) a user; permissions default sec.continuous.rest,
           collections default * (all)
  passwd   changes a user's password, keeping its permissions (its tokens are revoked)`,
  async run(args) {
    const action = required(args, 1, 'add or passwd');
    const name = required(args, 2, 'NAME');
    noMore(args, 3);
    const password = args.values['new-password'];
    if (password === undefined) throw new UsageError('missing --new-password');
    return withClient(args, async (client) => {
      if (action === 'add') {
        const answer = await client.putUser(name, {
          password,
          permissions: permissionList(args.values.permissions ?? 'sec.continuous.rest'),
          collections: splitList(args.values.collections ?? '*'),
        });
        return report(args, answer, (a) => a.message);
      }
      if (action === 'passwd') {
        const existing = (await client.listUsers()).find((u) => u.name === name);
        if (existing === undefined)
          throw new SearchError('USER_NOT_FOUND', `user ${name} does not exist: create it with user add`);
        const answer = await client.putUser(name, {
          password,
          permissions: permissionList(existing.permissions.join(',')),
          collections: existing.collections,
        });
        return report(
          args,
          answer,
          (a) => `password of ${name} changed; ${plural(a.tokensRevoked, 'token')} revoked`,
        );
      }
      throw new UsageError(`unknown user action ${JSON.stringify(action)}: add or passwd`);
    });
  },
};

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Prints rows under headings, columns padded to their widest cell (at most 60 characters). */
export function printTable(headings: string[], rows: string[][]): void {
  const widths = headings.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((r) => r[i].length))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        cell.length > widths[i] ? `${cell.slice(0, widths[i] - 1)}…` : cell.padEnd(widths[i]),
      )
      .join('  ')
      .trimEnd();
  process.stdout.write(`${[line(headings), ...rows.map(line)].join('\n')}\n`);
}

function printResults(answer: SearchResponse): void {
  const packet = answer.response.resultPacket;
  const summary = packet.resultsSummary;
  if (packet.results.length === 0) {
    process.stdout.write(`no results for ${JSON.stringify(packet.query)}\n`);
    return;
  }
  printTable(
    ['RANK', 'SCORE', 'TITLE', 'URL'],
    packet.results.map((r) => [String(r.rank), r.score.toFixed(3), r.title, r.liveUrl]),
  );
  process.stdout.write(`results ${summary.currStart}-${summary.currEnd} of ${summary.totalMatching}\n`);
}

/** The server commands by name. */
export const REMOTE_COMMANDS: Readonly<Record<string, Command>> = {
  put,
  get,
  delete: del,
  commit,
  vacuum,
  snapshot,
  state,
  stop,
  search,
  'prepare-upgrade': prepareUpgrade,
  user,
};
