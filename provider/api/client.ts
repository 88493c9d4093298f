/**
 * The Proxy Provisioning API client: one method per endpoint of the contract, each returning validated records.
 */
import type { z } from "zod";
import { UnexpectedResponseError } from "./errors";
import { parseRetryAfter } from "./retry-after";
import { RequestSender, type ApiResponse, type ClientOptions } from "./request";
import {
  describeIssues,
  orderWire,
  proxyPageWire,
  toOrder,
  toProxyPage,
  toUsage,
  usageWire,
  type Order,
  type Proxy,
  type ProxyPage,
  type Usage,
} from "./schemas";

/** Filters of `GET /v1/proxies`. All are optional; lists are sent comma separated. */
export interface ProxyFilters {
  /** Only proxies of these types. */
  type?: string | string[];
  /** Only proxies in these countries (ISO 3166-1 alpha-2). */
  country?: string | string[];
  /** Only proxies provisioned by this order. */
  orderId?: string;
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

  constructor(options: ClientOptions) {
    this.sender = new RequestSender(options);
  }

  /** Closes the client's connections. */
  close(): Promise<void> {
    return this.sender.close();
  }

  /** Iterates over the pages of `GET /v1/proxies`, following `next_cursor` only. */
  async *listProxyPages(filters: ProxyFilters = {}): AsyncGenerator<ProxyPage> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const res = await this.sender.send({
        method: "GET",
        path: "/proxies",
        query: {
          limit: filters.pageSize === undefined ? undefined : String(filters.pageSize),
          cursor,
          type: joinList(filters.type),
          country: joinList(filters.country),
          order_id: filters.orderId,
        },
      });
      const wire = parse(proxyPageWire, res, "GET", "/v1/proxies");
      if (wire.has_more === true && !wire.next_cursor) {
        throw unexpected(res, "GET", "/v1/proxies", "has_more is true but next_cursor is missing");
      }
      const page = toProxyPage(wire);
      if (page.nextCursor !== undefined && seen.has(page.nextCursor)) {
        throw unexpected(res, "GET", "/v1/proxies", `next_cursor "${page.nextCursor}" repeats an earlier page`);
      }
      yield page;
      cursor = page.nextCursor;
      if (cursor !== undefined) {
        seen.add(cursor);
      }
    } while (cursor !== undefined);
  }

  /** Every proxy that matches the filters, across all pages. */
  async listProxies(filters: ProxyFilters = {}): Promise<Proxy[]> {
    const all: Proxy[] = [];
    for await (const page of this.listProxyPages(filters)) {
      all.push(...page.proxies);
    }
    return all;
  }

  /**
   * Buys a plan (`POST /v1/orders`). The idempotency key is required: the same key with the same plan returns the
   * same order, so a retry never buys twice.
   */
  async createOrder(args: { planId: string; idempotencyKey: string }): Promise<CreateOrderResult> {
    const res = await this.sender.send({
      method: "POST",
      path: "/orders",
      body: { plan_id: args.planId },
      idempotencyKey: args.idempotencyKey,
    });
    const order = toOrder(parse(orderWire, res, "POST", "/v1/orders"));
    const replayed = res.headers["idempotent-replayed"] === "true";
    return { order, replayed, boughtBeforeThisCall: replayed && !res.afterUncertainAttempt };
  }

  /** Reads an order and its provisioning status (`GET /v1/orders/{id}`). */
  async getOrder(id: string): Promise<GetOrderResult> {
    const path = `/orders/${encodeURIComponent(id)}`;
    const res = await this.sender.send({ method: "GET", path });
    const order = toOrder(parse(orderWire, res, "GET", `/v1${path}`));
    return { order, retryAfterMs: parseRetryAfter(res.headers["retry-after"]) };
  }

  /** Reads bandwidth and request usage for the current billing period (`GET /v1/usage`). */
  async getUsage(): Promise<Usage> {
    const res = await this.sender.send({ method: "GET", path: "/usage" });
    return toUsage(parse(usageWire, res, "GET", "/v1/usage"));
  }
}

function joinList(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(",") : value;
}

function parse<S extends z.ZodType>(schema: S, res: ApiResponse, method: string, path: string): z.infer<S> {
  const result = schema.safeParse(res.body);
  if (!result.success) {
    throw unexpected(res, method, path, describeIssues(result.error));
  }
  return result.data;
}

function unexpected(res: ApiResponse, method: string, path: string, problem: string): UnexpectedResponseError {
  return new UnexpectedResponseError(
    `${method} ${path} returned ${res.status} with a body this provider does not understand: ${problem}. ` +
      "The API may have changed; please report it with the request id" +
      (res.requestId ? ` (request id ${res.requestId}).` : "."),
    { status: res.status, code: "unexpected_response", requestId: res.requestId, method, path },
  );
}
