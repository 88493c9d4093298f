/**
 * Waits for an order to finish provisioning, in the manner of Terraform's state-change waiter: pending states wait,
 * target states return, anything else fails at once, and an overall deadline names the last state seen.
 */
import { setTimeout as sleepFor } from "node:timers/promises";
import type { ProxyApiClient } from "./api/client";
import { NotFoundError } from "./api/errors";
import type { Order } from "./api/schemas";
import { formatDuration } from "./duration";

/** The contract's order states, by what the waiter does with them. */
export const PENDING_STATES: readonly string[] = ["pending", "provisioning"];
export const TARGET_STATES: readonly string[] = ["active"];
/** Terminal failures: the purchase will never produce proxies. */
export const FAILED_STATES: readonly string[] = ["failed", "cancelled", "expired"];

/** Options of {@link waitForOrder}. */
export interface WaitOptions {
  /** Epoch milliseconds after which waiting stops with an OrderWaitTimeoutError. */
  deadline: number;
  /** Shortest pause between polls. @default 1000 */
  minPollMs?: number;
  /** Longest pause between polls. @default 30000 */
  maxPollMs?: number;
  /** `404` answers tolerated before the order counts as missing (the contract's read-after-write burst). @default 5 */
  notFoundTolerance?: number;
  /** Called on every state change and at most every `progressEveryMs` otherwise. */
  onProgress?: (progress: WaitProgress) => void;
  /** @default 30000 */
  progressEveryMs?: number;
  /** The order as last seen, to start from (for example the response of the POST). */
  lastSeen?: Order;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** A progress report while waiting. */
export interface WaitProgress {
  orderId: string;
  status: string;
  waitedMs: number;
}

/** The order reached a state that will never become active. */
export class OrderFailedError extends Error {
  constructor(readonly order: Order) {
    const reason = order.statusReason?.message ?? order.statusReason?.code;
    super(`Order ${order.id} (plan ${order.planId}) ended "${order.status}"${reason ? `: ${reason}` : ""}.`);
    this.name = "OrderFailedError";
  }
}

/** The order is in a state the contract does not name; waiting on would be guessing. */
export class UnexpectedOrderStateError extends Error {
  constructor(readonly order: Order) {
    super(
      `Order ${order.id} is in the state "${order.status}", which this provider does not know ` +
        `(expected one of ${[...PENDING_STATES, ...TARGET_STATES, ...FAILED_STATES].join(", ")}). ` +
        "The API may have changed; please report it.",
    );
    this.name = "UnexpectedOrderStateError";
  }
}

/** The deadline passed before the order became active. */
export class OrderWaitTimeoutError extends Error {
  constructor(
    readonly orderId: string,
    readonly lastSeen: Order | undefined,
    readonly waitedMs: number,
  ) {
    super(
      `Order ${orderId} was not ready after ${formatDuration(waitedMs)} ` +
        `(last state: ${lastSeen?.status ?? "not yet visible"}).`,
    );
    this.name = "OrderWaitTimeoutError";
  }
}

/** Polls `GET /v1/orders/{id}` until the order is active; rejects with one of the errors above or the client's. */
export async function waitForOrder(client: Pick<ProxyApiClient, "getOrder">, orderId: string, options: WaitOptions): Promise<Order> {
  const sleep = options.sleep ?? ((ms: number) => sleepFor(ms));
  const now = options.now ?? Date.now;
  const minPollMs = options.minPollMs ?? 1000;
  const maxPollMs = options.maxPollMs ?? 30_000;
  const tolerance = options.notFoundTolerance ?? 5;
  const progressEveryMs = options.progressEveryMs ?? 30_000;
  const started = now();
  let lastSeen = options.lastSeen;
  let lastReportedStatus: string | undefined;
  let lastReportAt = started;
  let notFound = 0;

  for (let poll = 0; ; poll++) {
    let hintMs: number | undefined;
    try {
      const result = await client.getOrder(orderId);
      lastSeen = result.order;
      hintMs = result.retryAfterMs;
      notFound = 0;
    } catch (error) {
      if (!(error instanceof NotFoundError) || notFound >= tolerance) {
        throw error;
      }
      notFound += 1;
    }

    if (lastSeen) {
      const status = lastSeen.status;
      if (TARGET_STATES.includes(status)) return lastSeen;
      if (FAILED_STATES.includes(status)) throw new OrderFailedError(lastSeen);
      if (!PENDING_STATES.includes(status)) throw new UnexpectedOrderStateError(lastSeen);
      const at = now();
      if (status !== lastReportedStatus || at - lastReportAt >= progressEveryMs) {
        options.onProgress?.({ orderId, status, waitedMs: at - started });
        lastReportedStatus = status;
        lastReportAt = at;
      }
    }

    const remaining = options.deadline - now();
    if (remaining <= 0) {
      throw new OrderWaitTimeoutError(orderId, lastSeen, now() - started);
    }
    await sleep(Math.min(remaining, nextPollDelay(poll, lastSeen, hintMs, now(), minPollMs, maxPollMs)));
  }
}

/**
 * Capped exponential backoff (1.5x per poll), brought forward to `estimated_ready_at` when that comes sooner, and
 * never sooner than the server's `Retry-After`.
 */
export function nextPollDelay(
  poll: number,
  order: Order | undefined,
  retryAfterMs: number | undefined,
  now: number,
  minPollMs: number,
  maxPollMs: number,
): number {
  let delay = Math.min(maxPollMs, minPollMs * 1.5 ** poll);
  const estimate = order?.estimatedReadyAt ? Date.parse(order.estimatedReadyAt) - now : Number.NaN;
  if (Number.isFinite(estimate) && estimate > 0 && estimate < delay) {
    delay = Math.max(minPollMs, estimate);
  }
  if (retryAfterMs !== undefined) {
    delay = Math.max(delay, Math.min(retryAfterMs, maxPollMs));
  }
  return Math.round(delay);
}
