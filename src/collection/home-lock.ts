import { statSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import { SearchError } from '../errors.js';

/**
 * Longest path a Unix domain socket can be bound to (`sun_path` holds 108 bytes on Linux and
 * 104 on macOS and the BSDs, the terminating zero included).
 */
const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

/**
 * One server per `$SEARCH_HOME`. Two servers on one home would both replay its journals and
 * write the same generation numbers: changes either of them acknowledged could be lost.
 *
 * The lock is a listening Unix domain socket, which the kernel closes when the process ends,
 * however it ends: a server killed with SIGKILL leaves nothing to clear by hand, unlike a PID
 * file (whose liveness check races with a new process taking the PID). Node has no file-lock
 * call, and a socket needs no native module.
 *
 * - On Linux the lock is an abstract socket named after the home folder's device and inode.
 *   Binding it is atomic (the second bind fails with `EADDRINUSE`), it has no file that could
 *   go stale, and the same home reached through another path (a symbolic link) is the same
 *   lock. Abstract names belong to a network namespace, hence the second socket:
 * - `server.lock` in the home is a socket file, for servers in other network namespaces (two
 *   containers sharing the home's volume) and platforms without abstract sockets. A file left
 *   by a server that died refuses connections: it is stale, and is replaced. On Linux the
 *   abstract lock makes that replacement race-free within one namespace; elsewhere (and across
 *   namespaces) two servers started at the same instant over a stale file could both replace
 *   it, which is the one case this lock does not cover.
 *
 * A second server in the same process is refused too (the bind fails the same way).
 */
export class HomeLock {
  private constructor(private servers: net.Server[]) {}

  /** Takes the lock of the home whose lock file is `file`, or rejects with `HOME_IN_USE`. */
  static async acquire(file: string, home: string): Promise<HomeLock> {
    const servers: net.Server[] = [];
    const inUse = (): SearchError =>
      new SearchError(
        'HOME_IN_USE',
        `${home} is in use by another pushsearch server: stop that one first (one server per SEARCH_HOME; ${file} is held)`,
        { details: { home, file } },
      );
    try {
      if (process.platform === 'linux') {
        const { dev, ino } = statSync(home);
        const server = await listen(`\0pushsearch-home/${dev}/${ino}`);
        if (server === undefined) throw inUse();
        servers.push(server);
      }
      if (Buffer.byteLength(file) <= MAX_SOCKET_PATH_BYTES) {
        const server = await listenOnSocketFile(file);
        if (server === undefined) throw inUse();
        servers.push(server);
      } else if (servers.length === 0) {
        throw new SearchError(
          'HOME_IN_USE',
          `cannot lock ${home}: the path of its lock socket ${file} is longer than ${MAX_SOCKET_PATH_BYTES} bytes; use a shorter SEARCH_HOME`,
          { details: { home, file } },
        );
      }
    } catch (error) {
      await Promise.all(servers.map(closeServer));
      throw error;
    }
    return new HomeLock(servers);
  }

  /** Lets another server take the home; resolves once the kernel has let go. Idempotent. */
  async release(): Promise<void> {
    const servers = this.servers;
    this.servers = [];
    await Promise.all(servers.map(closeServer));
  }
}

/** Listens on `path`; undefined when the address is taken (`EADDRINUSE`). */
function listen(path: string): Promise<net.Server | undefined> {
  return new Promise((resolve, reject) => {
    // A connection is only ever a probe from another server: nothing to say to it.
    const server = net.createServer((socket) => socket.destroy());
    const onError = (error: NodeJS.ErrnoException): void => {
      server.close();
      if (error.code === 'EADDRINUSE') resolve(undefined);
      else reject(error);
    };
    server.once('error', onError);
    server.listen(path, () => {
      server.off('error', onError);
      // The lock alone must not keep a process alive that has nothing else to do.
      server.unref();
      resolve(server);
    });
  });
}

/**
 * Listens on the socket file `file`, replacing it when it is stale (left by a server that
 * died: a connection is refused); undefined when a live server holds it.
 */
async function listenOnSocketFile(file: string): Promise<net.Server | undefined> {
  const server = await listen(file);
  if (server !== undefined) return server;
  if (await answers(file)) return undefined;
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return listen(file);
}

/** Whether a server listens on the socket file `file` (anything else at that path: no). */
function answers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(file);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    // ECONNREFUSED (no listener), ENOTSOCK or ECONNREFUSED for a plain file (an older
    // version's SQLite lock file), ENOENT (removed meanwhile): nobody holds it.
    socket.once('error', () => resolve(false));
  });
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
