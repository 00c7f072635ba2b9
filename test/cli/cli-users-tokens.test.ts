/**
 * The command line's users, API tokens and options: user list/show/add/delete, token
 * create/list/revoke with the token usable as --token, --version, clear messages for options a
 * command does not take, and no live login token left behind by a finished command.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD } from '../http/helpers.js';
import { MAIN } from '../support/server-process.js';
import { testServer, type TestServer } from '../support/test-server.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('pushsearch user, token and options', () => {
  let server: TestServer;
  let as: string[];

  before(async () => {
    server = await testServer({ collections: ['docs', 'other'] });
    as = ['--url', server.url, '--password', ADMIN_PASSWORD];
  });
  after(async () => {
    await server.dispose();
  });

  it('--version; an option the command does not take, or an unknown one, is named with the options it takes', async () => {
    const version = await cli(['--version']);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^pushsearch \d+\.\d+\.\d+\n$/);
    const wrong = await cli(['put', 'docs', 'local:a', '--limit', '3', ...as]);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /^pushsearch put does not take --limit; it takes --url, .*--content-type/);
    const unknown = await cli(['search', 'docs', 'x', '--bogus', ...as]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^pushsearch search has no option --bogus; it takes .*--num-ranks/);
    assert.doesNotMatch(unknown.stderr, /To specify a positional argument/, "not the parser's raw text");
    const noValue = await cli(['serve', '--port']);
    assert.equal(noValue.code, 2);
    assert.match(noValue.stderr, /^--port needs a value/);
    const noPassword = await cli(['state', 'docs', '--url', server.url]);
    assert.equal(noPassword.code, 2);
    assert.match(noPassword.stderr, /no password: give --password, set PUSHSEARCH_PASSWORD, or --token/);
  });

  it('user add/list/show/delete; token create/list/revoke, the token working as --token within its scope; commands leave no login token', async () => {
    const add = await cli([
      'user',
      'add',
      'pusher',
      '--new-password',
      'pusher-password',
      '--collections',
      'docs,other',
      ...as,
    ]);
    assert.equal(add.code, 0, add.stderr);
    const list = await cli(['user', 'list', ...as]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(
      list.stdout,
      /^NAME\s+PERMISSIONS\s+COLLECTIONS\s+TOKENS\nadmin\s.*\npusher\s+sec\.continuous\.rest\s+docs,other\s+0\n$/,
    );
    const show = await cli(['user', 'show', 'pusher', '--json', ...as]);
    assert.deepEqual((JSON.parse(show.stdout) as { user: { collections: string[] } }).user.collections, [
      'docs',
      'other',
    ]);

    const created = await cli([
      'token',
      'create',
      'pusher',
      'cms',
      '--collections',
      'docs',
      '--expires-days',
      '30',
      ...as,
    ]);
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.split('\n')[0]!;
    assert.match(token, /^[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{43}$/);
    assert.match(
      created.stdout,
      /API token cms of pusher: collections docs, expires 20\d\d-.*; shown this once/,
    );
    const state = await cli(['state', 'docs', '--url', server.url, '--token', token]);
    assert.equal(state.code, 0, state.stderr);
    const outside = await cli(['state', 'other', '--url', server.url], { PUSHSEARCH_TOKEN: token });
    assert.equal(outside.code, 4, outside.stderr);
    const tokens = await cli(['token', 'list', 'pusher', ...as]);
    assert.match(tokens.stdout, /^NAME\s+COLLECTIONS\s+CREATED\s+EXPIRES\ncms\s+docs\s/);
    assert.doesNotMatch(tokens.stdout, new RegExp(token.split('.')[1]!));
    const revoke = await cli(['token', 'revoke', 'pusher', 'cms', ...as]);
    assert.equal(revoke.code, 0, revoke.stderr);
    assert.equal((await cli(['state', 'docs', '--url', server.url, '--token', token])).code, 4);

    // Every command above logged in as admin and out again.
    const admin = JSON.parse((await cli(['user', 'show', 'admin', '--json', ...as])).stdout) as {
      user: { activeTokens: number };
    };
    assert.equal(admin.user.activeTokens, 1, 'only the login of this very command is live');

    const deleted = await cli(['user', 'delete', 'pusher', ...as]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal((await cli(['user', 'show', 'pusher', ...as])).code, 3);
  });
});
