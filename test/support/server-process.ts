/**
 * Real server processes for the tests that need one (crash, CLI, replication): the compiled
 * CLI's `serve` on a loopback port, and requests to it as the admin over a given agent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_AUTH, ADMIN_PASSWORD } from '../http/helpers.js';

/** The compiled CLI entry point. */
export const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

/**
 * Starts the CLI server (`node dist/src/cli/main.js serve`) on a free port, or on `port` (a
 * restart where a client expects it); resolves once it listens.
 */
export function spawnServer(
  home: string,
  options: { viaEnvironment?: boolean; port?: number } = {},
): Promise<{ child: ChildProcess; port: number; exited: Promise<number | null> }> {
  const viaEnvironment = options.viaEnvironment === true;
  const port = String(options.port ?? 0);
  const args = viaEnvironment ? [MAIN, 'serve'] : [MAIN, 'serve', '--home', home, '--port', port];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      SEARCH_ADMIN_PASSWORD: ADMIN_PASSWORD,
      ...(viaEnvironment ? { SEARCH_HOME: home, PORT: port, HOST: '127.0.0.1' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let output = '';
    let listening = false;
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    // Keep reading the request log so that the child never blocks on a full pipe.
    child.stdout.on('data', (chunk: Buffer) => {
      if (listening) return;
      output += chunk.toString();
      const match = /pushsearch listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match !== null) {
        listening = true;
        resolve({ child, port: Number(match[1]), exited });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening: ${errors}`)));
  });
}

/** The answer of {@link requestAsAdmin}. */
export interface AdminAnswer {
  status: number;
  body: string;
}

/**
 * One request to a real server (see {@link spawnServer}) as the admin, over `agent`; a body
 * is sent as text/plain. Rejects on a connection error (e.g. the server was killed).
 */
export function requestAsAdmin(
  port: number,
  agent: http.Agent,
  method: string,
  path: string,
  body?: string,
): Promise<AdminAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers:
          body === undefined
            ? { authorization: ADMIN_AUTH }
            : { 'content-type': 'text/plain', authorization: ADMIN_AUTH },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The crash tests' stream: PUTs documents 0, 1, 2, ... (`path(i)`, `content(i)`) to a real
 * server over 16 concurrent requests and kills it with SIGKILL once `killAfter` were answered
 * 200. Resolves when every request loop has hit the dead server, with the documents answered
 * 200, those that got another answer or none, and how many were sent.
 */
export async function putUntilKilled(
  server: { child: ChildProcess; port: number },
  agent: http.Agent,
  options: { path: (i: number) => string; content: (i: number) => string; killAfter: number },
): Promise<{ acked: Set<number>; failed: Set<number>; sent: number }> {
  const acked = new Set<number>();
  const failed = new Set<number>();
  let next = 0;
  let killed = false;
  const worker = async (): Promise<void> => {
    // Runs until the kill makes a request fail (the cap only guards against a server that never dies).
    while (next < 100_000) {
      const i = next++;
      try {
        const answer = await requestAsAdmin(server.port, agent, 'PUT', options.path(i), options.content(i));
        if (answer.status === 200) acked.add(i);
        else failed.add(i);
      } catch {
        failed.add(i);
        return;
      }
      if (!killed && acked.size >= options.killAfter) {
        killed = true;
        server.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return { acked, failed, sent: next };
}
