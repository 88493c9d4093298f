/**
 * One request budget per API key and base URL, shared by every call the process makes: the way a fleet of orders
 * stays under the API's per-key rate limit instead of each call retrying on its own.
 *
 * What it learns from, in order of trust:
 * - `Retry-After` on a `429` (or a `503`): every request on the key pauses until then, not only the call that got it.
 * - `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` hints: the quota left until the reset. Requests
 *   still in flight are counted against it, so the answers that come back can never be spent twice.
 * - `429`s alone (an API without hints): the rate is cut to 70% of what was being sent and recovers by 5% a second,
 *   as the AWS SDK's adaptive retry mode does. Several processes on one key converge through the same feedback.
 *
 * Who goes first: waiting requests are served by priority, then in the order they asked (so polls take turns):
 * `urgent` (purchases, and every call a user waits on directly), then `due` (a poll at an order's
 * `estimated_ready_at`), then `routine` polls. While nothing limits the key, a request goes out at once: a single
 * order keeps today's timing exactly. Before the first answer from a key, one request goes out alone, so that a fleet
 * learns the hints from one answer instead of from a burst of `429`s.
 */
import { createHash } from "node:crypto";
import { setTimeout as sleepFor } from "node:timers/promises";
import { ProxyError } from "./errors";

/** The order in which held requests are served. */
export type RequestPriority = "urgent" | "due" | "routine";

const PRIORITY_RANK: Record<RequestPriority, number> = { urgent: 0, due: 1, routine: 2 };

/** Defaults of {@link BudgetOptions}. */
export const DEFAULT_BUDGET_OPTIONS = {
  throttleFactor: 0.7,
  recoveryPerSecond: 0.05,
  minRatePerSecond: 0.2,
  pauseWithoutRetryAfterMs: 1000,
  summaryEveryMs: 30_000,
} as const;

/** Clock of a budget; tests pass a simulated one. */
export interface BudgetClock {
  now(): number;
  /** Waits `ms`; may reject or resolve early when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Options of a {@link RequestBudget}. */
export interface BudgetOptions {
  /** The share of the measured send rate kept after a `429` without hints. @default 0.7 */
  throttleFactor?: number;
  /** How fast a cut rate grows back, per second without a `429`. @default 0.05 (5%) */
  recoveryPerSecond?: number;
  /** The rate is never cut below this, in requests per second. @default 0.2 */
  minRatePerSecond?: number;
  /** The pause of every request after a `429` that carries no `Retry-After`. @default 1000 */
  pauseWithoutRetryAfterMs?: number;
  /** Least time between two summaries to the listeners. @default 30000 */
  summaryEveryMs?: number;
  /** @default the real clock */
  clock?: BudgetClock;
}

/** What a budget tells its listeners, at most every `summaryEveryMs` while it holds requests back. */
export interface BudgetSummary {
  /** Requests waiting for the budget now. */
  held: number;
  /** Requests per second actually sent over the last 5 s. */
  sentPerSecond: number;
  /** `429` answers since the last summary. */
  throttled: number;
}

/** What a held request needs to know. */
export interface PermitRequest {
  priority: RequestPriority;
  /** Epoch milliseconds after which the request is no longer wanted: `acquire` then rejects with {@link BudgetDeadlineError}. */
  deadline?: number;
  signal?: AbortSignal;
}

/** The right to send one request; settle it with the answer (or without one when none came). */
export interface Permit {
  /** How long the request was held back before it was allowed. */
  heldMs: number;
  settle(answer?: { status: number; headers: Record<string, string>; retryAfterMs?: number }): void;
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

const realClock: BudgetClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepFor(ms, undefined, { signal }).catch(() => undefined),
};

/** A per-key request budget; see the module's comment. Use {@link sharedBudget} for the process's one. */
export class RequestBudget {
  private readonly options: Required<Omit<BudgetOptions, "clock">>;
  private readonly clock: BudgetClock;
  private readonly queue: Waiter[] = [];
  private readonly listeners = new Set<(summary: BudgetSummary) => void>();
  private seq = 0;
  private inFlight = 0;
  private answered = false;
  private pausedUntil = 0;
  /** The server's quota as last reported, less what was sent since. */
  private quota: { limit: number; remaining: number; resetAt: number } | undefined;
  /** A rate learned from `429`s: a token bucket of one second's capacity. */
  private learned: { perSecond: number; tokens: number; at: number; grownAt: number } | undefined;
  private readonly sentAt: number[] = [];
  private throttledSinceSummary = 0;
  private lastSummaryAt: number;
  private pumping = false;
  private wake: AbortController | undefined;

