/**
 * The purchase flow that ProxyOrder and ProxyFleet share: buy a plan once (by idempotency key), carry on with an order
 * an earlier run bought with the same key, buy the successor of one that is spent or due for renewal, and wait for it.
 *
 * An outcome says what is known instead of throwing, so each resource decides what to record: a single order throws a
 * partial create, a fleet records the member and carries on with the others. Only a purchase that never produced an
 * order (402, an unknown plan, the rate limit past the deadline, repeated failures) throws.
 */
import { NotFoundError, ProxyError, UnreadableOrderError } from "../../client";
import { isSpentState, isTargetState, type Order } from "../../contract";
import { confirmApiAnswers, confirmOrderGone, OrderAbsenceUnconfirmedError } from "./absence";
import { formatDuration } from "../shared/duration";
import { keyAfterRemovedOrder, nextPurchaseKey } from "../state/idempotency";
import { absenceOtherKey, absenceUnrecorded } from "../shared/messages";
import { keySeesAccount, unrecorded, witness, type OrderOrigin } from "../state/origin";
import { assessExpiry, orderExpiry, replacesOrder } from "../state/renewal";
import type { Account } from "./account";
import type { PlanProvisioningTimes } from "./provisioning";
import { heldReporter, type ProviderLog } from "./rate-limit-report";
import { OrderFailedError, OrderWaitCancelledError, OrderWaitTimeoutError, waitForOrder, type WaitProgress } from "./wait";

/** Re-purchases after spent orders, per purchase, before giving up (each one was reported). */
const MAX_REPURCHASES = 3;

/** One purchase (or the wait for an order that exists). */
export interface PurchaseRequest {
  planId: string;
  /** The idempotency key to buy with. */
  key: string;
  /** The resource's renewal window: a replayed order inside it is followed by its successor. */
  renewBefore?: string;
  /** Wait until the order is active. */
  waitForReady: boolean;
  /** Epoch milliseconds by which the purchase, including its turn under the rate limit, and the wait must end. */
  deadline: number;
  /** Ends the wait at once (a plugin's Cancel); the order is then unfinished. */
  signal?: AbortSignal;
  /**
   * Told how long each request was held back by the rate limit. @default a line for this order once its requests
   * waited 30 s in all
   */
  onHeld?: (heldMs: number) => void;
  /** Told of the order's state while it is waited for. @default a line on every change of state, and every 30 s */
  onProgress?: (progress: WaitProgress) => void;
  /** Told when the key met an order an earlier run bought. @default a line saying so */
  onCarriedOn?: (order: Order) => void;
}

/** What a purchase or a resumed wait came to. `purchaseKey` is null for an adopted order, whose key is not known. */
export type PurchaseOutcome =
  /** Active, or bought and not waited for. */
  | { kind: "done"; order: Order; purchaseKey: string | null }
  /** Bought, but not ready: the deadline passed, the wait was cancelled, or contact was lost. The next `up` resumes it. */
  | { kind: "unfinished"; order: Order; purchaseKey: string | null; reason: string }
  /** It ended failed, cancelled or expired while waited for: nothing usable. */
  | { kind: "failed"; order: Order; purchaseKey: string | null; error: OrderFailedError };

/** What the purchase flow depends on (its time is the account's client's clock, in which its deadlines count). */
export interface PurchaseFlowOptions {
  log: ProviderLog;
}

/** The purchase flow of one provider core. */
export interface PurchaseFlow {
  /** Buys the plan, or carries on with the order an earlier run bought with the same key, and waits if asked. */
  purchase(account: Account, request: PurchaseRequest): Promise<PurchaseOutcome>;
  /** Waits for an order that exists; what the wait ended with. */
  resume(
    account: Account,
    order: Order,
    purchaseKey: string | null,
    request: Pick<PurchaseRequest, "deadline" | "signal" | "onHeld" | "onProgress">,
  ): Promise<PurchaseOutcome>;
  /** An order that exists (adopted), waited for unless it is ready or not to be waited for. */
  adopt(account: Account, order: Order, request: Pick<PurchaseRequest, "waitForReady" | "deadline" | "signal">): Promise<PurchaseOutcome>;
  /**
   * The order, or "gone" when its absence is certain; rejects when a 404 cannot be confirmed. `origin` is what the
   * state records of where the order lives: a 404 counts only for a key that sees its account (origin.ts).
   */
  readOrder(account: Account, id: string, origin?: OrderOrigin): Promise<Order | "gone">;
}

