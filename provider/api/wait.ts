/**
 * Waits for an order to finish provisioning, in the manner of Terraform's state-change waiter: pending states wait,
 * the target state returns, anything else fails at once, an overall deadline names the last state seen, and an
 * `AbortSignal` cancels the wait.
 *
 * The schedule (docs/contributing/benchmarks.md measures it): the pause after a poll is 250 ms plus a tenth of the time
 * waited so far, at most `maxPollMs`. So an order that becomes ready after T is seen at most 250 ms + T/10 late, with a
 * number of polls that grows with the logarithm of T. An `estimated_ready_at` in the future replaces that schedule: the next
 * poll is just after it (at most `maxPollMs` away), so an exact estimate costs one or two requests. If a poll at or
 * after the estimate finds the order not ready, the estimate has failed once and is not trusted again for this wait:
 * the no-hint schedule takes over from there, so a wrong estimate costs no more than having none. An API that sends no
 * estimate gets one from what earlier orders of the plan took (provisioning.ts), trusted the same way. `Retry-After` is
 * honoured as the server's floor.
 * When the API's rate limit is short, the process's request budget decides when a poll really goes: polls at the
 * estimate before routine ones, and every order in turn.
 */
import { type Clock, NotFoundError, type ProxyApiClient, ProxyError } from "../../client";
import {
  isPendingState,
  isSpentState,
  isTargetState,
  type Order,
  PENDING_ORDER_STATES,
  SPENT_ORDER_STATES,
  TARGET_ORDER_STATES,
} from "../../contract";
import { formatDuration } from "../shared/duration";
import type { PlanProvisioningTimes, ProvisioningTry } from "./provisioning";

/** Defaults of the schedule; each {@link WaitOptions} field documents its own. */
export const DEFAULT_WAIT_SCHEDULE = {
  basePollMs: 250,
  pollGrowth: 0.1,
  maxPollMs: 30_000,
  notFoundWindowMs: 10_000,
  notFoundReads: 3,
  progressEveryMs: 30_000,
} as const;

/** Everything {@link waitForOrder} needs. */
export interface WaitOptions {
  /** The client of the polls: its clock is the waiter's, so the deadline counts in one time. */
  client: Pick<ProxyApiClient, "getOrder" | "clock">;
  orderId: string;
  /** Epoch milliseconds after which waiting stops with an OrderWaitTimeoutError. */
  deadline: number;
  /** Cancels the wait; it then rejects with an OrderWaitCancelledError. */
  signal?: AbortSignal;
  /** The order as last seen, to start from (for example the response of the POST). */
  lastSeen?: Order;
  /** Called on every state change and at most every `progressEveryMs` otherwise. */
  onProgress?: (progress: WaitProgress) => void;
  /**
   * What earlier orders of the plan took, for an order bought just now: it stands in for a missing
   * `estimated_ready_at`, and learns from this wait when the order is seen ready. Leave it out for an order of unknown
   * age (one bought by an earlier run).
   */
  provisioning?: PlanProvisioningTimes;
  /** Called when the API's rate limit held a poll back, with how long (client/budget.ts). */
  onHeld?: (heldMs: number) => void;
  /** The constant part of each pause. @default 250 */
  basePollMs?: number;
  /** The part of the time waited so far added to each pause. @default 0.1 */
  pollGrowth?: number;
  /** Longest pause between polls. @default 30000 */
  maxPollMs?: number;
  /**
   * How long `404` answers are taken for the contract's read-after-write burst before they count; at least
   * `notFoundReads` of them are taken whatever the time, since under a rate limit a few reads may span the window.
   * @default 10000
   */
  notFoundWindowMs?: number;
  /** @default 30000 */
  progressEveryMs?: number;
}

/** A progress report while waiting. */
export interface WaitProgress {
  orderId: string;
  status: string;
  waitedMs: number;
}

/** The order reached a state that will never become active. */
export class OrderFailedError extends ProxyError {
  constructor(readonly order: Order) {
    const reason = order.statusReason?.message ?? order.statusReason?.code;
    super(`Order ${order.id}${order.planId === undefined ? "" : ` (plan ${order.planId})`} ended "${order.status}"${reason ? `: ${reason.replace(/\.$/, "")}` : ""}.`, "order_failed");
  }
}

/** The order is in a state the contract does not name; waiting on would be guessing. */
export class UnexpectedOrderStateError extends ProxyError {
  constructor(readonly order: Order) {
    super(
      `Order ${order.id} is in the state "${order.status}", which this provider does not know ` +
        `(expected one of ${[...PENDING_ORDER_STATES, ...TARGET_ORDER_STATES, ...SPENT_ORDER_STATES].join(", ")}). ` +
        "The API may have changed; please report it.",
      "unexpected_order_state",
    );
  }
}

