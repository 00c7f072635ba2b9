import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { HttpTransport } from '../../src/client/http-transport.js';

/** `pushsearch serve` in a child process, on a free port, its output in a file. */
export class ServerProcess {
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    this.exited = new Promise((done) =>
      child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal === null ? null : -1);
        done();
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /**
   * @param options.main another build's `dist/src/cli/main.js` (a baseline measured in the same
   *   run); default this checkout's. `options.nodeArgs`: options of the child's node (`--cpu-prof`).
   */
  static async start(
    home: string,
    outputFile: string,
    adminPassword: string,
    options: { main?: string; nodeArgs?: string[] } = {},
  ): Promise<ServerProcess> {
    const port = await freePort();
    const main = options.main ?? fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
    const output = openSync(outputFile, 'a');
    // LOG_LEVEL=warn: request logging at info would write a line per request and measure the logger.
    const child = spawn(
      process.execPath,
      [
        ...(options.nodeArgs ?? []),
        main,
        'serve',
        '--home',
        home,
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
      ],
      {
        env: { ...process.env, SEARCH_ADMIN_PASSWORD: adminPassword, LOG_LEVEL: 'warn' },
        stdio: ['ignore', output, output],
      },
    );
    closeSync(output);
    const server = new ServerProcess(child, port);
    const transport = new HttpTransport(`http://127.0.0.1:${port}`);
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (!server.running)
          throw new Error(`the server exited with ${server.exitCode} at start; see ${outputFile}`);
        try {
          const answer = await transport.send({
            method: 'GET',
            path: '/health',
            headers: [],
            timeoutMs: 5000,
          });
          if (answer.status === 200) return server;
        } catch {
          // Not listening yet.
        }
        if (Date.now() > deadline)
          throw new Error(`the server did not answer /health within 60 s; see ${outputFile}`);
        await delay(100);
      }
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    } finally {
      transport.close();
    }
  }

  /** SIGTERM (a graceful shutdown), SIGKILL after `timeoutMs`; resolves with the exit code (-1: killed by a signal). */
  async stop(timeoutMs = 120_000): Promise<number | null> {
    if (this.running) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
      await this.exited;
      clearTimeout(timer);
    }
    return this.exitCode ?? null;
  }
}

/**
 * A loopback port nothing listens on right now, for a server child started with `--port`
 * (the CLI prints its address, but a port known in advance spares parsing its output). The
 * port is free when this resolves; another process could take it before the child does,
 * which on a benchmark machine does not happen.
 */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}
