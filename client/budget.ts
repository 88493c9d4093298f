/**
 * One request budget per API key and base URL, shared by every call the process makes on it (the provider's account,
 * provider/api/account.ts, holds it; clients share it by their option `budget`): the way a fleet of orders stays under the
 * API's per-key rate limit instead of each call retrying on its own.
 *
 * When a request may go is the pace's to say (client/pace.ts, the whole model); the budget holds the requests until
 * then and serves them by priority, then in the order they asked (so polls take turns): `urgent` (purchases, and every
 * call a user waits on directly), then `due` (a poll at an order's `estimated_ready_at`), then `routine` polls.
 */
import type { RateLimitHints } from "../contract";
import { realClock, type Clock } from "./clock";
import { ProxyError } from "./errors";
import { isRefusal, Pace } from "./pace";

/** The order in which held requests are served. */
export type RequestPriority = "urgent" | "due" | "routine";

const PRIORITY_RANK: Record<RequestPriority, number> = { urgent: 0, due: 1, routine: 2 };

/** Defaults of {@link BudgetOptions}. */
export const DEFAULT_BUDGET_OPTIONS = {
  pauseWithoutRetryAfterMs: 1000,
  summaryEveryMs: 30_000,
} as const;

/** Options of a {@link RequestBudget}. */
export interface BudgetOptions {
  /**
   * The pause of every request after a `429` that carries no `Retry-After`: the least a `Retry-After` can say (its
   * delta-seconds are whole, RFC 9110). @default 1000
   */
  pauseWithoutRetryAfterMs?: number;
  /** Least time between two summaries to the listeners. @default 30000 */
  summaryEveryMs?: number;
  /** @default the real clock */
  clock?: Clock;
}

/** What a budget tells its listeners, at most every `summaryEveryMs` while it holds requests back. */
export interface BudgetSummary {
  /** Requests waiting for the budget now. */
  held: number;
  /** Requests per second actually sent over the last 5 s. */
  sentPerSecond: number;
  /** Refusals (`429`, and `503`, which limiters send too) since the last summary. */
  throttled: number;
}

/** What a held request needs to know. */
export interface PermitRequest {
  priority: RequestPriority;
  /**
   * Epoch milliseconds on the budget's clock after which the request is no longer wanted: `acquire` then rejects with
   * {@link BudgetDeadlineError}.
   */
  deadline?: number;
  signal?: AbortSignal;
}

/** The right to send one request; settle it with the answer (or without one when none came). */
export interface Permit {
  /** How long the request was held back before it was allowed. */
  heldMs: number;
  settle(answer?: { status: number; hints: RateLimitHints }): void;
}

/** The budget could not let a request go before its deadline (the client turns it into a RateLimitError). */
export class BudgetDeadlineError extends ProxyError {
  constructor(readonly heldMs: number) {
    super("The request was held back by the API's rate limit until its deadline.", "rate_limit_deadline");
  }
}

interface Waiter extends PermitRequest {
  rank: number;
  seq: number;
  since: number;
  grant(permit: Permit): void;
  fail(error: unknown): void;
}

/** A per-key request budget; see the module's comment. Clients share one by the option `budget`. */
export class RequestBudget {
  private readonly options: Required<Omit<BudgetOptions, "clock">>;
  private readonly clock: Clock;
  private readonly pace: Pace;
  private readonly queue: Waiter[] = [];
  private readonly listeners = new Set<(summary: BudgetSummary) => void>();
  private readonly sentAt: number[] = [];
  private seq = 0;
  private inFlight = 0;
  private throttledSinceSummary = 0;
  private lastSummaryAt: number;
  private pumping = false;
  private wake: AbortController | undefined;

  constructor(options: BudgetOptions = {}) {
    const d = DEFAULT_BUDGET_OPTIONS;
    this.clock = options.clock ?? realClock;
    this.options = {
      pauseWithoutRetryAfterMs: options.pauseWithoutRetryAfterMs ?? d.pauseWithoutRetryAfterMs,
      summaryEveryMs: options.summaryEveryMs ?? d.summaryEveryMs,
    };
    this.pace = new Pace(this.options.pauseWithoutRetryAfterMs);
    this.lastSummaryAt = this.clock.now();
  }

