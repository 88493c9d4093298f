/**
 * One request budget per API key and base URL, shared by every call the process makes on it (the provider's account,
 * provider/account.ts, holds it; clients share it by their option `budget`): the way a fleet of orders
 * stays under the API's per-key rate limit instead of each call retrying on its own.
 *
 * What it learns from, in order of trust:
 * - `Retry-After` on a `429` (or a `503`): every request on the key pauses until then, not only the call that got it.
 * - `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` hints, while the answers carry them: the quota left
 *   until the reset. Requests still in flight are counted against it, so the answers that come back can never be
 *   spent twice. A quota whose reset passed without fresh hints is forgotten, never refilled in one burst.
 * - A send rate, learned (client/pacer.ts): a slow start while nothing is known, a cut on every `429` episode and a
 *   cubic recovery after it (quicker where the hints show the quota mostly unspent), and never above the rate the
 *   hints imply. So the budget holds whether the API sends hints with every answer, only with its `429`s, or never,
 *   and several processes on one key converge.
 * - In place of that rate, while hints on every answer follow what is sent (and the quota is not a fixed window's), and
 *   before any rate is learned when more waits than the quota holds: the quota's own pace, what is left spent evenly
 *   until its reset (client/spread.ts), so that the processes on one key share it evenly and one alone has all of it.
 *   Not with a share (limitShare), whose reserve and rate hold this process to its part instead.
 *
 * Who goes first: waiting requests are served by priority, then in the order they asked (so polls take turns):
 * `urgent` (purchases, and every call a user waits on directly), then `due` (a poll at an order's
 * `estimated_ready_at`), then `routine` polls. A single order never meets the rate; before the first answer from a
 * key, one request goes out alone, so that a fleet learns the hints from one answer instead of from a burst of `429`s.
 */
import { realClock, type Clock } from "./clock";
import { Crowding, type SentRequest } from "./crowding";
import { ProxyError } from "./errors";
import { Pacer, type PacerOptions } from "./pacer";
import { QuotaReset } from "./quota-reset";
import { QuotaSpread } from "./spread";

/** The order in which held requests are served. */
export type RequestPriority = "urgent" | "due" | "routine";

/** The window over which the rate this process got accepted is measured, at a 429. */
const ACCEPTED_WINDOW_MS = 3000;

/** With a share, the part of each quota window left for the key's other users once its rate is known. */
const SHARED_WINDOW_SLACK = 0.05;

/** A stretch with nothing accepted at least this long is a lull: the process was asking nothing (see afterLastLull). */
const LULL_MS = 1000;

/**
 * When the rate accepted should be measured from: `from`, or the first acceptance after the last lull since then. A
 * fleet that waited for its orders between its purchases and its reads asked nothing meanwhile, and a 429 early in its
 * reads measured over that quiet stretch cut its rate to a third of what the key gave it (a fleet of 200 took 1.64x
 * and 1.66x of its floor in two of five bench runs; runs with the same 429 took 1.24x and 1.26x after). Used only
 * once hints have said the key's rate: without them, a stack that another starved has gaps just like a lull, and
 * measuring after them gave it more 429s.
 */
function afterLastLull(acceptedAt: readonly number[], from: number): number {
  let since = from;
  let last = from;
  for (const at of acceptedAt) {
    if (at < from) continue;
    if (at - last >= LULL_MS) since = at;
    last = at;
  }
  return since;
}

const PRIORITY_RANK: Record<RequestPriority, number> = { urgent: 0, due: 1, routine: 2 };

/** Defaults of {@link BudgetOptions}. */
export const DEFAULT_BUDGET_OPTIONS = {
  pauseWithoutRetryAfterMs: 1000,
  summaryEveryMs: 30_000,
} as const;

