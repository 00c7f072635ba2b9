import { parseArgs } from 'node:util';
import { PushClient } from '../client/push-client.js';
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
  basic: { type: 'boolean' },
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

/** Parses `argv`; unknown options and missing values are {@link UsageError}s. */
export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): CliArgs {
  try {
    const { values, positionals } = parse(argv);
    return { values, positionals, env };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The server URL when one is given (`--url`, else `PUSHSEARCH_URL`). */
export function serverUrl(args: CliArgs): string | undefined {
  const url = args.values.url ?? args.env.PUSHSEARCH_URL;
  return url === undefined || url === '' ? undefined : url;
}

/** A client from `--url --user --password` (or `PUSHSEARCH_URL`, `PUSHSEARCH_USER`, `PUSHSEARCH_PASSWORD`). */
export function clientFrom(args: CliArgs): PushClient {
  return makeClient(args, {});
}

/** {@link clientFrom} with further client options. */
export function makeClient(
  args: CliArgs,
  options: Partial<ConstructorParameters<typeof PushClient>[0]>,
): PushClient {
  const url = serverUrl(args);
  if (url === undefined) throw new UsageError('no server: give --url http://host:port or set PUSHSEARCH_URL');
  const user = args.values.user ?? args.env.PUSHSEARCH_USER ?? 'admin';
  const password = args.values.password ?? args.env.PUSHSEARCH_PASSWORD;
  if (password === undefined) throw new UsageError('no password: give --password or set PUSHSEARCH_PASSWORD');
  try {
    return new PushClient({
      url,
      user,
      password,
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
