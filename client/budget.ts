/**
 * One request budget per API key and base URL, shared by every call the process makes on it (the provider's account,
 * provider/api/account.ts, holds it; clients share it by their option `budget`): the way a fleet of orders stays under the
 * API's per-key rate limit instead of each call retrying on its own.
 *
 * When a request may go is the pace's to say (client/pace.ts, the whole model); the budget holds the requests until
 * then (client/held-requests.ts) and serves them by priority, then in the order they asked (so polls take turns):
 * `urgent` (purchases, and every call a user waits on directly), then `due` (a poll at an order's
 * `estimated_ready_at`), then `routine` polls. While it holds them back it tells its listeners so
 * (client/budget-summary.ts).
 */
import { BudgetSummaries, type BudgetSummary } from "./budget-summary";
import { realClock, type Clock } from "./clock";
import { HeldRequests, type HeldRequest, type Permit, type PermitRequest } from "./held-requests";
import { isRefusal, Pace } from "./pace";

export type { BudgetSummary } from "./budget-summary";
export { BudgetDeadlineError } from "./held-requests";
export type { Permit, PermitRequest, RequestPriority } from "./held-requests";

/** Defaults of {@link BudgetOptions}. */
export const DEFAULT_BUDGET_OPTIONS = {
  pauseWithoutRetryAfterMs: 500,
  summaryEveryMs: 30_000,
} as const;

/** Options of a {@link RequestBudget}. */
export interface BudgetOptions {
  /**
   * The pause of every request after a refusal that carries no `Retry-After` (HAProxy's and nginx's carry none). Half
   * the least a `Retry-After` can say (its delta-seconds are whole, RFC 9110), as measured: four stacks x 50 without
   * hints behind HAProxy's sliding second ended at 1.38x to 1.45x of the floor (six runs, 6.9% to 8.9% refused) with
   * it, at 1.51x to 1.57x with a whole second (three, 7.1% to 7.8%), at 1.39x to 1.56x with a quarter (three, 8.0% to
   * 9.6%), taking turns; behind nginx's `503`s it moved within their spread (docs/contributing/benchmarks.md).
   * @default 500
   */
  pauseWithoutRetryAfterMs?: number;
  /** Least time between two summaries to the listeners. @default 30000 */
  summaryEveryMs?: number;
  /** @default the real clock */
  clock?: Clock;
}

/** A per-key request budget; see the module's comment. Clients share one by the option `budget`. */
export class RequestBudget {
  private readonly clock: Clock;
  private readonly pace: Pace;
  private readonly queue: HeldRequests;
  private readonly summaries: BudgetSummaries;
  private inFlight = 0;
  private pumping = false;
  private wake: AbortController | undefined;

  constructor(options: BudgetOptions = {}) {
    const d = DEFAULT_BUDGET_OPTIONS;
    this.clock = options.clock ?? realClock;
    this.pace = new Pace(options.pauseWithoutRetryAfterMs ?? d.pauseWithoutRetryAfterMs);
    this.queue = new HeldRequests(this.clock, () => this.poke());
    this.summaries = new BudgetSummaries(options.summaryEveryMs ?? d.summaryEveryMs, this.clock.now());
  }

  /** Resolves when the request may be sent. Rejects with the signal's reason, or a BudgetDeadlineError. */
  acquire(request: PermitRequest): Promise<Permit> {
    return this.queue.hold(request);
  }

  /** Called with a summary at most every `summaryEveryMs` while requests are held back. Returns the unsubscribe. */
  onSummary(listener: (summary: BudgetSummary) => void): () => void {
    return this.summaries.subscribe(listener);
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
    if (this.pumping) this.wake?.abort();
    else void this.pump();
  }

  /** Serves the held requests while there are any; sleeps until the next may go, or until something changes. */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const now = this.clock.now();
        this.summaries.maybeTell(now, this.queue.length, this.queue.oldestSince(now));
        const at = this.pace.nextAt(now, this.inFlight, this.queue.length);
        // While an answer is awaited the wait has no known end: nobody expires for it.
        if (Number.isFinite(at) && this.queue.expireBefore(at, now)) continue;
        if (at <= now) {
          this.grant(this.queue.next()!, now);
          continue;
        }
        const wake = new AbortController();
        this.wake = wake;
        // Waiting for an answer in flight, the answer wakes the loop (and a summary can wait for it): no time is slept
        // through, which a simulated clock would jump.
        const ms = Math.max(1, Math.min(at - now, Number.isFinite(at) ? this.summaries.dueIn(now) : Infinity));
        // Woken early when the queue changes: an aborted sleep is no error here.
        await (Number.isFinite(ms) ? this.clock.sleep(ms, wake.signal).catch(() => undefined) : aborted(wake.signal));
      }
    } finally {
      this.pumping = false;
      this.wake = undefined;
    }
  }

  private grant(request: HeldRequest, now: number): void {
    this.inFlight += 1;
    this.pace.sent(now);
    this.summaries.sent(now);
    let settled = false;
    request.grant({
      heldMs: now - request.since,
      settle: (answer) => {
        if (settled) return;
        settled = true;
        this.inFlight -= 1;
        if (answer) {
          if (isRefusal(answer.status)) this.summaries.refusal();
          const { quota, retryAfterMs } = answer.hints;
          this.pace.answered(this.clock.now(), { status: answer.status, quota, retryAfterMs, sentAt: now }, this.inFlight);
        }
        this.poke();
      },
    });
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