/** Options of a {@link RequestBudget}. */
export interface BudgetOptions {
  /** How the send rate is learned (client/pacer.ts). */
  pacing?: PacerOptions;
  /** The pause of every request after a `429` that carries no `Retry-After`. @default 1000 */
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
  /** `429` answers since the last summary. */
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

/** A per-key request budget; see the module's comment. Clients share one by the option `budget`. */
export class RequestBudget {
  private readonly options: Required<Omit<BudgetOptions, "clock" | "pacing">>;
  private readonly clock: Clock;
  private readonly queue: Waiter[] = [];
  private readonly listeners = new Set<(summary: BudgetSummary) => void>();
  private seq = 0;
  private inFlight = 0;
  private answered = false;
  private pausedUntil = 0;
  /** The server's quota as last reported, less what was sent since. */
  private quota: { limit: number; remaining: number; resetAt: number } | undefined;
  /** Whether the last answer carried hints: only then is a spent quota refilled at its reset. */
  private hintsFresh = false;
  private readonly reset = new QuotaReset();
  private readonly crowding = new Crowding();
  private readonly spread = new QuotaSpread();
  /** Requests let go so far: each one's place among them lets its answer tell this process's spending from others'. */
  private sent = 0;
  private readonly pacer: Pacer;
  private readonly sentAt: number[] = [];
  /** When answers other than 429 came, over the last few seconds: the share of the key this process really got. */
  private readonly acceptedAt: number[] = [];
  /** When the last pause for a 429 ended (or ends). */
  private resumedAt = 0;
  /** When the first request was let go: what was accepted is never counted over time before it. */
  private firstSentAt: number | undefined;
  private throttledSinceSummary = 0;
  /** The share of the key's rate this budget may use (limitShare). */
  private share = 1;
  private lastSummaryAt: number;
  private pumping = false;
  private wake: AbortController | undefined;

