/**
 * The work one query may do (Elasticsearch's `timeout` and `max_expansions`, Lucene's
 * `TimeLimitingCollector`): a deadline on the wall clock and a cap on the terms one prefix
 * expands to. The executor checks the deadline between generations, between prefix
 * expansions and every few hundred collected documents; past it, it stops and answers what it
 * found so far, with {@link timedOut} set. Thrown {@link BudgetExhausted} unwinds the scorers
 * to the executor, which catches it: a scorer never sees it.
 *
 * One budget serves every engine call of a query (the ranked query, counts, facets,
 * spelling), so that together they stay within the deadline.
 */
export class WorkBudget {
  /** Set once the deadline passed during some engine call. */
  timedOut = false;
  /** Set once some prefix had more expansions than {@link maxPrefixTerms}. */
  prefixTermsCapped = false;
  private countdown = CHECK_EVERY;

  /**
   * @param deadline Epoch milliseconds (`performance.timeOrigin + performance.now()` scale,
   *   comparable across threads); Infinity: no deadline.
   * @param maxPrefixTerms Most terms a prefix expands to (the most frequent ones).
   */
  constructor(
    readonly deadline: number = Infinity,
    readonly maxPrefixTerms: number = DEFAULT_MAX_PREFIX_TERMS,
  ) {}

  /** A budget that ends `ms` milliseconds from now. */
  static forMs(ms: number, maxPrefixTerms = DEFAULT_MAX_PREFIX_TERMS): WorkBudget {
    return new WorkBudget(nowEpochMs() + ms, maxPrefixTerms);
  }

  /** Milliseconds left (negative once past the deadline). */
  remainingMs(): number {
    return this.deadline - nowEpochMs();
  }

  /** True once the deadline passed (also marks the budget timed out). */
  expired(): boolean {
    if (this.timedOut) return true;
    if (this.deadline !== Infinity && nowEpochMs() >= this.deadline) this.timedOut = true;
    return this.timedOut;
  }

  /** Throws {@link BudgetExhausted} when the deadline passed. */
  check(): void {
    if (this.expired()) throw new BudgetExhausted();
  }

  /** A cheap check for hot loops: reads the clock only every few hundred calls. */
  tick(): void {
    if (--this.countdown > 0) return;
    this.countdown = CHECK_EVERY;
    this.check();
  }
}

/** Thrown inside the engine when the budget's deadline passed; the executor catches it. */
export class BudgetExhausted extends Error {
  constructor() {
    super('the query ran out of its time budget');
    this.name = 'BudgetExhausted';
  }
}

/** Default of `search.max-prefix-terms`. */
export const DEFAULT_MAX_PREFIX_TERMS = 256;
/** Calls of {@link WorkBudget.tick} between two readings of the clock. */
const CHECK_EVERY = 256;

/** Wall-clock milliseconds on a scale shared by every thread of the process. */
export function nowEpochMs(): number {
  return performance.timeOrigin + performance.now();
}