/** The deadline passed before the order became active. */
export class OrderWaitTimeoutError extends ProxyError {
  constructor(
    readonly orderId: string,
    readonly lastSeen: Order | undefined,
    readonly waitedMs: number,
  ) {
    super(
      `Order ${orderId} was not ready after ${formatDuration(waitedMs)} ` + `(last state: ${lastSeen?.status ?? "not yet visible"}).`,
      "wait_timeout",
    );
  }
}

/** The wait was cancelled through its signal. */
export class OrderWaitCancelledError extends ProxyError {
  constructor(
    readonly orderId: string,
    readonly lastSeen: Order | undefined,
  ) {
    super(`Waiting for order ${orderId} was cancelled (last state: ${lastSeen?.status ?? "not yet visible"}).`, "wait_cancelled");
  }
}

/** Polls `GET /v1/orders/{id}` until the order is active; rejects with one of the errors above or the client's. */
export async function waitForOrder(options: WaitOptions): Promise<Order> {
  const { client, orderId, signal } = options;
  const clock = client.clock;
  const schedule = scheduleOf(options);
  const started = clock.now();
  const outcomeOf = answerReader(options, clock, started);
  const notFound = notFoundWindow(clock, options.notFoundWindowMs ?? DEFAULT_WAIT_SCHEDULE.notFoundWindowMs);
  let lastSeen = options.lastSeen;
  let hintMs: number | undefined;
  let trustEstimate = true;
  const known = lastSeen && outcomeOf(lastSeen);
  if (known) return known;
  const plan = planTime(options.provisioning, clock, started);
  // When the order should be ready: the API's estimate, or else what the plan's orders took.
  const expectedAt = (): number => (lastSeen?.estimatedReadyAt ? Date.parse(lastSeen.estimatedReadyAt) : plan.expectedAt());
  const cancelled = (error: unknown): never => {
    throw signal?.aborted ? new OrderWaitCancelledError(orderId, lastSeen) : error;
  };
  return poll().finally(() => plan.end());

  async function poll(): Promise<Order> {
    let polled = false;
    for (;;) {
      const now = clock.now();
      const remaining = options.deadline - now;
      if (remaining <= 0) throw new OrderWaitTimeoutError(orderId, lastSeen, now - started);
      const earlierOrder = trustEstimate && !lastSeen?.estimatedReadyAt ? plan.earlierOrderChange() : undefined;
      if (earlierOrder && (await changedWithin(earlierOrder, Math.min(remaining, schedule.maxPollMs), clock, signal).catch(cancelled))) continue;
      const estimated = trustEstimate ? expectedAt() : Number.NaN;
      const pause = earlierOrder ? 0 : nextPollDelay({ waitedMs: now - started, now, readyAt: estimated, retryAfterMs: hintMs, ...schedule });
      // Waiting for the plan's time, the order looks again when that gets shorter or a try ends.
      const timeChange = Number.isFinite(estimated) && !lastSeen?.estimatedReadyAt ? plan.nextChange() : undefined;
      if (timeChange && (await changedWithin(timeChange, Math.min(remaining, pause), clock, signal).catch(cancelled))) continue;
      try {
        if (!timeChange) await clock.sleep(Math.min(remaining, pause), signal);
        // Under a rate limit, a poll at the order's estimate goes before routine ones, and may wait for its turn until
        // the order's deadline.
        const priority = expectedAt() <= clock.now() ? "due" : "routine";
        const result = await client.getOrder(orderId, { signal, deadline: options.deadline, priority, onHeld: options.onHeld });
        polled = true;
        lastSeen = result.order;
        hintMs = result.retryAfterMs;
        notFound.seen();
      } catch (error) {
        if (signal?.aborted) throw new OrderWaitCancelledError(orderId, lastSeen);
        if (!(error instanceof NotFoundError)) throw error;
        notFound.missing(error);
        hintMs = undefined;
        continue;
      }
      const done = outcomeOf(lastSeen);
      if (done) {
        if (polled) plan.ready(!trustEstimate);
        return done;
      }
      if (!plan.notReady(estimated) && estimated <= clock.now()) trustEstimate = false;
    }
  }
}

/** The poll schedule of a wait: its options, or the defaults. */
function scheduleOf(options: WaitOptions) {
  return {
    basePollMs: options.basePollMs ?? DEFAULT_WAIT_SCHEDULE.basePollMs,
    pollGrowth: options.pollGrowth ?? DEFAULT_WAIT_SCHEDULE.pollGrowth,
    maxPollMs: options.maxPollMs ?? DEFAULT_WAIT_SCHEDULE.maxPollMs,
  };
}

/**
 * The `404`s a new order may answer while the API's reads catch up with its write: taken for `windowMs`, and for
 * `notFoundReads` reads whatever the time; `missing` rethrows the `404` past both, `seen` starts the count again.
 */
function notFoundWindow(clock: Pick<Clock, "now">, windowMs: number) {
  let first: number | undefined;
  let reads = 0;
  return {
    seen(): void {
      first = undefined;
      reads = 0;
    },
    missing(error: NotFoundError): void {
      first ??= clock.now();
      reads += 1;
      if (clock.now() - first >= windowMs && reads > DEFAULT_WAIT_SCHEDULE.notFoundReads) throw error;
    },
  };
}

