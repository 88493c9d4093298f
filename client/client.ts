/**
 * The Proxy Provisioning API client: one method per endpoint of the contract, each returning validated records.
 */
import { createHmac } from "node:crypto";
import { isReplayed, nextPageLink, orderNamedBy, type Order, type ProxyPage, type ProxyRecord, type Usage } from "../contract";
import { orderWire, proxyPageWire, readWire, toOrder, toProxyPage, toUsage, usageWire } from "../contract/wire";
import { UnexpectedResponseError, UnreadableOrderError } from "./errors";
import type { RequestBudget } from "./budget";
import type { Clock } from "./clock";
import { RequestSender, type ApiResponse, type CallOptions, type ClientOptions } from "./request";

/** Filters of `GET /v1/proxies`. All are optional; lists are sent comma separated. */
export interface ProxyFilters {
  /** Only proxies of these types. */
  type?: string | string[];
  /** Only proxies in these countries (ISO 3166-1 alpha-2). */
  country?: string | string[];
  /** Only proxies provisioned by this order, or by any of these (at most 100, sent comma separated). */
  orderId?: string | string[];
  /** Page size, 1 to 1000. @default 100 (the server's default) */
  pageSize?: number;
}

/** Result of {@link ProxyApiClient.getOrder}. */
export interface GetOrderResult {
  order: Order;
  /** The server's polling hint (`Retry-After` on a non-terminal order), in milliseconds. */
  retryAfterMs?: number;
}

/** Result of {@link ProxyApiClient.createOrder}. */
export interface CreateOrderResult {
  order: Order;
  /** True when the server answered with an earlier order for the same idempotency key (`Idempotent-Replayed`). */
  replayed: boolean;
  /**
   * True only when the order is certain to predate this call: a replay answered before any attempt of this call could
   * have created it. A replay after a lost or failed attempt may be this call's own purchase, so this is false then.
   */
  boughtBeforeThisCall: boolean;
}

/** Client of the Proxy Provisioning API (`/v1`). */
export class ProxyApiClient {
  private readonly sender: RequestSender;
  /** The API this client calls: its base URL without `/v1` or a trailing slash. */
  readonly baseUrl: string;
  /**
   * A one-way fingerprint of the API key (HMAC-SHA256 under a fixed label, 16 hex digits): equal for equal keys, and
   * no way back to the key. It lets the state say which key bought an order without holding the key.
   */
  readonly keyFingerprint: string;

  /**
   * A client with its own options, and its own request budget unless `budget` names one to share. Connections are
   * pooled by the dispatcher (by default undici's global one), not by the client, so there is nothing to close.
   */
  constructor(options: ClientOptions) {
    this.sender = new RequestSender(options);
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.keyFingerprint = createHmac("sha256", options.apiKey).update("pulumi-proxy key fingerprint v1").digest("hex").slice(0, 16);
  }

  /** The request budget this client's calls go through (its own, or the one given as the option `budget`). */
  get budget(): RequestBudget {
    return this.sender.budget;
  }

  /** The time this client's deadlines count in (its option `clock`): a caller's waits between calls pass on it too. */
  get clock(): Clock {
    return this.sender.clock;
  }

