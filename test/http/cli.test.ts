import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ADMIN_AUTH, tempHome, writeGlobalCfg } from './helpers.js';
import { MAIN, spawnServer } from '../support/server-process.js';

function run(
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function getStatus(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false, headers }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

describe('pushsearch CLI', () => {
  it('--help prints the usage; a missing or unknown command, a bad port or log level exit 2 with the usage', () => {
    const help = run(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /pushsearch serve/);
    for (const args of [[], ['frobnicate'], ['serve', 'extra'], ['serve', '--nope']]) {
      const bad = run(args);
      assert.equal(bad.status, 2, args.join(' '));
      assert.match(bad.stderr, /Usage: pushsearch serve/);
    }
    assert.equal(run(['serve', '--port', 'eighty']).status, 2);
    assert.equal(run(['serve', '--port', '70000']).status, 2);
    assert.equal(run(['serve'], { LOG_LEVEL: 'loud', PORT: '0' }).status, 2);
  });

  it('serve, configured by SEARCH_HOME/PORT/HOST, creates the layout on first start and exits 0 on SIGTERM', async () => {
    const { home, cleanup } = tempHome();
    const fresh = join(home, 'new-home');
    try {
      const server = await spawnServer(fresh, { viaEnvironment: true });
      for (const folder of ['conf', 'data', join('web', 'log')])
        assert.ok(existsSync(join(fresh, folder)), folder);
      assert.equal(await getStatus(server.port, '/push-api/v1/collections/none/state'), 401);
      assert.equal(
        await getStatus(server.port, '/push-api/v1/collections/none/state', { authorization: ADMIN_AUTH }),
        404,
      );
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    } finally {
      cleanup();
    }
  });

  it('a global.cfg with a bad value stops the start (exit 1) with a message naming the file and key', () => {
    const { home, cleanup } = tempHome();
    try {
      writeGlobalCfg(home, ['push.max-request-bytes=lots']);
      const result = run(['serve', '--home', home, '--port', '0']);
      assert.equal(result.status, 1);
      assert.match(result.stderr, /CONFIG_INVALID: conf\/global\.cfg.*push\.max-request-bytes/);
    } finally {
      cleanup();
    }
  });
});