  /** Resolves when the request may be sent. Rejects with the signal's reason, or a BudgetDeadlineError. */
  acquire(request: PermitRequest): Promise<Permit> {
    if (request.signal?.aborted) return Promise.reject(request.signal.reason);
    return new Promise<Permit>((resolve, reject) => {
      const onAbort = () => {
        this.remove(waiter);
        reject(request.signal?.reason);
      };
      const waiter: Waiter = {
        ...request,
        rank: PRIORITY_RANK[request.priority],
        seq: this.seq++,
        since: this.clock.now(),
        grant: (permit) => {
          request.signal?.removeEventListener("abort", onAbort);
          resolve(permit);
        },
        fail: (error) => {
          request.signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      request.signal?.addEventListener("abort", onAbort, { once: true });
      const at = this.queue.findIndex((w) => w.rank > waiter.rank);
      this.queue.splice(at === -1 ? this.queue.length : at, 0, waiter);
      this.poke();
    });
  }

  /** Called with a summary at most every `summaryEveryMs` while requests are held back. Returns the unsubscribe. */
  onSummary(listener: (summary: BudgetSummary) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Uses at most `fraction` (0 to 1] of the key's rate from now on: of each quota the hints report, and of the rate a
   * `429`'s hints imply (client/pace.ts). The smallest share asked for wins.
   */
  limitShare(fraction: number): void {
    this.pace.share = Math.min(this.pace.share, Math.max(0.01, Math.min(1, fraction)));
  }

  /**
   * Whether the API answered one of this budget's requests without refusing it within the last 3 s: a `503` then is a
   * limiter shedding load (a wait, as a `429` is), not the API being down (a failure, retried a few times).
   */
  serving(): boolean {
    return this.pace.serving(this.clock.now());
  }

  /** Requests waiting now. */
  get held(): number {
    return this.queue.length;
  }

  private poke(): void {
    if (this.pumping) {
      this.wake?.abort();
      return;
    }
    void this.pump();
  }

  /** Serves the queue while it is not empty; sleeps until the next request may go, or until something changes. */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const now = this.clock.now();
        this.maybeSummarise(now);
        const at = this.pace.nextAt(now, this.inFlight, this.queue.length);
        // While an answer is awaited the wait has no known end: nobody expires for it.
        const expired = Number.isFinite(at) ? this.queue.filter((w) => w.deadline !== undefined && w.deadline < at) : [];
        for (const waiter of expired) {
          this.remove(waiter);
          waiter.fail(new BudgetDeadlineError(now - waiter.since));
        }
        if (expired.length > 0) continue;
        if (at <= now) {
          this.grant(this.queue.shift()!, now);
          continue;
        }
        const wake = new AbortController();
        this.wake = wake;
        // Waiting for an answer in flight, the answer wakes the loop (and a summary can wait for it): no time is slept
        // through, which a simulated clock would jump.
        const summaryIn = this.listeners.size > 0 && Number.isFinite(at) ? this.lastSummaryAt + this.options.summaryEveryMs - now : Infinity;
        const ms = Math.max(1, Math.min(at - now, summaryIn));
        // Woken early when the queue changes: an aborted sleep is no error here.
        await (Number.isFinite(ms) ? this.clock.sleep(ms, wake.signal).catch(() => undefined) : aborted(wake.signal));
      }
    } finally {
      this.pumping = false;
      this.wake = undefined;
    }
  }

  private grant(waiter: Waiter, now: number): void {
    this.inFlight += 1;
    this.pace.sent(now);
    this.sentAt.push(now);
    while (this.sentAt.length > 0 && this.sentAt[0]! < now - 5000) this.sentAt.shift();
    let settled = false;
    waiter.grant({
      heldMs: now - waiter.since,
      settle: (answer) => {
        if (settled) return;
        settled = true;
        this.inFlight -= 1;
        if (answer) {
          if (isRefusal(answer.status)) this.throttledSinceSummary += 1;
          const { quota, retryAfterMs } = answer.hints;
          this.pace.answered(this.clock.now(), { status: answer.status, quota, retryAfterMs, sentAt: now }, this.inFlight);
        }
        this.poke();
      },
    });
  }

  private maybeSummarise(now: number): void {
    if (this.listeners.size === 0 || now - this.lastSummaryAt < this.options.summaryEveryMs) return;
    const oldest = this.queue.reduce((min, w) => Math.min(min, w.since), now);
    if (now - oldest < 1000) return;
    this.lastSummaryAt = now;
    const summary: BudgetSummary = {
      held: this.queue.length,
      sentPerSecond: this.sentAt.filter((t) => t >= now - 5000).length / 5,
      throttled: this.throttledSinceSummary,
    };
    this.throttledSinceSummary = 0;
    for (const listener of this.listeners) listener(summary);
  }

  private remove(waiter: Waiter): void {
    const index = this.queue.indexOf(waiter);
    if (index !== -1) this.queue.splice(index, 1);
    this.poke();
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
