import { readFileSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
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
  CONNECTION_OPTIONS,
  type CliArgs,
  type OptionName,
} from './cli-options.js';
import { askHidden } from './ask-hidden.js';
import { EXIT, UsageError } from './exit-codes.js';
import { plural } from '../plural.js';

/** A subcommand: its help text, the options it takes, and what it does (resolves with the exit code). */
export interface Command {
  usage: string;
  /** Every option it takes (others are refused with a message listing these). */
  options: readonly OptionName[];
  run(args: CliArgs): Promise<number>;
}

/** Options every server command takes, for the help texts. */
export const CONNECTION_HELP = `Server (environment variable in brackets):
  --url URL         the server [PUSHSEARCH_URL], default http://127.0.0.1:8080
  --user NAME       user name [PUSHSEARCH_USER], default admin
  --password PW     password [PUSHSEARCH_PASSWORD]; asked for in a terminal when absent
  --token TOKEN     an API token instead of user and password [PUSHSEARCH_TOKEN]
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
  const client = await clientFrom(args);
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
  options: [...CONNECTION_OPTIONS, ...(['content-type', 'metadata', 'filters'] as const)],
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
  options: [...CONNECTION_OPTIONS, ...(['output'] as const)],
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
  options: [...CONNECTION_OPTIONS, ...([] as const)],
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
  options: [...CONNECTION_OPTIONS, ...(['no-wait'] as const)],
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
  options: [...CONNECTION_OPTIONS, ...(['type', 'no-wait'] as const)],
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
  options: [...CONNECTION_OPTIONS, ...(['no-stop'] as const)],
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
  options: [...CONNECTION_OPTIONS, ...([] as const)],
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
  options: [...CONNECTION_OPTIONS, ...([] as const)],
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
  options: [...CONNECTION_OPTIONS, ...(['num-ranks', 'start-rank'] as const)],
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
  options: [...CONNECTION_OPTIONS, ...(['status'] as const)],
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
  options: [...CONNECTION_OPTIONS, 'new-password', 'permissions', 'collections'],
  usage: `Usage: pushsearch user list
       pushsearch user show NAME
       pushsearch user add NAME [--new-password PW] [--permissions P,P] [--collections C,C]
       pushsearch user passwd NAME [--new-password PW]
       pushsearch user delete NAME
  list     every user, its permissions, collections and live tokens
  add      creates (or replaces) a user; permissions default sec.continuous.rest,
           collections default * (all)
  passwd   changes a user's password, keeping its permissions (its login tokens are revoked)
  delete   deletes a user and its tokens