/**
 * One wait's part in what its plan's orders took (provisioning.ts): the time it expects from them, a shorter one it
 * tries when offered, and what its reads teach. Without `times` (an order replayed or resumed), it expects nothing.
 */
function planTime(times: PlanProvisioningTimes | undefined, clock: Clock, started: number) {
  const ended = times?.begin(started);
  let trial: ProvisioningTry | undefined;
  let tried = false;
  return {
    /** When the order should be ready by the plan's time (or a try below it); NaN while nothing is learned. */
    expectedAt(): number {
      const learned = times?.expectedMs();
      if (learned === undefined) return Number.NaN;
      if (!tried) {
        trial = times?.tryShorter(clock.now() - started);
        tried = trial !== undefined;
      }
      return started + (trial?.ms ?? learned);
    },
    /** While nothing is learned and an older order of the plan is waited for: its next change (this order follows). */
    earlierOrderChange: () => times?.earlierOrderChange(started),
    /** What a wait for the plan's time is cut short by: the time getting shorter, or a try ending. */
    nextChange: () => times?.nextChange(),
    /** The order was seen ready; `late` when it was not ready by the time it expected. */
    ready(late: boolean): void {
      times?.observe(clock.now() - started, late);
    },
    /** The order was seen not ready, expected at `expected`: true when that was only a try, and the plan's time holds. */
    notReady(expected: number): boolean {
      times?.notReadyAfter(clock.now() - started);
      if (!trial || !(expected <= clock.now())) return false;
      trial.end();
      trial = undefined;
      return true;
    },
    end(): void {
      trial?.end();
      ended?.();
    },
  };
}

/**
 * What a poll's answer means: the order when it is active; an error when it will never be; undefined while it is
 * pending, reported on every change of state and every `progressEveryMs`.
 */
function answerReader(options: WaitOptions, clock: Clock, started: number): (order: Order) => Order | undefined {
  const progressEveryMs = options.progressEveryMs ?? DEFAULT_WAIT_SCHEDULE.progressEveryMs;
  let lastReportedStatus: string | undefined;
  let lastReportAt = started;
  return (order) => {
    if (isTargetState(order.status)) return order;
    if (isSpentState(order.status)) throw new OrderFailedError(order);
    if (!isPendingState(order.status)) throw new UnexpectedOrderStateError(order);
    const at = clock.now();
    if (order.status !== lastReportedStatus || at - lastReportAt >= progressEveryMs) {
      options.onProgress?.({ orderId: options.orderId, status: order.status, waitedMs: at - started });
      lastReportedStatus = order.status;
      lastReportAt = at;
    }
    return undefined;
  };
}

/**
 * Waits, reading nothing, for a change of what the plan's orders teach (provisioning.ts), at most `ms`: true when
 * it came (look again at what to expect), false when `ms` passed first (read the order now). Rejects when `signal`
 * aborts.
 */
async function changedWithin(change: Promise<void>, ms: number, clock: Clock, signal: AbortSignal | undefined): Promise<boolean> {
  const stop = new AbortController();
  const cancelled = () => stop.abort();
  signal?.addEventListener("abort", cancelled, { once: true });
  try {
    return await Promise.race([change.then(() => true), clock.sleep(ms, stop.signal).then(() => false)]);
  } finally {
    signal?.removeEventListener("abort", cancelled);
    stop.abort();
  }
}

/** What {@link nextPollDelay} decides from. */
export interface PollDelayInput {
  /** Time waited so far. */
  waitedMs: number;
  /** The current time (epoch milliseconds), to read `readyAt` against. */
  now: number;
  /** When the order should be ready (epoch milliseconds), if an estimate is still trusted; NaN or absent if none. */
  readyAt?: number;
  /** The server's `Retry-After` on the last poll. */
  retryAfterMs?: number;
  basePollMs: number;
  pollGrowth: number;
  maxPollMs: number;
}

/**
 * The pause before the next poll: just after `readyAt` when that is still ahead (at most `maxPollMs`); otherwise
 * `basePollMs + pollGrowth × waited`, at most `maxPollMs`; and never sooner than the server's `Retry-After` (itself
 * capped at `maxPollMs`). The caller leaves out `readyAt` once an estimate has failed.
 */
export function nextPollDelay(input: PollDelayInput): number {
  let delay = Math.min(input.maxPollMs, input.basePollMs + input.pollGrowth * input.waitedMs);
  const estimate = (input.readyAt ?? Number.NaN) - input.now;
  // Just after the estimate, so that an exact estimate finds the order ready.
  if (Number.isFinite(estimate) && estimate >= 0) {
    delay = Math.min(input.maxPollMs, estimate + 20);
  }
  if (input.retryAfterMs !== undefined) {
    delay = Math.max(delay, Math.min(input.retryAfterMs, input.maxPollMs));
  }
  return Math.round(delay);
}
