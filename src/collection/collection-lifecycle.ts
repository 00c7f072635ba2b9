import { CorruptIndexError, SearchError } from '../errors.js';

/** Where a collection is in its life (the state call's `state`). */
export type CollectionState = 'STOPPED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'FAILED';

/** Why a collection is FAILED: the start's error message, and the damaged file when it names one. */
export interface CollectionFailure {
  reason: string;
  file?: string;
}

/**
 * A collection's state machine, without knowing what a running collection holds:
 * STOPPED → STARTING → RUNNING → STOPPING → STOPPED, or FAILED (with the reason) when a
 * start throws. Starts and stops run one after the other ({@link serial}); operations on the
 * running collection are counted ({@link hold}) so that a stop waits for them before it
 * closes anything.
 */
export class CollectionLifecycle {
  private current: CollectionState = 'STOPPED';
  private failed: CollectionFailure | undefined;
  private transition: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private idle: (() => void)[] = [];

  /** @param collection the collection's name, for messages. */
  constructor(private readonly collection: string) {}

  get state(): CollectionState {
    return this.current;
  }

  /** Why the collection is FAILED; undefined in any other state. */
  get failure(): CollectionFailure | undefined {
    return this.current === 'FAILED' ? this.failed : undefined;
  }

  /** Runs `work` after every transition queued before it (whether those failed or not). */
  serial(work: () => Promise<void>): Promise<void> {
    const run = this.transition.then(work, work);
    this.transition = run.catch(() => undefined);
    return run;
  }

  /**
   * Starts the collection when it is not RUNNING: `refuse` may throw first (a collection
   * that must not run); `open` runs as a transition and makes the collection RUNNING, or
   * FAILED when it throws (`onFailure` is told, and this throws COLLECTION_FAILED with the
   * reason). A stop that slipped in between makes it start again.
   */
  async ensureRunning(
    refuse: () => void,
    open: () => Promise<void>,
    onFailure: (error: Error) => void = () => {},
  ): Promise<void> {
    for (;;) {
      if (this.current === 'RUNNING') return;
      refuse();
      await this.serial(async () => {
        if (this.current === 'RUNNING') return;
        await this.start(open, onFailure);
      });
      if (this.current === 'FAILED') {
        throw new SearchError(
          'COLLECTION_FAILED',
          `collection ${this.collection} cannot start: ${this.failed?.reason ?? 'unknown'}`,
          { details: { file: this.failed?.file } },
        );
      }
    }
  }

  /**
   * STARTING, then RUNNING once `open` resolved, FAILED when it throws (the error is passed
   * to `onFailure`, not thrown). Runs inside {@link serial}.
   */
  private async start(
    open: () => Promise<void>,
    onFailure: (error: Error) => void = () => {},
  ): Promise<void> {
    this.current = 'STARTING';
    this.failed = undefined;
    try {
      await open();
      this.current = 'RUNNING';
    } catch (error) {
      const e = error as Error;
      this.failed = {
        reason: e.message,
        ...(error instanceof CorruptIndexError ? { file: error.file } : {}),
      };
      this.current = 'FAILED';
      onFailure(e);
    }
  }

  /**
   * RUNNING → STOPPING → STOPPED: waits for every held operation, then runs `close`. FAILED
   * becomes STOPPED at once; other states are left alone. Call it inside {@link serial}.
   */
  async stop(close: () => Promise<void>): Promise<void> {
    if (this.current !== 'RUNNING') {
      if (this.current === 'FAILED') this.current = 'STOPPED';
      return;
    }
    this.current = 'STOPPING';
    await this.waitIdle();
    await close();
    this.current = 'STOPPED';
  }

  /** FAILED → STOPPED (a restore replaced what failed to open); STOPPED stays. */
  clearFailure(): void {
    if (this.current === 'FAILED') this.current = 'STOPPED';
  }

  /**
   * Runs an operation that a stop must wait for. The count is taken before this returns
   * (no await in between), so a caller that checked the state just before is covered.
   */
  async hold<T>(work: () => Promise<T> | T): Promise<T> {
    this.inFlight++;
    try {
      return await work();
    } finally {
      if (--this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** Resolves once no held operation runs. */
  waitIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}
