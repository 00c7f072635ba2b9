import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on right now, for a server child started with `--port`
 * (the CLI prints its address, but a port known in advance spares parsing its output). The
 * port is free when this resolves; another process could take it before the child does,
 * which on a benchmark machine does not happen.
 */
export function freePort(): Promise<number> {
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