/** Creates the purchase flow of one provider core. */
export function createPurchaseFlow(options: PurchaseFlowOptions): PurchaseFlow {
  return new OrderPurchases(options);
}

/** The purchase flow: each method one step of it, all sharing the core's log, clock and waiter options. */
class OrderPurchases implements PurchaseFlow {
  constructor(private readonly options: PurchaseFlowOptions) {}

  async readOrder(account: Account, id: string, origin?: OrderOrigin): Promise<Order | "gone"> {
    const { api } = account;
    try {
      const { order } = await api.getOrder(id);
      witness(account, origin);
      return await account.activeProxies.complete(order, this.options.log);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      const found = await confirmOrderGone(api, id, error);
      if (found === "gone" && !keySeesAccount(account, origin)) {
        throw new OrderAbsenceUnconfirmedError(unrecorded(origin) ? absenceUnrecorded(id, api.baseUrl) : absenceOtherKey(id), {
          status: error.status,
          code: "absence_unconfirmed",
          requestId: error.requestId,
          method: error.method,
          path: error.path,
        });
      }
      return found;
    }
  }

  async purchase(account: Account, request: PurchaseRequest): Promise<PurchaseOutcome> {
    const { log } = this.options;
    const { api } = account;
    let key = request.key;
    let orderId: string | undefined;
    const onHeld = request.onHeld ?? heldReporter(log, () => (orderId ? `order ${orderId}` : `the purchase of plan ${request.planId}`));
    for (let repurchase = 0; ; repurchase++) {
      const created = await account.purchases.count(() =>
        api.createOrder({ planId: request.planId, idempotencyKey: key }, { onHeld, deadline: request.deadline }),
      ).catch(async (error: unknown) => {
        // The order was made, and its answer names it: it is recorded as not yet read (pending), and the next `up` reads it.
        if (error instanceof UnreadableOrderError) return error;
        if (!(error instanceof NotFoundError)) throw error;
        // A 404 to a purchase: the order this key bought earlier was removed, so the key is spent. Unless another
        // request shows that the API answers, the 404 may come from a wrong base URL, and nothing may be bought.
        await confirmApiAnswers(api, error, `nothing was bought for plan ${request.planId}`);
        return "removed" as const;
      });
      if (created === "removed") {
        if (repurchase >= MAX_REPURCHASES) throw repeatedFailures(request.planId, `the order of key ${key} was removed`, repurchase);
        log.warn(
          `proxy: the order bought earlier for plan ${request.planId} with this key no longer exists (the API answered its ` +
            "replay with 404: it was removed, for example refunded); buying again once, with a key derived from the old one",
        );
        key = keyAfterRemovedOrder(key);
        continue;
      }
      if (created instanceof UnreadableOrderError) {
        orderId = created.orderId;
        return this.afterUnreadable(account, created, key, request, onHeld);
      }
      const { order, replayed, boughtBeforeThisCall } = created;
      orderId = order.id;
      // Only an order bought before this purchase began may be bought again: one that is spent, or due for renewal
      // (the resource planned no successor key, so the key met it again). A spent order this very call may have
      // bought (its answer lost, then replayed) goes on to the waiter, which reports it as failed, by id.
      const spent = isSpentState(order.status);
      const due = replacesOrder(assessExpiry({ ...order, expiresAt: orderExpiry(order), renewBefore: request.renewBefore }, api.clock.now()));
      if (!(boughtBeforeThisCall && (spent || due))) {
        if (replayed) {
          if (request.onCarriedOn) request.onCarriedOn(order);
          else log.info(`proxy: order ${order.id} was bought earlier with this key; carrying on with it (not bought again)`);
        }
        // A new order's age is known (it was bought just now), so what the plan's orders took can schedule its polls.
        const times = replayed ? undefined : account.provisioningOf(request.planId);
        return request.waitForReady
          ? this.waitFor(account, order, key, request, onHeld, times)
          : { kind: "done", order: await account.activeProxies.complete(order, log), purchaseKey: key };
      }
      if (repurchase >= MAX_REPURCHASES) throw repeatedFailures(request.planId, `order ${order.id} ended "${order.status}"`, repurchase);
      log.warn(
        `proxy: order ${order.id} (bought by an earlier run with this key) ` +
          (spent ? `ended "${order.status}"` : "is due for renewal") +
          "; buying again with a key derived from it",
      );
      key = nextPurchaseKey(key, order.id);
    }
  }

