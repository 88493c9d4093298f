/**
 * The four endpoints of the contract, as the sandbox answers them.
 */
import { IDEMPOTENCY_KEY_RULE, isValidIdempotencyKey, MAX_ORDER_ID_FILTER, MAX_PROXY_PAGE_SIZE, PROXY_TYPES } from "../contract";
import { createOrderRequestWire } from "../contract/wire";
import { PLANS } from "./catalogue";
import { bodyHash, decide } from "./idempotency-store";
import { Problem } from "./http";
import type { SandboxState, StoredProxy } from "./state";
import { activeProxies, orderView, proxyView, usageView } from "./views";

/** A parsed request, as the handlers see it. */
export interface RouteRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  /** Raw body text. */
  body: string;
  /** False for a key that may read but not buy. */
  canWrite: boolean;
}

/** What a handler answers (errors are thrown as Problem). */
export interface RouteResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** For POST /v1/orders: the order committed by this request (for the reset-after-commit fault). */
  committedOrderId?: string;
}

/** What the handlers need besides the request. */
export interface RouteContext {
  state: SandboxState;
  /** The sandbox clock's time for this request. */
  now: number;
  /** Send `estimated_ready_at` and `Retry-After` on pending orders. */
  pollingHints: boolean;
  /** Provisioning time of a new order. */
  provisioningMs: number;
  /** Lifetime of a new order from ready to expiry; undefined: its plan's. */
  orderLifetimeMs?: number;
  /** Reads of a new order that answer 404 (the read-after-write fault). */
  hiddenReadsForNewOrders: number;
  /** Whether the order about to be made fails fast (a fault); asked once per order. */
  takeFailNewOrder: () => boolean;
  /**
   * Waits before a POST commits (the delay fault), so a concurrent POST can see the key in use; resolves with the
   * sandbox's time of the commit.
   */
  beforeCommit: () => Promise<number>;
  /** Records every order made, for tests. */
  onOrderCreated: (orderId: string, idempotencyKey: string | undefined) => void;
  /** Gives a new order's proxies listeners and their addresses (the option `serveProxies`). */
  serveProxies?: (proxies: StoredProxy[]) => Promise<void>;
}

const KNOWN_TYPES = new Set<string>(PROXY_TYPES);
const ORDER_PATH = /^\/v1\/orders\/([^/]+)$/;

/** Routes a request under /v1; throws Problem for every error. */
export async function route(req: RouteRequest, ctx: RouteContext): Promise<RouteResponse> {
  const orderMatch = ORDER_PATH.exec(req.path);
  const handler =
    req.path === "/v1/proxies" ? { GET: () => listProxies(req, ctx) } :
    req.path === "/v1/orders" ? { POST: () => createOrder(req, ctx) } :
    req.path === "/v1/usage" ? { GET: () => ({ status: 200, body: usageView(ctx.state, ctx.now) }) } :
    orderMatch ? { GET: () => getOrder(decodeURIComponent(orderMatch[1] ?? ""), ctx) } :
    undefined;
  if (!handler) {
    throw new Problem(404, `No route for ${req.path}.`);
  }
  const run = (handler as Record<string, (() => RouteResponse | Promise<RouteResponse>) | undefined>)[req.method];
  if (!run) {
    throw new Problem(405, `${req.method} is not allowed on ${req.path}.`, {
      headers: { allow: Object.keys(handler).join(", ") },
    });
  }
  return run();
}

function listProxies(req: RouteRequest, ctx: RouteContext): RouteResponse {
  const limitText = req.query.get("limit") ?? "100";
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_PROXY_PAGE_SIZE) {
    throw new Problem(400, `limit must be an integer from 1 to ${MAX_PROXY_PAGE_SIZE}.`, {
      errors: [{ pointer: "limit", detail: `got "${limitText}"` }],
    });
  }
  const typeText = req.query.get("type");
  const types = typeText === null ? [] : typeText.split(",");
  const unknown = types.filter((t) => !KNOWN_TYPES.has(t));
  if (unknown.length > 0) {
    throw new Problem(400, `Unknown proxy type: ${unknown.join(", ")}.`, {
      errors: [{ pointer: "type", detail: `allowed, comma separated: ${[...KNOWN_TYPES].join(", ")}` }],
    });
  }
  const countries = splitList(req.query.get("country")).map((c) => c.toUpperCase());
  const orderIds = splitList(req.query.get("order_id"));
  if (orderIds.length > MAX_ORDER_ID_FILTER) {
    throw new Problem(400, `order_id names ${orderIds.length} orders; at most ${MAX_ORDER_ID_FILTER} may be listed at once.`, {
      errors: [{ pointer: "order_id", detail: `at most ${MAX_ORDER_ID_FILTER} ids, comma separated` }],
    });
  }
  const matches = activeProxies(ctx.state, ctx.now).filter(
    (p: StoredProxy) =>
      (types.length === 0 || types.includes(p.type)) &&
      (countries.length === 0 || countries.includes(p.country)) &&
      (orderIds.length === 0 || orderIds.includes(p.order_id)),
  );
  const offset = decodeCursor(req.query.get("cursor"));
  const page = matches.slice(offset, offset + limit);
  const next = offset + limit;
  const hasMore = next < matches.length;
  return {
    status: 200,
    body: {
      data: page.map((p) => proxyView(ctx.state, p)),
      has_more: hasMore,
      next_cursor: hasMore ? encodeCursor(next) : null,
    },
  };
}