Without --new-password the new password is asked for (twice) in a terminal.`,
  async run(args) {
    const action = required(args, 1, 'list, show, add, passwd or delete');
    if (!['list', 'show', 'add', 'passwd', 'delete'].includes(action))
      throw new UsageError(
        `unknown user action ${JSON.stringify(action)}: list, show, add, passwd or delete`,
      );
    const name = action === 'list' ? undefined : required(args, 2, 'NAME');
    noMore(args, action === 'list' ? 2 : 3);
    const newPassword =
      action === 'add' || action === 'passwd' ? await newPasswordOf(args, name!) : undefined;
    return withClient(args, async (client) => {
      if (action === 'list') {
        const users = await client.listUsers();
        if (args.values.json === true) printJson({ users });
        else
          printTable(
            ['NAME', 'PERMISSIONS', 'COLLECTIONS', 'TOKENS'],
            users.map((u) => [
              u.name,
              u.permissions.join(','),
              u.collections.join(','),
              String(u.activeTokens),
            ]),
          );
        return EXIT.OK;
      }
      if (action === 'show') {
        const shown = await client.getUser(name!);
        return report(
          args,
          { user: shown },
          ({ user: u }) =>
            `${u.name}\npermissions: ${u.permissions.join(', ')}\ncollections: ${u.collections.join(', ')}\nlive tokens: ${u.activeTokens}`,
        );
      }
      if (action === 'delete') return report(args, await client.deleteUser(name!), (a) => a.message);
      if (action === 'add') {
        const answer = await client.putUser(name!, {
          password: newPassword,
          permissions: permissionList(args.values.permissions ?? 'sec.continuous.rest'),
          collections: splitList(args.values.collections ?? '*'),
        });
        return report(args, answer, (a) => a.message);
      }
      const existing = await client.getUser(name!);
      const answer = await client.putUser(name!, {
        password: newPassword,
        permissions: permissionList(existing.permissions.join(',')),
        collections: existing.collections,
      });
      return report(
        args,
        answer,
        (a) => `password of ${name} changed; ${plural(a.tokensRevoked, 'token')} revoked`,
      );
    });
  },
};

/** `--new-password`, else asked twice in a terminal. */
async function newPasswordOf(args: CliArgs, name: string): Promise<string> {
  const given = args.values['new-password'];
  if (given !== undefined) return given;
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true)
    throw new UsageError('missing --new-password (or run it in a terminal to be asked)');
  const first = await askHidden(`new password of ${name}: `);
  const again = await askHidden(`the same again: `);
  if (first !== again) throw new UsageError('the two passwords differ: nothing changed');
  return first;
}

const token: Command = {
  options: [...CONNECTION_OPTIONS, 'collections', 'expires-days'],
  usage: `Usage: pushsearch token create USER NAME [--collections C,C] [--expires-days N]
       pushsearch token list USER
       pushsearch token revoke USER NAME
API tokens: long-lived credentials for programs (X-Security-Token, or --token / PUSHSEARCH_TOKEN
for this command line), created by an administrator for a user.
  create   prints the token, this once (it is stored only as a hash); its collections
           default to the user's and may only narrow them; no expiry unless --expires-days
  list     the user's tokens: names, collections, expiry (never the secrets)
  revoke   the token stops working at once`,
  async run(args) {
    const action = required(args, 1, 'create, list or revoke');
    if (!['create', 'list', 'revoke'].includes(action))
      throw new UsageError(`unknown token action ${JSON.stringify(action)}: create, list or revoke`);
    const owner = required(args, 2, 'USER');
    const name = action === 'list' ? undefined : required(args, 3, 'NAME');
    noMore(args, action === 'list' ? 3 : 4);
    const days =
      args.values['expires-days'] === undefined ? undefined : intOption(args, 'expires-days', 0, 1, 36_500);
    return withClient(args, async (client) => {
      if (action === 'list') {
        const apiTokens = await client.listApiTokens(owner);
        if (args.values.json === true) printJson({ apiTokens });
        else
          printTable(
            ['NAME', 'COLLECTIONS', 'CREATED', 'EXPIRES'],
            apiTokens.map((t) => [t.name, t.collections.join(','), t.created, t.expires ?? 'never']),
          );
        return EXIT.OK;
      }
      if (action === 'revoke')
        return report(args, await client.revokeApiToken(owner, name!), (a) => a.message);
      const answer = await client.createApiToken(owner, {
        name: name!,
        ...(args.values.collections === undefined ? {} : { collections: splitList(args.values.collections) }),
        ...(days === undefined ? {} : { expires: new Date(Date.now() + days * 86_400_000).toISOString() }),
      });
      return report(
        args,
        answer,
        (a) =>
          `${a.token}\n(API token ${a.apiToken.name} of ${a.apiToken.user}: collections ${a.apiToken.collections.join(',')}, expires ${a.apiToken.expires ?? 'never'}; shown this once)`,
      );
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
  // A row shorter than the headings leaves its last cells empty; cells past them are not cut.
  const widths = headings.map((h, i) =>
    Math.min(60, Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0))),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const width = widths[i] ?? cell.length;
        return cell.length > width ? `${cell.slice(0, width - 1)}…` : cell.padEnd(width);
      })
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
  token,
};
