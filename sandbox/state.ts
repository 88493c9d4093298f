/**
 * The sandbox's account state: its orders, the proxies they provision, the idempotency keys and the balance, kept in
 * memory and, optionally, in a state file. What the API shows of them (status, views, usage) is in views.ts: status
 * is derived from the clock on every read, so a restart carries on where it stopped.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { DEFAULT_BALANCE_CENTS, type Plan } from "./catalogue";
import type { IdempotencyRecord } from "./idempotency-store";

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
  /** Absent for a proxy that admits its clients by their IP (allow-listed): the option `records: "minimal"`. */
  username?: string;
  password?: string;
}

/**
 * What the sandbox's records carry: `full`, every field of the contract; `minimal`, the least the contract allows: a
 * proxy of the seed's four fields (`ip`, `port`, `type`, `country`), allow-listed by IP with no credentials, and
 * orders without the optional `estimated_ready_at`.
 */
export type SandboxRecords = "full" | "minimal";

/** An order as the sandbox stores it; its status is computed by {@link orderStatus}. */
export interface StoredOrder {
  id: string;
  planId: string;
  createdAt: number;
  /** Provisioning time in force when the order was made. */
  provisioningMs: number;
  /** Lifetime from ready to expiry in force when the order was made; undefined: the plan's own. */
  lifetimeMs?: number;
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

/** The state of one sandbox account. */
export class SandboxState {
  readonly orders = new Map<string, StoredOrder>();
  readonly idempotency = new Map<string, IdempotencyRecord>();
  balanceCents = DEFAULT_BALANCE_CENTS;
  private sequence = 0;

  constructor(
    private readonly stateFile?: string,
    /** What the records carry; the proxies of a `minimal` sandbox have no credentials. */
    readonly records: SandboxRecords = "full",
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

  /** Creates an order for a plan at time `at` (the caller checked the plan and the balance). */
  createOrder(
    plan: Plan,
    at: number,
    timing: { provisioningMs: number; lifetimeMs?: number },
    faults: { hiddenReads: number; fails: boolean },
  ): StoredOrder {
    this.sequence += 1;
    const seq = this.sequence;
    const id = `ord_${seq.toString(36).padStart(4, "0")}${randomBytes(4).toString("hex")}`;
    const proxies = Array.from({ length: plan.proxyCount }, (_, i) => makeProxy(plan, id, seq, i, this.records));
    const order: StoredOrder = {
      id,
      planId: plan.id,
      createdAt: at,
      provisioningMs: timing.provisioningMs,
      ...(timing.lifetimeMs === undefined ? {} : { lifetimeMs: timing.lifetimeMs }),
      hiddenReads: faults.hiddenReads,
      ...(faults.fails ? { fails: true } : {}),
      proxies,
    };
    this.orders.set(id, order);
    this.balanceCents -= plan.priceCents;
    return order;
  }

  /** Forgets every order, key and record, and restores the balance (for tests between cases). */
  reset(): void {
    this.orders.clear();
    this.idempotency.clear();
    this.balanceCents = DEFAULT_BALANCE_CENTS;
    this.sequence = 0;
    this.save();
  }
}

/** Addresses come from the documentation ranges (RFC 5737, RFC 3849), so they can never reach a real host. */
function makeProxy(plan: Plan, orderId: string, seq: number, index: number, records: SandboxRecords): StoredProxy {
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
    ...(records === "minimal" ? {} : { username: `user_${orderId.slice(4)}_${index}`, password: randomBytes(12).toString("hex") }),
  };
}
