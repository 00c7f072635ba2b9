import { PassThrough, type Readable } from 'node:stream';

/** How slow a body may be before {@link watchBodyIdle} fails it. */
export interface BodyPace {
  /** Longest pause between two bytes, and the length of the window the rate is measured over. */
  idleMs: number;
  /** Fewest bytes that must arrive in each window of `idleMs` (0: no minimum rate). */
  minBytesPerWindow: number;
  /** The error of a body with no byte for `idleMs`. */
  idleError: () => Error;
  /** The error of a body that sent fewer than `minBytesPerWindow` bytes in a window. */
  slowError: (bytesInWindow: number) => Error;
}

/**
 * Passes a request body through, failing it when no byte arrives for `idleMs`
 * (`idleError()`) or when fewer than `minBytesPerWindow` bytes arrive in any window of
 * `idleMs` (`slowError()`). A client that stops in the middle of a body (slow loris), or
 * trickles a byte every few seconds, would otherwise hold its body-budget reservation, and a
 * connection, for as long as it likes.
 *
 * The returned stream carries `receivedEncodedLength` (bytes read so far), which Fastify uses
 * to compare a body with its Content-Length when a hook replaces the payload.
 */
export function watchBodyIdle(payload: Readable, pace: BodyPace): Readable {
  const watched = new PassThrough() as PassThrough & { receivedEncodedLength: number };
  watched.receivedEncodedLength = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let windowTimer: NodeJS.Timeout | undefined;
  let bytesInWindow = 0;
  const fail = (error: Error) => {
    stop();
    payload.unpipe(watched);
    watched.destroy(error);
  };
  const stop = () => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    if (windowTimer !== undefined) clearInterval(windowTimer);
    idleTimer = undefined;
    windowTimer = undefined;
  };
  const arm = () => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => fail(pace.idleError()), pace.idleMs);
    idleTimer.unref();
  };
  // A decoded body (content-encoding.ts) says how many encoded bytes arrived: Content-Length counts those.
  const encoded = payload as Readable & { receivedEncodedLength?: number };
  payload.on('data', (chunk: Buffer) => {
    watched.receivedEncodedLength =
      encoded.receivedEncodedLength ?? watched.receivedEncodedLength + chunk.length;
    bytesInWindow += chunk.length;
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
  if (pace.minBytesPerWindow > 0) {
    windowTimer = setInterval(() => {
      // A window without any byte is the idle timer's to answer (same length, armed later).
      if (bytesInWindow > 0 && bytesInWindow < pace.minBytesPerWindow) fail(pace.slowError(bytesInWindow));
      bytesInWindow = 0;
    }, pace.idleMs);
    windowTimer.unref();
  }
  return watched;
}