  /**
   * A purchase whose answer could not be read but names the order it made: the order exists. Its reads may be readable
   * where the purchase's answer was not (a `201` with its `Location` alone, as many APIs answer a creation), so the wait
   * carries on with it, as with any order bought (or, not to be waited for, one read of it stands for the answer); the
   * order is unfinished (recorded as pending) when its reads fail too.
   */
  private async afterUnreadable(
    account: Account,
    created: UnreadableOrderError,
    key: string,
    request: PurchaseRequest,
    onHeld: (heldMs: number) => void,
  ): Promise<PurchaseOutcome> {
    const order = { id: created.orderId, planId: request.planId, status: "pending" };
    const reason = created.message.replace(/\.\s*$/, "");
    this.options.log.info(`proxy: the purchase's answer names order ${order.id} but could not be read; reading the order itself`);
    if (!request.waitForReady) {
      try {
        const { order: read } = await account.api.getOrder(order.id, { onHeld, deadline: request.deadline });
        return { kind: "done", order: await account.activeProxies.complete(read, this.options.log), purchaseKey: key };
      } catch (error) {
        if (!(error instanceof ProxyError)) throw error;
        return { kind: "unfinished", order, purchaseKey: key, reason: `${reason}. Reading it afterwards failed too: ${error.message.replace(/\.\s*$/, "")}` };
      }
    }
    const outcome = await this.waitFor(account, order, key, request, onHeld);
    return outcome.kind === "unfinished" ? { ...outcome, reason: `${reason}. Reading it afterwards failed too: ${outcome.reason}` } : outcome;
  }

  resume(...[account, order, purchaseKey, request]: Parameters<PurchaseFlow["resume"]>): Promise<PurchaseOutcome> {
    return this.waitFor(account, order, purchaseKey, request, request.onHeld ?? heldReporter(this.options.log, () => `order ${order.id}`));
  }

  async adopt(...[account, order, request]: Parameters<PurchaseFlow["adopt"]>): Promise<PurchaseOutcome> {
    return request.waitForReady && !isTargetState(order.status) ? this.resume(account, order, null, request) : { kind: "done", order, purchaseKey: null };
  }

  /**
   * Waits for the order with `onHeld` told of its polls held back, and `provisioning` for an order bought just now;
   * what the wait ended with, as an outcome, an active order with its proxies (order-proxies.ts).
   */
  private async waitFor(
    account: Account,
    order: Order,
    purchaseKey: string | null,
    request: Pick<PurchaseRequest, "deadline" | "signal" | "onProgress">,
    onHeld: (heldMs: number) => void,
    provisioning?: PlanProvisioningTimes,
  ): Promise<PurchaseOutcome> {
    const { log } = this.options;
    try {
      const ready = await waitForOrder({
        client: account.api,
        orderId: order.id,
        signal: request.signal,
        deadline: request.deadline,
        lastSeen: order,
        onProgress: request.onProgress ?? ((p) => log.info(`proxy: order ${p.orderId} is ${p.status} (waited ${formatDuration(p.waitedMs)})`)),
        onHeld,
        provisioning,
      });
      return { kind: "done", order: await account.activeProxies.complete(ready, log), purchaseKey };
    } catch (error) {
      if (error instanceof OrderFailedError) return { kind: "failed", order: error.order, purchaseKey, error };
      const last = (error instanceof OrderWaitTimeoutError || error instanceof OrderWaitCancelledError) && error.lastSeen ? error.lastSeen : order;
      const reason = (error instanceof Error ? error.message : String(error)).replace(/\.\s*$/, "");
      return { kind: "unfinished", order: last, purchaseKey, reason };
    }
  }
}

/** The flow has bought again `times` times for one purchase, and the last attempt came to nothing usable either. */
function repeatedFailures(planId: string, last: string, times: number): ProxyError {
  return new ProxyError(
    `The purchase of plan ${planId} came to nothing usable ${times + 1} times in a row (last: ${last}). ` +
      "Not buying again automatically; check the plan with the provider's support.",
    "repeated_failures",
  );
}
