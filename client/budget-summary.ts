/**
 * What a budget (client/budget.ts) tells its listeners while it holds requests back: how many wait, how fast they go,
 * and how many were refused, at most every `summaryEveryMs`, so that a fleet held by the API's rate limit says so in a
 * few lines instead of one per request (provider/api/rate-limit-report.ts writes them).
 */

/** What a budget tells its listeners, at most every `summaryEveryMs` while it holds requests back. */
export interface BudgetSummary {
  /** Requests waiting for the budget now. */
  held: number;
  /** Requests per second actually sent over the last 5 s. */
  sentPerSecond: number;
  /** Refusals (`429`, and `503`, which limiters send too) since the last summary. */
  throttled: number;
}

/** Over how long the rate sent is measured. */
const SENT_OVER_MS = 5000;
/** A summary says that requests are held back: not while the longest-held waited less than this. */
const HELD_AT_LEAST_MS = 1000;

/** The listeners of one budget and what their next summary counts. */
export class BudgetSummaries {
  private readonly listeners = new Set<(summary: BudgetSummary) => void>();
  private readonly sentAt: number[] = [];
  private refused = 0;

  constructor(
    private readonly everyMs: number,
    private lastAt: number,
  ) {}

  /** Calls `listener` with every summary from now on; returns the unsubscribe. */
  subscribe(listener: (summary: BudgetSummary) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A request went at `now`. */
  sent(now: number): void {
    this.sentAt.push(now);
    while (this.sentAt.length > 0 && this.sentAt[0]! < now - SENT_OVER_MS) this.sentAt.shift();
  }

  /** An answer refused a request. */
  refusal(): void {
    this.refused += 1;
  }

  /** How long until the next summary is due, so that a budget waiting on a known time wakes for it. */
  dueIn(now: number): number {
    return this.listeners.size > 0 ? this.lastAt + this.everyMs - now : Number.POSITIVE_INFINITY;
  }

  /** Tells the listeners, if a summary is due and the longest-held of `held` requests asked at `oldestSince`. */
  maybeTell(now: number, held: number, oldestSince: number): void {
    if (this.listeners.size === 0 || now - this.lastAt < this.everyMs || now - oldestSince < HELD_AT_LEAST_MS) return;
    this.lastAt = now;
    const summary: BudgetSummary = {
      held,
      sentPerSecond: this.sentAt.filter((t) => t >= now - SENT_OVER_MS).length / (SENT_OVER_MS / 1000),
      throttled: this.refused,
    };
    this.refused = 0;
    for (const listener of this.listeners) listener(summary);
  }
}
