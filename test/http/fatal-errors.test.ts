/**
 * A bug in the server process (an uncaught exception, an unhandled promise rejection) is
 * written to push.log and the server log, and the server shuts down as on SIGTERM (in-flight
 * requests finished, collections closed) and exits with 1 for its supervisor; the staged
 * changes it had acknowledged are there after a restart.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { keyQuery, tempHome } from './helpers.js';
import { requestAsAdmin, spawnServer } from '../support/server-process.js';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fatal-error-server.js');

const FAULTS = [
  { fault: 'reject', kind: 'unhandled promise rejection', message: /a rejected promise nobody handles/ },
  { fault: 'throw', kind: 'uncaught exception', message: /a throw from a timer/ },
] as const;

describe('a bug in the server process', () => {
  for (const { fault, kind, message } of FAULTS) {
    it(`${kind}: logged to push.log and the server log, clean shutdown, exit 1, staged changes kept`, async () => {
      const { home, cleanup } = tempHome();
      const agent = new http.Agent({ keepAlive: false });
      try {
        new CollectionManager(new SearchHome(home), silentPushLog()).create('c', 'push');
        const child = fork(FIXTURE, [home], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        let serverLog = '';
        child.stdout!.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
        child.stderr!.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
        const { port } = await new Promise<{ port: number }>((resolve, reject) => {
          child.once('message', (m) => resolve(m as { port: number }));
          child.once('exit', (code) =>
            reject(new Error(`the server exited with ${code} before listening: ${serverLog}`)),
          );
        });
        const path = `/push-api/v2/collections/c/documents${keyQuery('local:before-the-bug')}`;
        assert.equal((await requestAsAdmin(port, agent, 'PUT', path, 'staged before the bug')).status, 200);

        child.send(fault);
        assert.equal(await exited, 1);

        const lines = readFileSync(join(home, 'web', 'log', 'push.log'), 'utf8')
          .trim()
          .split('\n')
          .map(
            (line) =>
              JSON.parse(line) as { level: string; msg: string; err?: { message: string; stack?: string } },
          );
        const fatal = lines.filter((line) => line.level === 'fatal');
        assert.equal(fatal.length, 1, 'one fatal line in push.log');
        assert.equal(fatal[0]!.msg, `${kind}: shutting down`);
        assert.match(fatal[0]!.err!.message, message);
        assert.match(fatal[0]!.err!.stack ?? '', /fatal-error-server/, 'with the stack that says where');
        // The server log has the error too, and the shutdown ran to its end (collections closed).
        assert.match(serverLog, new RegExp(`"msg":"${kind}: shutting down"`));
        assert.match(serverLog, /"msg":"shut down cleanly"/);

        const again = await spawnServer(home);
        try {
          const got = await requestAsAdmin(again.port, agent, 'GET', path);
          assert.equal(got.status, 200);
          assert.equal(
            Buffer.from(
              (JSON.parse(got.body) as { pushContent: { content: string } }).pushContent.content,
              'base64',
            ).toString(),
            'staged before the bug',
          );
        } finally {
          again.child.kill('SIGTERM');
          assert.equal(await again.exited, 0);
        }
      } finally {
        agent.destroy();
        cleanup();
      }
    });
  }
});
