/**
 * A counting semaphore over bytes: how many request bodies the server holds in memory at
 * once. A document route reserves its body's size before Fastify starts reading the body
 * and gives it back when the response is finished, so a burst of large PUTs waits in line
 * instead of growing the heap without bound (each waiting request holds only its socket).
 *
 * Waiters are served strictly in arrival order: a large request at the head is not starved
 * by a stream of small ones behind it. A reservation larger than the whole capacity is cut
 * to the capacity, so it runs alone rather than never.
 */
export class ByteBudget {
  private used = 0;
  private readonly queue: {
    bytes: number;
    grant: () => void;
    signal: AbortSignal | undefined;
    onAbort: () => void;
  }[] = [];

  /** @param capacity bytes that may be reserved at the same time (> 0). */
  constructor(readonly capacity: number) {
    if (!(capacity > 0)) throw new RangeError(`ByteBudget capacity must be positive, got ${capacity}`);
  }

  /** Bytes reserved right now. */
  get inUse(): number {
    return this.used;
  }

  /** Reservations waiting for room. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Reserves `bytes` at once when nobody waits and there is room; undefined otherwise (then
   * {@link acquire} waits in line). The common case costs no promise and no abort signal.
   */
  tryAcquire(bytes: number): (() => void) | undefined {
    const amount = this.clamp(bytes);
    if (this.queue.length > 0 || this.used + amount > this.capacity) return undefined;
    this.used += amount;
    return this.releaser(amount);
  }

  /**
   * Reserves `bytes` (at least 0, at most the capacity), waiting in line when there is no
   * room. Resolves with the release function (calling it more than once is harmless).
   * Rejects with the signal's reason when `signal` aborts while waiting.
   */
  acquire(bytes: number, signal?: AbortSignal): Promise<() => void> {
    const amount = this.clamp(bytes);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.queue.length === 0 && this.used + amount <= this.capacity) {
      this.used += amount;
      return Promise.resolve(this.releaser(amount));
    }
    return new Promise((resolve, reject) => {
      const entry = {
        bytes: amount,
        signal,
        grant: () => resolve(this.releaser(amount)),
        onAbort: () => {
          const at = this.queue.indexOf(entry);
          if (at !== -1) this.queue.splice(at, 1);
          reject(abortReason(signal!));
          // The aborted waiter may have been the head that blocked smaller ones behind it.
          this.drain();
        },
      };
      signal?.addEventListener('abort', entry.onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  private clamp(bytes: number): number {
    return Math.min(Math.max(0, Math.ceil(bytes)), this.capacity);
  }

  private releaser(amount: number): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= amount;
      this.drain();
    };
  }

  private drain(): void {
    while (this.queue.length > 0 && this.used + this.queue[0].bytes <= this.capacity) {
      const next = this.queue.shift()!;
      next.signal?.removeEventListener('abort', next.onAbort);
      this.used += next.bytes;
      next.grant();
    }
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`);
}
