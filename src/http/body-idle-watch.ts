import { PassThrough, type Readable } from 'node:stream';

/**
 * Passes a request body through, failing it with `timeoutError()` when no byte arrives for
 * `idleMs`. A client that stops in the middle of a body (slow loris) would otherwise hold its
 * body-budget reservation, and a connection, for as long as it likes.
 *
 * The returned stream carries `receivedEncodedLength` (bytes read so far), which Fastify uses
 * to compare a body with its Content-Length when a hook replaces the payload.
 */
export function watchBodyIdle(payload: Readable, idleMs: number, timeoutError: () => Error): Readable {
  const watched = new PassThrough() as PassThrough & { receivedEncodedLength: number };
  watched.receivedEncodedLength = 0;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const arm = () => {
    stop();
    timer = setTimeout(() => {
      timer = undefined;
      payload.unpipe(watched);
      watched.destroy(timeoutError());
    }, idleMs);
    timer.unref();
  };
  payload.on('data', (chunk: Buffer) => {
    watched.receivedEncodedLength += chunk.length;
    arm();
  });
  payload.once('end', stop);
  payload.once('close', stop);
  payload.on('error', (error) => {
    stop();
    watched.destroy(error);
  });
  // Fastify listens for errors while it reads the body; after it stopped (an answer was
  // already sent), an abort or a timeout must not become an uncaught 'error' event.
  watched.on('error', () => {});
  watched.once('close', stop);
  payload.pipe(watched);
  arm();
  return watched;
}
