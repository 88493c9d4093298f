/**
 * The sandbox's account: its orders, the proxies they provision, the balance, and the clock that moves orders from
 * `pending` to `active`. Status is derived from the clock on every read, so a restart (with a state file) carries on
 * where it stopped.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { DEFAULT_BALANCE_CENTS, PLANS, type Plan } from "./catalogue";
import type { IdempotencyRecord } from "./idempotency";

/** A proxy as the sandbox stores it (wire field names). */
export interface StoredProxy {
  id: string;
  order_id: string;
  ip: string;
  port: number;
  type: string;
  country: string;
  city: string;
  protocol: string;
  username: string;
  password: string;
}

/** An order as the sandbox stores it; its status is computed by {@link orderStatus}. */
export interface StoredOrder {
  id: string;
  planId: string;
  createdAt: number;
  /** Provisioning time in force when the order was made. */
  provisioningMs: number;
  /** Set by the operator (admin route or test): the order is `cancelled` from then on. */
  cancelledAt?: number;
  /** Reads left that answer 404 (the read-after-write fault). */
  hiddenReads: number;
  /** Set by the fail-fast fault: the order ends `failed` whatever its plan. */
  fails?: boolean;
  proxies: StoredProxy[];
}

/** What the state file holds. */
interface StateFile {
  version: 1;
  sequence: number;
  balanceCents: number;
  orders: StoredOrder[];
  idempotency: IdempotencyRecord[];
}

/** Bytes per second and requests per second each active proxy adds to the usage. */
const BYTES_PER_PROXY_SECOND = 48_000;
const REQUESTS_PER_PROXY_SECOND = 0.5;
/** The sandbox account's monthly bandwidth allowance: 500 GiB; requests are unlimited. */
const BANDWIDTH_LIMIT_BYTES = 500 * 1024 ** 3;

/** The state of one sandbox account. */
export class Store {
  readonly orders = new Map<string, StoredOrder>();
  readonly idempotency = new Map<string, IdempotencyRecord>();
  balanceCents = DEFAULT_BALANCE_CENTS;
  private sequence = 0;

  constructor(
    private readonly stateFile: string | undefined,
    readonly now: () => number = Date.now,
  ) {
    if (stateFile && existsSync(stateFile)) {
      const saved = JSON.parse(readFileSync(stateFile, "utf8")) as StateFile;
      this.sequence = saved.sequence;
      this.balanceCents = saved.balanceCents;
      for (const order of saved.orders) this.orders.set(order.id, order);
      for (const record of saved.idempotency) this.idempotency.set(record.key, record);
    }
  }