  constructor(options: BudgetOptions = {}) {
    const d = DEFAULT_BUDGET_OPTIONS;
    this.clock = options.clock ?? realClock;
    this.pacer = new Pacer(this.clock.now(), options.pacing);
    this.options = {
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

  /**
   * Uses at most `fraction` (0 to 1] of the key's rate from now on: of the rate the hints imply or a 429 taught, and,
   * until that rate is known, of what the quota its hints report has left (after, all of it but a twentieth of each
   * window, see nextAllowedAt). The smallest share asked for wins.
   */
  limitShare(fraction: number): void {
    this.share = Math.min(this.share, Math.max(0.01, Math.min(1, fraction)));
    this.pacer.limitShare(this.share);
  }

  /** Requests waiting now. */
  get held(): number {
    return this.queue.length;
  }

  /** The earliest time the next request may go, or Infinity while it must wait for an answer in flight. */
  private nextAllowedAt(now: number): number {
    if (!this.answered && this.inFlight > 0) return Infinity;
    let at = Math.max(now, this.pausedUntil);
    // With a share, before the key's rate is known, the others' part of what the quota has left is not spent. Once it
    // is, the pacer holds this process to its part of that rate, and keeping the others' part of what is left too
    // starved it beside an application that spends early in each window: a fleet at 50% got 4 or 5 of its 10 a window
    // and took 1.65x of its floor (1.18x now, the application's 429s 0% in both). A twentieth of each window is left
    // for the others' timing.
    const reserve = this.share === 1 ? 0 : this.pacer.slowStart ? 1 - this.share : SHARED_WINDOW_SLACK;
    const spent = () => this.quota !== undefined && this.quota.remaining < 1 + reserve * this.quota.limit;
    if (this.quota && spent() && now >= this.quota.resetAt) {
      // Stale hints say nothing about the next window: the learned rate paces from here.
      if (this.hintsFresh) this.quota.remaining = this.quota.limit - this.inFlight;
      else this.quota = undefined;
    }
    if (this.quota && spent()) at = Math.max(at, this.quota.resetAt > now ? this.quota.resetAt : now + 1000);
    // A quota the hints report is what the API says it will take now: the slow start's window, a guess made for want
    // of one, does not hold it back. When more waits than it holds, the quota paces as one seen spent does
    // (client/spread.ts): sent as fast as the quota allowed, a stack that started late spent at once the rest of a
    // window the others counted on (docs/contributing/benchmarks.md, "The slow start on a hinted quota").
    if (this.quota && this.pacer.slowStart && (this.share < 1 || this.queue.length <= this.quota.remaining)) return at;
    if (this.quota && (this.pacer.slowStart || this.spreads(this.quota))) {
      return Math.max(at, this.spread.nextAt(at, this.quota, this.inFlight, this.queue.length));
    }
    return Math.max(at, this.pacer.nextAt(at, this.inFlight));
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
    this.firstSentAt ??= now;
    const request: SentRequest = { seq: this.sent++, inFlight: this.inFlight };
    this.inFlight += 1;
    if (this.quota) this.quota.remaining -= 1;
    if (this.spreads(this.quota)) this.pacer.sentElsewhere(now);
    else this.pacer.take(now);
    this.spread.sent(now);
    this.sentAt.push(now);
    while (this.sentAt.length > 0 && this.sentAt[0]! < now - 5000) this.sentAt.shift();
    let settled = false;
    waiter.grant({
      heldMs: now - waiter.since,
      settle: (answer) => {
        if (settled) return;
        settled = true;
        this.inFlight -= 1;
        if (answer) this.learn(answer, request);
        this.poke();
      },
    });
  }

  /**
   * Whether the quota itself paces (client/spread.ts) rather than the learned rate: with hints that follow what is sent,
   * but not for a fixed window's quota, nor with a share (which the learned rate holds).
   */
  private spreads(quota: typeof this.quota): quota is NonNullable<typeof this.quota> {
    return this.share === 1 && !this.reset.fixedWindow && this.spread.paces(quota, this.hintsFresh);
  }

  /** Takes in what one answer, to `request`, says about the key's limit. */
  private learn(answer: { status: number; headers: Record<string, string>; retryAfterMs?: number }, request: SentRequest): void {
    const now = this.clock.now();
    this.answered = true;
    const hints = readRateLimitHints(answer.headers, now);
    this.hintsFresh = hints !== undefined;
    const refused = answer.status === 429;
    // What others spent of the window this answer is in (client/crowding.ts), and whether the hints have shown that they
    // follow what is sent (client/spread.ts), before the pacer takes the answer in: its room is for such hints only.
    const others = hints && !refused ? this.crowding.observe(hints.remaining, request, this.sent, this.inFlight) : 0;
    this.spread.answered(answer.status, hints, others);
    if (hints) {
      const resetAt = this.reset.observe(now, hints, this.inFlight);
      this.quota = { limit: hints.limit, remaining: hints.remaining - this.inFlight, resetAt };
      // Before the 429 is measured below, on purpose: a 429 with hints ends the slow start here, so its cut is taken
      // from the hinted rate, not from what this process got accepted. The other order gave fewer 429s beside other
      // stacks but was slower where hints come with every answer, where the quota governs anyway
      // (docs/contributing/benchmarks.md, "Where the K-stack 429s come from").
      this.pacer.hint(hints.limit, hints.remaining, hints.resetMs, refused);
      if (!refused && this.spread.hintsFollowSent) this.pacer.room(now, hints.limit, this.quota.remaining);
    }
    if (refused || (answer.status === 503 && answer.retryAfterMs !== undefined)) {
      this.pausedUntil = Math.max(this.pausedUntil, now + (answer.retryAfterMs ?? this.options.pauseWithoutRetryAfterMs));
    }
    while (this.acceptedAt.length > 0 && this.acceptedAt[0]! < now - ACCEPTED_WINDOW_MS) this.acceptedAt.shift();
    if (refused) {
      this.throttledSinceSummary += 1;
      const perSecond = this.acceptedPerSecond(now);
      this.resumedAt = this.pausedUntil;
      this.pacer.throttled(now, perSecond, this.pausedUntil);
    } else {
      this.acceptedAt.push(now);
      this.pacer.answered();
      // A quota this answer found spent, with others seen spending it in the same window: every process on the key
      // that sees so yields, as on a 429, before the next of them is refused.
      if (hints && hints.remaining <= 1 && others > 0) this.pacer.crowded(now, hints.limit, this.acceptedPerSecond(now));
    }
  }

  /**
   * What the key really took from this process, not what was sent: with other processes on the key, the rates sent add
   * up to more than the limit, and a cut from them would leave the sum over it. Measured since the last pause ended
   * (and, with hints, the last lull); too short a stretch leaves the cut to the rate in force (undefined).
   */
  private acceptedPerSecond(now: number): number | undefined {
    const from = Math.max(now - ACCEPTED_WINDOW_MS, this.resumedAt, this.firstSentAt ?? now);
    const since = this.quota ? afterLastLull(this.acceptedAt, from) : from;
    const accepted = this.acceptedAt.filter((t) => t >= since).length;
    // Out of the slow start, what was accepted counts over a second at least: a bucket's burst is not its rate.
    return now - since >= 1000 || this.pacer.slowStart ? accepted / (Math.max(1000, now - since) / 1000) : undefined;
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

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