  constructor(options: BudgetOptions = {}) {
    const d = DEFAULT_BUDGET_OPTIONS;
    this.clock = options.clock ?? realClock;
    this.options = {
      throttleFactor: options.throttleFactor ?? d.throttleFactor,
      recoveryPerSecond: options.recoveryPerSecond ?? d.recoveryPerSecond,
      minRatePerSecond: options.minRatePerSecond ?? d.minRatePerSecond,
      pauseWithoutRetryAfterMs: options.pauseWithoutRetryAfterMs ?? d.pauseWithoutRetryAfterMs,
      summaryEveryMs: options.summaryEveryMs ?? d.summaryEveryMs,
    };
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

  /** Requests waiting now. */
  get held(): number {
    return this.queue.length;
  }

  /** The earliest time the next request may go, or Infinity while it must wait for an answer in flight. */
  private nextAllowedAt(now: number): number {
    if (!this.answered && this.inFlight > 0) return Infinity;
    let at = Math.max(now, this.pausedUntil);
    if (this.quota && this.quota.remaining < 1) {
      if (now >= this.quota.resetAt) {
        this.quota.remaining = this.quota.limit - this.inFlight;
      }
      if (this.quota.remaining < 1) at = Math.max(at, this.quota.resetAt > now ? this.quota.resetAt : now + 1000);
    }
    if (this.learned) {
      const l = this.learned;
      if (now > l.at) {
        l.tokens = Math.min(Math.max(1, l.perSecond), l.tokens + ((now - l.at) / 1000) * l.perSecond);
        l.at = now;
      }
      if (l.tokens < 1) at = Math.max(at, l.at + ((1 - l.tokens) / l.perSecond) * 1000);
    }
    return at;
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
        const at = this.nextAllowedAt(now);
        // While the first answer is awaited the wait has no known end: nobody expires for it.
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
        const summaryIn = this.listeners.size > 0 ? this.lastSummaryAt + this.options.summaryEveryMs - now : Infinity;
        const ms = Math.max(1, Math.min(at - now, summaryIn));
        await (Number.isFinite(ms) ? this.clock.sleep(ms, wake.signal) : aborted(wake.signal));
      }
    } finally {
      this.pumping = false;
      this.wake = undefined;
    }
  }

  private grant(waiter: Waiter, now: number): void {
    this.inFlight += 1;
    if (this.quota) this.quota.remaining -= 1;
    if (this.learned) this.learned.tokens -= 1;
    this.sentAt.push(now);
    while (this.sentAt.length > 0 && this.sentAt[0]! < now - 5000) this.sentAt.shift();
    let settled = false;
    waiter.grant({
      heldMs: now - waiter.since,
      settle: (answer) => {
        if (settled) return;
        settled = true;
        this.inFlight -= 1;
        if (answer) this.learn(answer);
        this.poke();
      },
    });
  }

  /** Takes in what one answer says about the key's limit. */
  private learn(answer: { status: number; headers: Record<string, string>; retryAfterMs?: number }): void {
    const now = this.clock.now();
    this.answered = true;
    const hints = readRateLimitHints(answer.headers, now);
    if (hints) {
      this.quota = { limit: hints.limit, remaining: hints.remaining - this.inFlight, resetAt: now + hints.resetMs };
    }
    if (answer.status === 429 || (answer.status === 503 && answer.retryAfterMs !== undefined)) {
      this.pausedUntil = Math.max(this.pausedUntil, now + (answer.retryAfterMs ?? this.options.pauseWithoutRetryAfterMs));
    }
    if (answer.status === 429) {
      this.throttledSinceSummary += 1;
      const sent = this.sentAt.filter((t) => t >= now - 2000).length / 2;
      const perSecond = Math.max(this.options.minRatePerSecond, this.options.throttleFactor * Math.max(sent, this.options.minRatePerSecond));
      // Several 429s from one burst say the same thing: cut once, on the rate sent before it.
      if (!this.learned || perSecond < this.learned.perSecond) {
        this.learned = { perSecond, tokens: 1, at: now, grownAt: now };
      }
      // Nothing saved up during the pause: when it ends one request goes, as Retry-After allows, and the rest follow
      // at the learned rate, not in a burst.
      this.learned.tokens = 1;
      this.learned.at = Math.max(this.learned.at, this.pausedUntil);
      this.learned.grownAt = now;
    } else if (this.learned && answer.status < 500) {
      const l = this.learned;
      l.perSecond *= (1 + this.options.recoveryPerSecond) ** ((now - l.grownAt) / 1000);
      l.grownAt = now;
    }
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

/**
 * What the `RateLimit-*` hints say, when all three are there and readable. `RateLimit-Reset` is delta seconds; a value
 * so large it can only be a Unix time (as some APIs send their `X-RateLimit-Reset`) is read as one.
 */
export function readRateLimitHints(
  headers: Record<string, string>,
  now: number = Date.now(),
): { limit: number; remaining: number; resetMs: number } | undefined {
  // Older drafts allow a policy after the number (`10, 10;w=1`): the first number is the limit.
  const number = (name: string) => {
    const match = /^\s*(\d+)/.exec(headers[name] ?? "");
    return match ? Number(match[1]) : undefined;
  };
  const limit = number("ratelimit-limit");
  const remaining = number("ratelimit-remaining");
  const reset = number("ratelimit-reset");
  if (limit === undefined || remaining === undefined || reset === undefined || limit < 1) return undefined;
  const resetMs = reset >= UNIX_TIME_FLOOR_SECONDS ? Math.max(0, reset * 1000 - now) : reset * 1000;
  return { limit, remaining, resetMs };
}

/** 2001-09-09 in Unix seconds: no quota window lasts that long, so a larger reset is a point in time. */
const UNIX_TIME_FLOOR_SECONDS = 1_000_000_000;

const budgets = new Map<string, RequestBudget>();

/** The process's budget for this base URL and API key (the key itself is only hashed). */
export function sharedBudget(baseUrl: string, apiKey: string): RequestBudget {
  const key = `${baseUrl.replace(/\/+$/, "")} ${createHash("sha256").update(apiKey).digest("hex")}`;
  let budget = budgets.get(key);
  if (!budget) {
    budget = new RequestBudget();
    budgets.set(key, budget);
  }
  return budget;
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
