/**
 * Renewal before expiry: when an order expires, whether `renewBefore` makes it due, what to tell the user, and the
 * idempotency key a renewal buys with.
 *
 * The API has no renew endpoint, so a renewal is a new purchase (new proxies) made by a replacement: Pulumi creates
 * the new order before it deletes (stops tracking) the old one, so there is no gap.
 */
import { isTargetState } from "../../contract";
import { formatDuration, parseDuration } from "../shared/duration";
import { nextPurchaseKey } from "./idempotency";

/** Without `renewBefore`, refresh and preview warn about an order this close to its expiry. */
export const EXPIRY_WARNING_MS = 7 * 86_400_000;

/** The earliest of the order's own `expires_at` (when an API sends one) and its proxies'; null when none is known. */
export function orderExpiry(order: { expiresAt?: string | null; proxies?: ReadonlyArray<{ expiresAt?: string }> }): string | null {
  const candidates = [order.expiresAt, ...(order.proxies ?? []).map((p) => p.expiresAt)];
  let earliest: { text: string; ms: number } | null = null;
  for (const text of candidates) {
    const ms = typeof text === "string" ? Date.parse(text) : Number.NaN;
    if (text && Number.isFinite(ms) && (earliest === null || ms < earliest.ms)) earliest = { text, ms };
  }
  return earliest?.text ?? null;
}

/** What a stored order's expiry asks of the provider now. */
export type ExpiryAssessment =
  /** Not active, or no expiry known: nothing to say or do. */
  | { kind: "none" }
  /** Active, and `renewBefore` is set, but no expiry is known: renewal is impossible. */
  | { kind: "unknown" }
  /** Outside the warning window (`renewBefore`, else 7 days). */
  | { kind: "later"; expiresAt: string; leftMs: number }
  /** Inside the 7-day warning window, with no `renewBefore`: warn, buy nothing. */
  | { kind: "soon"; expiresAt: string; leftMs: number }
  /** Inside `renewBefore`: the next `up` renews it. */
  | { kind: "due"; expiresAt: string; leftMs: number; windowMs: number }
  /** Inside `renewBefore`, but the window is at least the order's lifetime: renewing would buy on every `up`. */
  | { kind: "refused"; expiresAt: string; leftMs: number; windowMs: number; lifetimeMs: number }
  /** Its expiry has passed: the next `up` replaces it, with or without `renewBefore`. */
  | { kind: "expired"; expiresAt: string };

/** What {@link assessExpiry} reads of a stored order. */
export interface StoredExpiry {
  status: string;
  expiresAt?: string | null;
  readyAt?: string | null;
  createdAt?: string | null;
  renewBefore?: string | null;
  proxies?: Array<{ expiresAt?: string }>;
}

/** Where the order stands against its expiry at `now`. `renewBefore` was validated by `check`. */
export function assessExpiry(order: StoredExpiry, now: number): ExpiryAssessment {
  if (!isTargetState(order.status)) return { kind: "none" };
  const windowMs = order.renewBefore ? parseDuration(order.renewBefore) : undefined;
  // Older states have no expiresAt output: their proxies still carry the expiry.
  const expiresAt = order.expiresAt ?? orderExpiry({ proxies: order.proxies });
  if (expiresAt === null) return windowMs === undefined ? { kind: "none" } : { kind: "unknown" };
  const expiresMs = Date.parse(expiresAt);
  const leftMs = expiresMs - now;
  if (leftMs <= 0) return { kind: "expired", expiresAt };
  if (windowMs === undefined) {
    return leftMs <= EXPIRY_WARNING_MS ? { kind: "soon", expiresAt, leftMs } : { kind: "later", expiresAt, leftMs };
  }
  if (leftMs > windowMs) return { kind: "later", expiresAt, leftMs };
  const startedMs = Date.parse(order.readyAt ?? order.createdAt ?? "");
  const lifetimeMs = expiresMs - startedMs;
  if (Number.isFinite(lifetimeMs) && windowMs >= lifetimeMs) {
    return { kind: "refused", expiresAt, leftMs, windowMs, lifetimeMs };
  }
  return { kind: "due", expiresAt, leftMs, windowMs };
}

/** Whether the assessment replaces the order (a renewal, or an expiry that has passed). */
export function replacesOrder(assessment: ExpiryAssessment): assessment is Extract<ExpiryAssessment, { kind: "due" | "expired" }> {
  return assessment.kind === "due" || assessment.kind === "expired";
}

/**
 * The line a preview, an `up` or a refresh shows for the order, or undefined when there is nothing to say.
 * `renewBefore` is the input as written.
 */
export function expiryMessage(orderId: string, planId: string, assessment: ExpiryAssessment, renewBefore?: string): string | undefined {
  switch (assessment.kind) {
    case "none":
    case "later":
      return undefined;
    case "unknown":
      return (
        `proxy: order ${orderId} cannot be renewed: the API reported no expiry for it (no expires_at on the order or its ` +
        "proxies), so renewBefore has nothing to count from. It is not replaced; refresh shows its status."
      );
    case "expired":
      return (
        `proxy: order ${orderId} (plan ${planId}) expired at ${assessment.expiresAt}; the next \`pulumi up\` replaces it ` +
        "with a new order (a new purchase, new proxies)."
      );
    case "soon":
      return (
        `proxy: order ${orderId} (plan ${planId}) expires at ${assessment.expiresAt}, in ${formatDuration(assessment.leftMs)}. ` +
        'Nothing renews it: set renewBefore (such as "7d") to buy its successor ahead of time, or the first ' +
        "`pulumi up` after it expires replaces it, with dead proxies in between."
      );
    case "due":
      return (
        `proxy: order ${orderId} (plan ${planId}) expires at ${assessment.expiresAt}, in ${formatDuration(assessment.leftMs)}, ` +
        `within renewBefore (${renewBefore}): \`pulumi up\` renews it by buying a new order of plan ${planId} (new ` +
        `proxies), waiting for it, then no longer tracking ${orderId}, which lapses on its own.`
      );
    case "refused": {
      const suggestion = formatDuration(Math.max(1000, Math.floor(assessment.lifetimeMs / 3)));
      return (
        `proxy: not renewing order ${orderId} (plan ${planId}): renewBefore (${renewBefore}) is at least its whole lifetime ` +
        `(${formatDuration(assessment.lifetimeMs)} from ready to expiry), so every renewal would be due at once and each ` +
        `\`pulumi up\` would buy again. Set renewBefore below the lifetime, such as "${suggestion}" (a third of it). ` +
        `It expires at ${assessment.expiresAt}, in ${formatDuration(assessment.leftMs)}.`
      );
    }
  }
}

/** What a successor's key is derived from: the order it follows and the key that order was bought with. */
export interface Predecessor {
  orderId: string;
  purchaseKey?: string | null;
  idempotencyKey: string;
}

/**
 * The key of the order that follows `previous` (a renewal, or a purchase after it failed, was cancelled or expired).
 * Derived from that order, so a retried, interrupted or repeated renewal sends the same key and buys once; the
 * re-purchase loop in create derives the same key when it meets the old order again.
 */
export function successorKey(previous: Predecessor): string {
  return nextPurchaseKey(previous.purchaseKey ?? previous.idempotencyKey, previous.orderId);
}
