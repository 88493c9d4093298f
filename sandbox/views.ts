/**
 * What the API shows of the sandbox's state at a given time: an order's status, the order and proxy records in their
 * wire shape, and the usage. Pure functions of the state and `now`.
 */
import type { Complete } from "../contract";
import type { OrderWire, ProxyWire, UsageWire } from "../contract/wire";
import { PLANS, type Plan } from "./catalogue";
import type { SandboxState, StoredOrder, StoredProxy } from "./state";

/** Bytes per second and requests per second each active proxy adds to the usage. */
const BYTES_PER_PROXY_SECOND = 48_000;
const REQUESTS_PER_PROXY_SECOND = 0.5;
/** The sandbox account's monthly bandwidth allowance: 500 GiB; requests are unlimited. */
const BANDWIDTH_LIMIT_BYTES = 500 * 1024 ** 3;
const DAY_MS = 86_400_000;

/** When the order's provisioning ends (it becomes `active` or `failed`). */
const readyTime = (order: StoredOrder): number => order.createdAt + order.provisioningMs;

/** When an active order expires: its lifetime (the sandbox's setting when it was made, else its plan's) after ready. */
function expiryTime(order: StoredOrder): number {
  return readyTime(order) + (order.lifetimeMs ?? (PLANS[order.planId]?.durationDays ?? 30) * DAY_MS);
}

/** Status of an order at time `now`: pending for the first quarter of provisioning, then provisioning, then done. */
export function orderStatus(order: StoredOrder, now: number): string {
  if (order.cancelledAt !== undefined && now >= order.cancelledAt) return "cancelled";
  const elapsed = now - order.createdAt;
  if (elapsed < order.provisioningMs / 4) return "pending";
  if (elapsed < order.provisioningMs) return "provisioning";
  if (PLANS[order.planId]?.failsWith || order.fails) return "failed";
  return now < expiryTime(order) ? "active" : "expired";
}

/** Proxies of every active order, in order of creation. */
export function activeProxies(state: SandboxState, now: number): StoredProxy[] {
  return [...state.orders.values()].filter((o) => orderStatus(o, now) === "active").flatMap((o) => o.proxies);
}

/** The order as the API returns it: every field of the contract's order, listed. */
export function orderView(state: SandboxState, order: StoredOrder, now: number, pollingHints = true): Complete<OrderWire> {
  const status = orderStatus(order, now);
  const readyAt = readyTime(order);
  const terminal = status !== "pending" && status !== "provisioning";
  const statusAt = status === "cancelled" && order.cancelledAt !== undefined ? order.cancelledAt : terminal ? readyAt : order.createdAt;
  const done = status === "active" || status === "expired";
  return {
    id: order.id,
    plan_id: order.planId,
    status,
    status_reason: statusReason(status, PLANS[order.planId]),
    created_at: iso(order.createdAt),
    updated_at: iso(statusAt),
    ready_at: done ? iso(readyAt) : null,
    estimated_ready_at: !terminal && pollingHints && state.records === "full" ? iso(readyAt) : undefined,
    // Not in the contract's order record: the sandbox's proxies carry their expiry, as the contract has them do.
    expires_at: undefined,
    proxies: done ? (status === "active" ? order.proxies.map((p) => proxyView(state, p)) : []) : undefined,
  };
}

function statusReason(status: string, plan: Plan | undefined): OrderWire["status_reason"] {
  if (status === "failed") return plan?.failsWith ?? { code: "provisioning_failed", message: "Provisioning failed." };
  if (status === "cancelled") return { code: "cancelled_by_operator", message: "The order was cancelled by the operator." };
  return null;
}

/** A proxy as the API returns it: every field of the contract's proxy, listed; with minimal records, the seed's four. */
export function proxyView(state: SandboxState, proxy: StoredProxy): Complete<ProxyWire> {
  const order = state.orders.get(proxy.order_id);
  const seed = { ip: proxy.ip, port: proxy.port, type: proxy.type, country: proxy.country };
  const full = state.records === "full";
  return {
    ...seed,
    id: full ? proxy.id : undefined,
    order_id: full ? proxy.order_id : undefined,
    protocol: full ? proxy.protocol : undefined,
    username: full ? proxy.username : undefined,
    password: full ? proxy.password : undefined,
    city: full ? proxy.city : undefined,
    expires_at: full && order ? iso(expiryTime(order)) : undefined,
  };
}

/** Usage of the current calendar month (UTC), grown from the active time of every proxy. */
export function usageView(state: SandboxState, now: number): Complete<UsageWire> {
  const date = new Date(now);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  let proxySeconds = 0;
  for (const order of state.orders.values()) {
    const plan = PLANS[order.planId];
    if (!plan || plan.failsWith || order.fails) continue;
    // Billing runs from the ready time (or the month's start) to expiry, counted from the ready time, or cancellation.
    const activeFrom = Math.max(start, readyTime(order));
    const activeUntil = Math.min(now, order.cancelledAt ?? now, expiryTime(order));
    if (activeUntil > activeFrom) {
      proxySeconds += ((activeUntil - activeFrom) / 1000) * order.proxies.length;
    }
  }
  return {
    period: { start: iso(start), end: iso(end) },
    as_of: iso(now),
    bandwidth: { used_bytes: Math.floor(proxySeconds * BYTES_PER_PROXY_SECOND), limit_bytes: BANDWIDTH_LIMIT_BYTES },
    requests: { used: Math.floor(proxySeconds * REQUESTS_PER_PROXY_SECOND), limit: null },
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