/** `POST /v1/orders`: the key's rights and its Idempotency-Key, a replay, or a purchase of the plan. */
async function createOrder(req: RouteRequest, ctx: RouteContext): Promise<RouteResponse> {
  if (!req.canWrite) {
    throw new Problem(403, "This API key may read but not place orders.");
  }
  const body = parseOrderBody(req.body);
  const key = req.headers["idempotency-key"];
  if (key !== undefined && !isValidIdempotencyKey(key)) {
    throw new Problem(400, `Idempotency-Key must be ${IDEMPOTENCY_KEY_RULE}.`, {
      errors: [{ pointer: "header:Idempotency-Key", detail: `length ${key.length}` }],
    });
  }
  const hash = bodyHash(body);
  const replayed = key === undefined ? undefined : replayOf(key, hash, ctx);
  return replayed ?? purchase(body.plan_id, key, hash, ctx);
}

/** What an Idempotency-Key already used says: its order again, a refusal, or nothing (a first use). */
function replayOf(key: string, hash: string, ctx: RouteContext): RouteResponse | undefined {
  const { state, now } = ctx;
  const decision = decide(state.idempotency.get(key), hash, now);
  if (decision.kind === "reused") {
    throw new Problem(422, "This Idempotency-Key was used with a different request body.", {
      code: "idempotency_key_reused",
    });
  }
  if (decision.kind === "in_use") {
    throw new Problem(409, "A request with this Idempotency-Key is still being processed.", {
      code: "idempotency_key_in_use",
      headers: { "retry-after": "1" },
    });
  }
  if (decision.kind !== "replay") return undefined;
  const order = state.orders.get(decision.orderId);
  // The contract: the key is spent with its order; buying again needs a new key.
  if (!order) {
    throw new Problem(404, `Order ${decision.orderId} of this Idempotency-Key no longer exists; buying again needs a new key.`, {
      code: "not_found",
    });
  }
  return {
    status: 200,
    body: orderView(state, order, now, ctx.pollingHints),
    headers: { "idempotent-replayed": "true", location: `/v1/orders/${order.id}` },
  };
}

/**
 * Buys the plan: checks it and the balance, holds the key while the purchase commits (released if the commit fails),
 * and records the order under the key.
 */
async function purchase(planId: string, key: string | undefined, hash: string, ctx: RouteContext): Promise<RouteResponse> {
  const { state, now } = ctx;
  const plan = PLANS[planId];
  if (!plan) {
    throw new Problem(422, `No plan has the id "${planId}".`, {
      code: "plan_not_found",
      errors: [{ pointer: "/plan_id", detail: "unknown plan" }],
    });
  }
  if (plan.priceCents > state.balanceCents) {
    throw new Problem(402, `The plan costs ${plan.priceCents} cents; the balance is ${state.balanceCents}.`);
  }
  if (key !== undefined) {
    state.idempotency.set(key, { key, bodyHash: hash, createdAt: now });
  }
  let committedAt: number;
  try {
    committedAt = await ctx.beforeCommit();
  } catch (error) {
    if (key !== undefined) state.idempotency.delete(key);
    throw error;
  }
  const order = state.createOrder(plan, committedAt, { provisioningMs: ctx.provisioningMs, lifetimeMs: ctx.orderLifetimeMs }, {
    hiddenReads: ctx.hiddenReadsForNewOrders,
    fails: ctx.takeFailNewOrder(),
  });
  if (key !== undefined) {
    state.idempotency.set(key, { key, bodyHash: hash, orderId: order.id, createdAt: committedAt });
  }
  await ctx.serveProxies?.(order.proxies);
  state.save();
  ctx.onOrderCreated(order.id, key);
  return {
    status: 201,
    body: orderView(state, order, committedAt, ctx.pollingHints),
    headers: { location: `/v1/orders/${order.id}` },
    committedOrderId: order.id,
  };
}

function getOrder(id: string, ctx: RouteContext): RouteResponse {
  const order = ctx.state.orders.get(id);
  if (!order) {
    throw new Problem(404, `No order has the id "${id}".`);
  }
  if (order.hiddenReads > 0) {
    order.hiddenReads -= 1;
    throw new Problem(404, `No order has the id "${id}".`);
  }
  const view = orderView(ctx.state, order, ctx.now, ctx.pollingHints);
  const pending = view.status === "pending" || view.status === "provisioning";
  return { status: 200, body: view, headers: pending && ctx.pollingHints ? { "retry-after": "1" } : {} };
}

function parseOrderBody(text: string): { plan_id: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Problem(400, "The body must be JSON.", { errors: [{ pointer: "", detail: "malformed JSON" }] });
  }
  const parsed = createOrderRequestWire.safeParse(body);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) =>
      issue.code === "unrecognized_keys"
        ? { pointer: issue.keys.map((k) => `/${k}`).join(","), detail: `unknown field: ${issue.keys.join(", ")}` }
        : { pointer: `/${issue.path.join("/")}`, detail: issue.path[0] === "plan_id" ? "required, 1 to 128 characters" : issue.message },
    );
    throw new Problem(400, `The body is not valid: ${errors.map((e) => `${e.pointer || "(body)"} ${e.detail}`).join("; ")}.`, { errors });
  }
  return parsed.data;
}

function splitList(value: string | null): string[] {
  return value ? value.split(",").map((v) => v.trim()).filter(Boolean) : [];
}

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

function decodeCursor(cursor: string | null): number {
  if (!cursor) return 0;
  const match = /^o:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) {
    throw new Problem(400, "cursor is not one this API issued; start again without it.", {
      errors: [{ pointer: "cursor", detail: "invalid" }],
    });
  }
  return Number(match[1]);
}
