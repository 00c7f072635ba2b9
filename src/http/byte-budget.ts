/**
 * A counting semaphore over bytes: how many request bodies the server holds in memory at
 * once. A document route reserves its body's size before Fastify starts reading the body
 * and gives it back when the response is finished, so a burst of large PUTs waits in line
 * instead of growing the heap without bound (each waiting request holds only its socket).
 *
 * Waiters are served strictly in arrival order: a large request at the head is not starved
 * by a stream of small ones behind it. A reservation larger than the whole capacity is cut
 * to the capacity, so it runs alone rather than never.
 *
 * Owners (the user of a request): one owner may hold at most `ownerShare` of the capacity.
 * A waiter whose owner is at its share does not hold up the line: those behind it, of other
 * owners, go first. So one user's slow or huge uploads cannot take the whole budget from
 * every other user. A reservation larger than the share is cut to the share.
 */
export class ByteBudget {
  private used = 0;
  private readonly usedByOwner = new Map<string, number>();
  private readonly ownerCapacity: number;
  private readonly queue: {
    bytes: number;
    owner: string | undefined;
    grant: () => void;
    signal: AbortSignal | undefined;
    onAbort: () => void;
  }[] = [];

  /**
   * @param capacity bytes that may be reserved at the same time (> 0).
   * @param options.ownerShare the fraction of `capacity` one owner may hold (0 < share ≤ 1; default 1).
   */
  constructor(
    readonly capacity: number,
    options: { ownerShare?: number } = {},
  ) {
    if (!(capacity > 0)) throw new RangeError(`ByteBudget capacity must be positive, got ${capacity}`);
    const share = options.ownerShare ?? 1;
    if (!(share > 0 && share <= 1))
      throw new RangeError(`ByteBudget ownerShare must be in (0, 1], got ${share}`);
    this.ownerCapacity = Math.max(1, Math.floor(capacity * share));
  }

  /** Bytes reserved right now by `owner`. */
  inUseBy(owner: string): number {
    return this.usedByOwner.get(owner) ?? 0;
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
  tryAcquire(bytes: number, owner?: string): (() => void) | undefined {
    const amount = this.clamp(bytes, owner);
    if (!this.fits(amount, owner) || this.someoneFirstInLine()) return undefined;
    this.take(amount, owner);
    return this.releaser(amount, owner);
  }

  /**
   * Reserves `bytes` (at least 0, at most the capacity), waiting in line when there is no
   * room. Resolves with the release function (calling it more than once is harmless).
   * Rejects with the signal's reason when `signal` aborts while waiting.
   */
  acquire(bytes: number, signal?: AbortSignal, owner?: string): Promise<() => void> {
    const amount = this.clamp(bytes, owner);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.fits(amount, owner) && !this.someoneFirstInLine()) {
      this.take(amount, owner);
      return Promise.resolve(this.releaser(amount, owner));
    }
    return new Promise((resolve, reject) => {
      const entry = {
        bytes: amount,
        owner,
        signal,
        grant: () => resolve(this.releaser(amount, owner)),
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

  private clamp(bytes: number, owner: string | undefined): number {
    const cap = owner === undefined ? this.capacity : this.ownerCapacity;
    return Math.min(Math.max(0, Math.ceil(bytes)), cap);
  }

  private ownerFits(amount: number, owner: string | undefined): boolean {
    return owner === undefined || this.inUseBy(owner) + amount <= this.ownerCapacity;
  }

  private fits(amount: number, owner: string | undefined): boolean {
    return this.used + amount <= this.capacity && this.ownerFits(amount, owner);
  }

  /** A waiter that only lacks room overall (not held back by its owner's share) is first. */
  private someoneFirstInLine(): boolean {
    return this.queue.some((entry) => this.ownerFits(entry.bytes, entry.owner));
  }

  private take(amount: number, owner: string | undefined): void {
    this.used += amount;
    if (owner !== undefined) this.usedByOwner.set(owner, this.inUseBy(owner) + amount);
  }

  private releaser(amount: number, owner: string | undefined): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= amount;
      if (owner !== undefined) {
        const left = this.inUseBy(owner) - amount;
        if (left > 0) this.usedByOwner.set(owner, left);
        else this.usedByOwner.delete(owner);
      }
      this.drain();
    };
  }

  /**
   * Grants waiters in arrival order, skipping those whose owner is at its share; the first
   * one that lacks room overall stops the walk, so it is not overtaken.
   */
  private drain(): void {
    // `i` moves past a skipped waiter; a granted one leaves the queue, so `i` then reads the next.
    let i = 0;
    for (let next = this.queue[i]; next !== undefined; next = this.queue[i]) {
      if (!this.ownerFits(next.bytes, next.owner)) {
        i++;
        continue;
      }
      if (this.used + next.bytes > this.capacity) return;
      this.queue.splice(i, 1);
      next.signal?.removeEventListener('abort', next.onAbort);
      this.take(next.bytes, next.owner);
      next.grant();
    }
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`);
}
