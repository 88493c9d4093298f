/**
 * The requests a budget holds back (client/budget.ts), in the order they are served: by priority, then in the order
 * they asked, so that polls take turns. A held request leaves when the budget grants it, when its signal aborts, or
 * when its deadline falls before the time the budget could let it go.
 */
import type { RateLimitHints } from "../contract";
import type { Clock } from "./clock";
import { ProxyError } from "./errors";

/** The order in which held requests are served. */
export type RequestPriority = "urgent" | "due" | "routine";

const PRIORITY_RANK: Record<RequestPriority, number> = { urgent: 0, due: 1, routine: 2 };

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

/** One held request: when it asked, and how to let it go. */
export interface HeldRequest {
  since: number;
  grant(permit: Permit): void;
}

interface Waiter extends PermitRequest, HeldRequest {
  rank: number;
  fail(error: unknown): void;
}

/** The queue of held requests; `changed` is called whenever one joins or leaves other than by {@link next}. */
export class HeldRequests {
  private readonly queue: Waiter[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly changed: () => void,
  ) {}

  /** Resolves with the permit the budget grants. Rejects with the signal's reason, or a BudgetDeadlineError. */
  hold(request: PermitRequest): Promise<Permit> {
    if (request.signal?.aborted) return Promise.reject(request.signal.reason);
    return new Promise<Permit>((resolve, reject) => {
      const onAbort = () => this.fail(waiter, request.signal?.reason);
      const settled = (then: () => void) => {
        request.signal?.removeEventListener("abort", onAbort);
        then();
      };
      const waiter: Waiter = {
        ...request,
        rank: PRIORITY_RANK[request.priority],
        since: this.clock.now(),
        grant: (permit) => settled(() => resolve(permit)),
        fail: (error) => settled(() => reject(error)),
      };
      request.signal?.addEventListener("abort", onAbort, { once: true });
      // After every request of its priority or a higher one: in the order they asked within a priority.
      const at = this.queue.findIndex((w) => w.rank > waiter.rank);
      this.queue.splice(at === -1 ? this.queue.length : at, 0, waiter);
      this.changed();
    });
  }

  /** Requests held now. */
  get length(): number {
    return this.queue.length;
  }

  /** When the longest-held request asked (`now` when none is held). */
  oldestSince(now: number): number {
    return this.queue.reduce((min, w) => Math.min(min, w.since), now);
  }

  /** Fails every request whose deadline falls before `at`, the earliest it could go; whether any did. */
  expireBefore(at: number, now: number): boolean {
    const expired = this.queue.filter((w) => w.deadline !== undefined && w.deadline < at);
    for (const waiter of expired) this.fail(waiter, new BudgetDeadlineError(now - waiter.since));
    return expired.length > 0;
  }

  /** Takes the next request to serve out of the queue. */
  next(): HeldRequest | undefined {
    return this.queue.shift();
  }

  private fail(waiter: Waiter, error: unknown): void {
    const index = this.queue.indexOf(waiter);
    if (index !== -1) this.queue.splice(index, 1);
    waiter.fail(error);
    this.changed();
  }
}
