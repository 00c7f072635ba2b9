import { parseArgs } from 'node:util';
import { PushClient } from '../client/push-client.js';
import { askHidden } from './ask-hidden.js';
import { UsageError } from './exit-codes.js';

/** Every option any command takes (each command reads the ones its help lists). */
const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  home: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  meta: { type: 'string' },
  url: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  token: { type: 'string' },
  basic: { type: 'boolean' },
  version: { type: 'boolean' },
  'expires-days': { type: 'string' },
  'content-type': { type: 'string' },
  metadata: { type: 'string', short: 'm', multiple: true },
  filters: { type: 'string' },
  output: { type: 'string', short: 'o' },
  'no-wait': { type: 'boolean' },
  type: { type: 'string' },
  'num-ranks': { type: 'string', short: 'n' },
  'start-rank': { type: 'string' },
  concurrency: { type: 'string', short: 'c' },
  limit: { type: 'string' },
  'key-prefix': { type: 'string' },
  'no-commit': { type: 'boolean' },
  retries: { type: 'string' },
  resume: { type: 'boolean' },
  state: { type: 'string' },
  'progress-interval': { type: 'string' },
  'new-password': { type: 'string' },
  permissions: { type: 'string' },
  collections: { type: 'string' },
  status: { type: 'boolean' },
  'no-stop': { type: 'boolean' },
} as const;

/** Parsed command line. */
export interface CliArgs {
  positionals: string[];
  values: ReturnType<typeof parse>['values'];
  env: NodeJS.ProcessEnv;
}

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
}

/** An option name of the command line. */
export type OptionName = keyof typeof OPTIONS;

/** Options every server command takes (connection and output). */
export const CONNECTION_OPTIONS: readonly OptionName[] = [
  'url',
  'user',
  'password',
  'token',
  'basic',
  'json',
  'help',
];

/**
 * Parses `argv`; unknown options and missing values are {@link UsageError}s that say so in
 * our words (not the parser's), naming the options the command takes when `allowed` gives them.
 */
export function parseCli(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  allowed?: (command: string | undefined) => readonly OptionName[] | undefined,
): CliArgs {
  let parsed: ReturnType<typeof parse>;
  const command = argv.find((a) => !a.startsWith('-'));
  const takes = allowed?.(command);
  const list = (names: readonly string[]): string => names.map((n) => `--${n}`).join(', ');
  const where = command === undefined ? 'pushsearch' : `pushsearch ${command}`;
  try {
    parsed = parse(argv);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const option = /'(-[^'\s]*)/.exec((error as Error).message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new UsageError(
        `${where} has no option ${option}${takes === undefined ? '' : `; it takes ${list(takes)}`}`,
      );
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw new UsageError(`${option} needs a value: ${option} VALUE (or ${option}=VALUE)`);
    throw new UsageError((error as Error).message);
  }
  if (takes !== undefined) {
    for (const name of Object.keys(parsed.values) as OptionName[]) {
      if (name !== 'help' && name !== 'version' && !takes.includes(name))
        throw new UsageError(`${where} does not take --${name}; it takes ${list(takes)}`);
    }
  }
  return { values: parsed.values, positionals: parsed.positionals, env };
}

/** The server the client commands talk to when neither --url nor PUSHSEARCH_URL says: the server's own default. */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** The server URL when one is given (`--url`, else `PUSHSEARCH_URL`). */
export function serverUrl(args: CliArgs): string | undefined {
  const url = args.values.url ?? args.env.PUSHSEARCH_URL;
  return url === undefined || url === '' ? undefined : url;
}

/**
 * A client from `--url --user --password` (or `PUSHSEARCH_URL`, `PUSHSEARCH_USER`,
 * `PUSHSEARCH_PASSWORD`), or `--token` / `PUSHSEARCH_TOKEN` (an API token). Without a password
 * it is asked for when the command runs in a terminal.
 */
export function clientFrom(args: CliArgs): Promise<PushClient> {
  return makeClient(args, {});
}

/** {@link clientFrom} with further client options. */
export async function makeClient(
  args: CliArgs,
  options: Partial<ConstructorParameters<typeof PushClient>[0]>,
): Promise<PushClient> {
  const url = serverUrl(args) ?? DEFAULT_URL;
  const apiToken = args.values.token ?? args.env.PUSHSEARCH_TOKEN;
  const user = args.values.user ?? args.env.PUSHSEARCH_USER ?? 'admin';
  let password = args.values.password ?? args.env.PUSHSEARCH_PASSWORD;
  if (apiToken === undefined && password === undefined) {
    if (process.stdin.isTTY !== true || process.stderr.isTTY !== true)
      throw new UsageError(
        'no password: give --password, set PUSHSEARCH_PASSWORD, or --token for an API token',
      );
    password = await askHidden(`password of ${user} at ${url}: `);
  }
  try {
    return new PushClient({
      url,
      ...(apiToken === undefined ? { user, password } : { apiToken }),
      auth: args.values.basic === true ? 'basic' : 'token',
      ...options,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The positional at `index`, or a {@link UsageError} naming what is missing. */
export function required(args: CliArgs, index: number, what: string): string {
  const value = args.positionals[index];
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

/** Fails when more positionals were given than the command takes. */
export function noMore(args: CliArgs, count: number): void {
  if (args.positionals.length > count) {
    throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[count])}`);
  }
}

/** A whole number option within bounds, or its default. */
export function intOption(
  args: CliArgs,
  name: keyof CliArgs['values'],
  fallback: number,
  min: number,
  max: number,
): number {
  const text = args.values[name];
  if (text === undefined) return fallback;
  if (typeof text !== 'string' || !/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(
      `--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`,
    );
  }
  return Number(text);
}

/** `--metadata name=value` options as a metadata map (repeat a name for several values). */
export function metadataOption(args: CliArgs): Record<string, string[]> {
  const metadata: Record<string, string[]> = {};
  for (const entry of args.values.metadata ?? []) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new UsageError(`--metadata needs name=value, got ${JSON.stringify(entry)}`);
    const name = entry.slice(0, eq);
    (metadata[name] ??= []).push(entry.slice(eq + 1));
  }
  return metadata;
}

/** Writes `value` as JSON (for `--json`). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
