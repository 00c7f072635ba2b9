/**
 * A real listening server in the test's process (startServer on a free loopback port) over a
 * fresh home: for the tests that need real connections (raw bytes, headers, slow clients, fetch)
 * rather than `app.inject`.
 */
import { startServer, type RunningServer } from '../../src/http/server.js';
import type { SecurityOptions } from '../../src/security/open-security.js';
import { TEST_SECURITY, tempHome, writeGlobalCfg } from '../http/helpers.js';

export interface TestServer extends RunningServer {
  /** The server's SEARCH_HOME (a temporary folder). */
  home: string;
  /** Closes the server, then removes its home. */
  dispose(): Promise<void>;
}

/**
 * Starts a server over a new temporary home, with the test admin and cheap password hashing
 * (TEST_SECURITY, to which `security` adds: a token lifetime, a movable clock); `global`:
 * conf/global.cfg lines written first; `collections`: push collections created before the
 * first request.
 */
export async function testServer(
  options: { global?: string[]; collections?: string[]; security?: Partial<SecurityOptions> } = {},
): Promise<TestServer> {
  const { home, cleanup } = tempHome();
  let server: RunningServer | undefined;
  try {
    if (options.global !== undefined) writeGlobalCfg(home, options.global);
    server = await startServer({ home, port: 0, security: { ...TEST_SECURITY, ...options.security } });
    for (const name of options.collections ?? []) server.manager.create(name, 'push');
  } catch (error) {
    await server?.close();
    cleanup();
    throw error;
  }
  const running = server;
  return {
    ...running,
    home,
    dispose: async () => {
      await running.close();
      cleanup();
    },
  };
}