  /**
   * Iterates over the pages of `GET /v1/proxies`, following `next_cursor`, or the next page a `Link` header names
   * where the body says nothing of more pages: its `cursor`, or else its whole query (a page number), when it is this
   * list's page.
   */
  async *listProxyPages(filters: ProxyFilters = {}, options: CallOptions = {}): AsyncGenerator<ProxyPage> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    let linkQuery: Record<string, string> | undefined;
    do {
      const res = await this.sender.send({
        method: "GET",
        path: "/proxies",
        query: linkQuery ?? {
          limit: filters.pageSize === undefined ? undefined : String(filters.pageSize),
          cursor,
          type: joinList(filters.type),
          country: joinList(filters.country),
          order_id: joinList(filters.orderId),
        },
        ...options,
      });
      const wire = parse(proxyPageWire, res, "GET", "/v1/proxies");
      if (wire.has_more === true && !wire.next_cursor) {
        throw unexpected(res, "GET", "/v1/proxies", "has_more is true but next_cursor is missing");
      }
      const { query, ...linked } = linkedPage(wire, res, `${this.baseUrl}/v1/proxies`);
      const page = { ...toProxyPage(wire), ...linked };
      if (page.nextCursor !== undefined && seen.has(page.nextCursor)) {
        throw unexpected(res, "GET", "/v1/proxies", `next_cursor "${page.nextCursor}" repeats an earlier page`);
      }
      yield page;
      cursor = page.nextCursor;
      linkQuery = query;
      if (cursor !== undefined) {
        seen.add(cursor);
      }
    } while (cursor !== undefined);
  }

  /** Every proxy that matches the filters, across all pages. */
  async listProxies(filters: ProxyFilters = {}, options: CallOptions = {}): Promise<ProxyRecord[]> {
    const all: ProxyRecord[] = [];
    for await (const page of this.listProxyPages(filters, options)) {
      all.push(...page.proxies);
    }
    return all;
  }

  /**
   * Buys a plan (`POST /v1/orders`). The idempotency key is required: the same key with the same plan returns the
   * same order, so a retry never buys twice.
   */
  async createOrder(args: { planId: string; idempotencyKey: string }, options: CallOptions = {}): Promise<CreateOrderResult> {
    const res = await this.sender.send({
      method: "POST",
      path: "/orders",
      body: { plan_id: args.planId },
      idempotencyKey: args.idempotencyKey,
      ...options,
    });
    const read = readWire(orderWire, res.body);
    if (!read.ok) throw unreadableOrder(res, read.problem);
    const order = toOrder(read.data);
    const replayed = isReplayed(res.headers);
    return { order, replayed, boughtBeforeThisCall: replayed && !res.afterUncertainAttempt };
  }

  /** Reads an order and its provisioning status (`GET /v1/orders/{id}`). */
  async getOrder(id: string, options: CallOptions = {}): Promise<GetOrderResult> {
    const path = `/orders/${encodeURIComponent(id)}`;
    const res = await this.sender.send({ method: "GET", path, ...options });
    const order = toOrder(parse(orderWire, res, "GET", `/v1${path}`));
    return { order, retryAfterMs: res.retryAfterMs };
  }

  /** Reads bandwidth and request usage for the current billing period (`GET /v1/usage`). */
  async getUsage(options: CallOptions = {}): Promise<Usage> {
    const res = await this.sender.send({ method: "GET", path: "/usage", ...options });
    return toUsage(parse(usageWire, res, "GET", "/v1/usage"));
  }
}

function joinList(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(",") : value;
}

function parse<S extends Parameters<typeof readWire>[0]>(schema: S, res: ApiResponse, method: string, path: string) {
  const result = readWire(schema, res.body);
  if (!result.ok) {
    throw unexpected(res, method, path, result.problem);
  }
  return result.data;
}

/**
 * A purchase's answer this provider cannot read: an {@link UnreadableOrderError} when it still names the order it made
 * (a non-empty `id` in its body, or a `Location` header that ends in `/orders/{id}`, as an API that answers `201`
 * with a location and no body does), so the caller can record that order; else the plain error, since nothing says
 * an order was made.
 */
function unreadableOrder(res: ApiResponse, problem: string): UnexpectedResponseError {
  const plain = unexpected(res, "POST", "/v1/orders", problem);
  const id = orderNamedBy(res.body, res.headers.location);
  if (id === undefined) return plain;
  const message = `${plain.message} Its answer names order ${id}: the order was made.`;
  const details = { status: res.status, code: "unexpected_response", requestId: res.requestId, method: "POST", path: "/v1/orders" };
  return new UnreadableOrderError(message, details, id);
}

/**
 * The next page of a list whose body says nothing of more (the seed's shape) but whose `Link` header names one: its
 * cursor, or else the whole query of its target (`page=2`), sent as it is; the query's text then stands for the cursor,
 * which is opaque to callers. A target other than this list (`listUrl`) fails, rather than the list being read in part
 * or the key sent elsewhere.
 */
function linkedPage(wire: { has_more?: boolean }, res: ApiResponse, listUrl: string): Pick<ProxyPage, "nextCursor"> & { query?: Record<string, string> } {
  const next = wire.has_more === undefined ? nextPageLink(res.headers["link"]) : undefined;
  if (next === undefined) return {};
  if (next.cursor !== undefined) return { nextCursor: next.cursor };
  const list = new URL(listUrl);
  let target: URL | undefined;
  try {
    target = new URL(next.target, list);
  } catch {
    target = undefined;
  }
  if (!target || target.origin !== list.origin || target.pathname.replace(/\/+$/, "") !== list.pathname) {
    throw unexpected(res, "GET", "/v1/proxies", `its Link header names a next page elsewhere than this list (${next.target.split(/[?#]/)[0]}), which is not followed: the API key would go with it, and the list would be read in part`);
  }
  return { nextCursor: target.searchParams.toString(), query: Object.fromEntries(target.searchParams) };
}

function unexpected(res: ApiResponse, method: string, path: string, problem: string): UnexpectedResponseError {
  return new UnexpectedResponseError(
    `${method} ${path} returned ${res.status} with a body this provider does not understand: ${problem}. ` +
      "The API may have changed; please report it with the request id" +
      (res.requestId ? ` (request id ${res.requestId}).` : "."),
    { status: res.status, code: "unexpected_response", requestId: res.requestId, method, path },
  );
}
