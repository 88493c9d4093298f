/**
 * What a change to a ProxyOrder means, decided without calling anything: which properties replace the order, which
 * are updated in place, whether the replacement follows the stored order (and so buys with a key derived from it),
 * and what the preview warns about. order-provider.ts carries the decisions out.
 */
import { isPendingState, isSpentState } from "../../contract";
import { PROXY_ORDER } from "../schema/definitions";
import { changedInputs, replacingInputs } from "../schema/fields";
import { healthDue } from "../schema/health-input";
import { replacingOrder } from "../shared/messages";
import type { OrderInputs, OrderOutputs } from "../state/order-state";
import { UNKNOWN } from "../shared/pulumi-host";
import { assessExpiry, expiryMessage, replacesOrder } from "../state/renewal";

/** A diff's decision, and what it tells the user. */
export interface OrderChange {
  changes: boolean;
  /** Properties whose change replaces the order (or `status`, `expiresAt` for a spent or due one). */
  replaces: string[];
  /** Every changed property, replacing or not, for engines that show them. */
  diffs: string[];
  /** True when the replacement is the successor of the stored order: it buys with a key derived from it. */
  follows: boolean;
  /** Lines for the log, in order. */
  warnings: string[];
}

/**
 * A new plan replaces the order, as does a spent one (failed, cancelled, expired), one inside its renewal window, or
 * a different order to adopt. A replacement that buys says so: the old order cannot be cancelled and stays billed.
 * An order that lives at another API than the configured one (`elsewhere`, origin.ts) is never replaced for its state
 * or its expiry: that would buy at an API it was not bought from, unasked (`--replace`, or a new plan, asks).
 */
export function planOrderChange(olds: OrderOutputs, news: OrderInputs, now: number, elsewhere = false): OrderChange {
  const replaces = replacingInputs(PROXY_ORDER).filter((name) => news[name as keyof OrderInputs] !== olds[name as keyof OrderInputs]);
  if (isSpentState(olds.status) && !elsewhere) replaces.push("status");
  const adopts = typeof news.adoptOrderId === "string" && news.adoptOrderId !== olds.orderId;
  if (adopts) replaces.push("adoptOrderId");
  // Judged by the renewBefore the program sets now, so a new window takes effect in the same `up`.
  const renewBefore = news.renewBefore === UNKNOWN ? olds.renewBefore : news.renewBefore;
  const expiry = assessExpiry({ ...olds, renewBefore }, now);
  if (replacesOrder(expiry) && !adopts && !elsewhere) replaces.push("expiresAt");
  const updated = changedInputs(PROXY_ORDER, olds, news).filter((name) => !(adopts && name === "adoptOrderId"));
  const resumes = isPendingState(olds.status) && news.waitForReady !== false;
  const checks = healthDue(olds.status === "active", olds.health, news.healthCheck);
  const warnings: string[] = [];
  const said = elsewhere ? undefined : expiryMessage(olds.orderId, olds.planId, expiry, renewBefore ?? undefined);
  if (said) warnings.push(said);
  if (replaces.some((key) => key !== "expiresAt") && !adopts) warnings.push(replacingOrder(olds, news.planId, news.planId === UNKNOWN));
  return {
    changes: replaces.length > 0 || updated.length > 0 || resumes || checks,
    replaces,
    diffs: [...replaces, ...updated, ...(checks ? ["health"] : [])],
    follows: !adopts && news.planId === olds.planId && (replaces.includes("status") || replaces.includes("expiresAt")),
    warnings,
  };
}