  /** Writes the state file, if there is one; write then rename, so a crash never leaves half a file. */
  save(): void {
    if (!this.stateFile) return;
    const state: StateFile = {
      version: 1,
      sequence: this.sequence,
      balanceCents: this.balanceCents,
      orders: [...this.orders.values()],
      idempotency: [...this.idempotency.values()],
    };
    const temp = `${this.stateFile}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(state));
    renameSync(temp, this.stateFile);
  }

  /** Creates an order for a plan (the caller checked the plan and the balance). */
  createOrder(plan: Plan, provisioningMs: number, faults: { hiddenReads: number; fails: boolean }): StoredOrder {
    this.sequence += 1;
    const seq = this.sequence;
    const id = `ord_${seq.toString(36).padStart(4, "0")}${randomBytes(4).toString("hex")}`;
    const proxies = Array.from({ length: plan.proxyCount }, (_, i) => makeProxy(plan, id, seq, i));
    const order: StoredOrder = {
      id,
      planId: plan.id,
      createdAt: this.now(),
      provisioningMs,
      hiddenReads: faults.hiddenReads,
      ...(faults.fails ? { fails: true } : {}),
      proxies,
    };
    this.orders.set(id, order);
    this.balanceCents -= plan.priceCents;
    return order;
  }

  /** The order's status now. */
  status(order: StoredOrder): string {
    return orderStatus(order, this.now());
  }

  /** Proxies of every active order, in order of creation. */
  activeProxies(): StoredProxy[] {
    return [...this.orders.values()].filter((o) => this.status(o) === "active").flatMap((o) => o.proxies);
  }

  /** The order as the API returns it. */
  orderView(order: StoredOrder): Record<string, unknown> {
    const now = this.now();
    const status = orderStatus(order, now);
    const plan = PLANS[order.planId];
    const readyAt = order.createdAt + order.provisioningMs;
    const terminal = status !== "pending" && status !== "provisioning";
    const statusAt = status === "cancelled" && order.cancelledAt !== undefined ? order.cancelledAt : terminal ? readyAt : order.createdAt;
    const view: Record<string, unknown> = {
      id: order.id,
      plan_id: order.planId,
      status,
      status_reason: null,
      created_at: iso(order.createdAt),
      updated_at: iso(statusAt),
      ready_at: null,
    };
    if (!terminal) {
      view.estimated_ready_at = iso(readyAt);
    }
    if (status === "failed") {
      view.status_reason = plan?.failsWith ?? { code: "provisioning_failed", message: "Provisioning failed." };
    }
    if (status === "cancelled") {
      view.status_reason = { code: "cancelled_by_operator", message: "The order was cancelled by the operator." };
    }
    if (status === "active" || status === "expired") {
      view.ready_at = iso(readyAt);
      view.proxies = status === "active" ? order.proxies.map((p) => this.proxyView(p)) : [];
    }
    return view;
  }

  /** A proxy as the API returns it. */
  proxyView(proxy: StoredProxy): Record<string, unknown> {
    const order = this.orders.get(proxy.order_id);
    const plan = order ? PLANS[order.planId] : undefined;
    const expiresAt = order && plan ? order.createdAt + order.provisioningMs + plan.durationDays * 86_400_000 : undefined;
    return { ...proxy, ...(expiresAt === undefined ? {} : { expires_at: iso(expiresAt) }) };
  }

  /** Usage of the current calendar month (UTC), grown from the active time of every proxy. */
  usage(): Record<string, unknown> {
    const now = this.now();
    const date = new Date(now);
    const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    let proxySeconds = 0;
    for (const order of this.orders.values()) {
      const plan = PLANS[order.planId];
      if (!plan || plan.failsWith || order.fails) continue;
      const readyAt = order.createdAt + order.provisioningMs;
      // Billing stops at expiry, which counts from the ready time, not from the start of this month.
      const activeFrom = Math.max(start, readyAt);
      const activeUntil = Math.min(now, order.cancelledAt ?? now, readyAt + plan.durationDays * 86_400_000);
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
}

/** Status of an order at time `now`: pending for the first quarter of provisioning, then provisioning, then done. */
export function orderStatus(order: StoredOrder, now: number): string {
  if (order.cancelledAt !== undefined && now >= order.cancelledAt) return "cancelled";
  const elapsed = now - order.createdAt;
  if (elapsed < order.provisioningMs / 4) return "pending";
  if (elapsed < order.provisioningMs) return "provisioning";
  const plan = PLANS[order.planId];
  if (plan?.failsWith || order.fails) return "failed";
  const expiresAt = order.createdAt + order.provisioningMs + (plan?.durationDays ?? 30) * 86_400_000;
  return now < expiresAt ? "active" : "expired";
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Addresses come from the documentation ranges (RFC 5737, RFC 3849), so they can never reach a real host. */
function makeProxy(plan: Plan, orderId: string, seq: number, index: number): StoredProxy {
  const n = seq * 1000 + index;
  const ip =
    plan.type === "mobile"
      ? `2001:db8::${(n % 0xffff).toString(16)}`
      : `${plan.type === "residential" ? "203.0.113" : "198.51.100"}.${(n % 254) + 1}`;
  return {
    id: `px_${orderId.slice(4)}_${index}`,
    order_id: orderId,
    ip,
    port: 10_000 + (n % 50_000),
    type: plan.type,
    country: plan.country,
    city: plan.city,
    protocol: plan.protocol,
    username: `user_${orderId.slice(4)}_${index}`,
    password: randomBytes(12).toString("hex"),
  };
}
