/**
 * What `pushsearch serve` tells the person who started it: where to click, how to log in, and
 * loudly when SEARCH_ADMIN_PASSWORD is ignored (the README's commands in the order written).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { tempHome } from './helpers.js';
import { MAIN } from '../support/server-process.js';

/** Starts `serve` on `home`, waits for the start message on stderr, stops it; returns the message. */
async function startMessage(home: string, adminPassword?: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  delete env.SEARCH_ADMIN_PASSWORD;
  if (adminPassword !== undefined) env.SEARCH_ADMIN_PASSWORD = adminPassword;
  const child = spawn(process.execPath, [MAIN, 'serve', '--home', home, '--port', '0'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // The message is one write: once its API UI line is there, all of it is.
      if (stderr.includes('API UI') && stderr.endsWith('\n')) resolve();
    });
    child.once('exit', () => reject(new Error(`serve exited before its start message: ${stderr}`)));
  });
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  return stderr;
}

describe('the start message of pushsearch serve', () => {
  it('prints the landing page, admin UI, search page and API UI addresses and where the password is; SEARCH_ADMIN_PASSWORD then replaces the generated one, and a later different one is a WARNING', async () => {
    const { home, cleanup } = tempHome();
    try {
      const first = await startMessage(home);
      const url = /pushsearch is running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(first)?.[1];
      assert.ok(url !== undefined, first);
      assert.ok(first.includes(`admin UI     ${url}/search/admin/`), first);
      assert.ok(first.includes(`search page  ${url}/s/search.html?collection=NAME&query=WORDS`), first);
      assert.ok(first.includes(`API UI       ${url}/search/admin/api-ui/`), first);
      assert.match(first, /log in as admin with the password in .*conf\/initial-admin-password/);

      const second = await startMessage(home, 'change-me');
      assert.match(second, /admin's password is now SEARCH_ADMIN_PASSWORD/);
      const third = await startMessage(home, 'another-password');
      assert.match(third, /WARNING: SEARCH_ADMIN_PASSWORD is IGNORED: it does not match admin's password/);
      const fourth = await startMessage(home, 'change-me');
      assert.doesNotMatch(fourth, /WARNING/);
    } finally {
      cleanup();
    }
  });
});
