/**
 * Servers that break the contract the way a real API might: a reverse proxy in front of a sandbox that changes what
 * passes through it. Each deviation is one the check must report (check/assumptions.ts) and tests of the provider can
 * point at.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { request } from "undici";
import type { Sandbox } from "../../sandbox";

/** How the server departs from the contract. */
export type Deviation =
  /** Buys a new order for every request: the Idempotency-Key header is dropped. */
  | "ignores-idempotency-key"
  /** Field names in camelCase. */
  | "camel-case"
  /** Other state names: `processing` for provisioning, `ready` for active. */
  | "other-state-names"
  /** Each order and the usage inside a `{ "data": ... }` envelope, as the list's. */
  | "data-envelope"
  /** Order ids as integers (`"id": 1001`, and in proxies' `order_id`), as APIs keyed by database sequences send them. */
  | "integer-ids"
  /** The contract's states in upper case (`PENDING`, `ACTIVE`), as APIs that send their enumerations' names write them. */
  | "upper-case-states"
  /**
   * Orders without their `proxies`, as APIs that keep proxies a resource of their own write them: the list
   * (`GET /v1/proxies`, each proxy with its `order_id`) is the only place that shows them.
   */
  | "order-without-proxies"
  /** Orders without their `plan_id`, as APIs that leave matching orders to plans to the client write them. */
  | "order-without-plan-id"
  /** Every answer compressed with gzip, whatever the request accepts (as some gateways answer). */
  | "gzip-always"
  /** Errors as plain text, without a problem document. */
  | "plain-text-errors"
  /** A new order answers 200 instead of 201, without Location. */
  | "created-as-200"
  /** The list in one answer: `data` alone, every proxy, `limit` and `cursor` ignored. */
  | "list-without-pages"
  /** The list in pages named by a `Link` header (`rel="next"`, its `cursor`), the body `data` alone. */
  | "link-pages"
  /** Usage in gigabytes, as fractions. */
  | "usage-in-gigabytes"
  /** Rate-limit hints in a form no reader knows: `X-RateLimit-Budget: 100/60s` in the place of the contract's. */
  | "unknown-hint-form"
  /** The key as `X-Api-Key`; a Bearer header is refused, with a challenge that names the header. */
  | "x-api-key-auth"
  /** The key as `X-Api-Key`; a Bearer header is refused as an unknown key, with the sandbox's Bearer challenge. */
  | "x-api-key-quiet"
  /**
   * A purchase's answer (the 201) with a field of the wrong type (`status_reason: 42`): the order is made, its answer
   * cannot be read; every read of the order afterwards is the sandbox's own. A failure after the purchase.
   */
  | "unreadable-purchase"
  /**
   * Every answer about an order (the purchase's and each read's) with a field of the wrong type (`status_reason: 42`),
   * until `heal()`: the orders are made, and nothing can read them until then. A failure after the purchase that
   * lasts past it.
   */
  | "unreadable-orders"
  /**
   * A purchase's answer (the 201) with its `Location` and no body, as many REST APIs answer a creation: the order is
   * made, and only the header names it. A failure after the purchase.
   */
  | "location-only-purchase"
  /**
   * Within the contract, at its most unhelpful: every fourth request answers 429 (Retry-After 1, no hints) whatever
   * the rate, every 25th starts a burst of three 503s, and the list comes in pages of two.
   */
  | "every-fault";

/** A deviant server: its URL, and a way to stop it. */
export interface DeviantApi {
  url: string;
  /** From now on, answers as the sandbox does. */
  heal(): void;
  stop(): Promise<void>;
}

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
function camelize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelize);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [camel(k), camelize(v)]));
  return value;
}

const STATE_NAMES: Record<string, string> = { provisioning: "processing", active: "ready" };

/** Starts a server on loopback that answers as `sandbox` does, but for `deviation`. */
export async function startDeviantApi(sandbox: Sandbox, given: Deviation): Promise<DeviantApi> {
  let deviation: Deviation | "none" = given;
  let count = 0;
  let unavailable = 0;
  const integers = integerIds();
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (deviation === "every-fault" && req.url?.startsWith("/v1/")) {
        count += 1;
        if (count % 25 === 0) unavailable = 3;
        const status = unavailable > 0 ? 503 : count % 4 === 0 ? 429 : undefined;
        if (unavailable > 0) unavailable -= 1;
        if (status) {
          const code = status === 429 ? "rate_limited" : "unavailable";
          const body = JSON.stringify({ type: "about:blank", title: "Refused", status, detail: "Refused.", code, request_id: `req_fault_${count}` });
          req.resume();
          res.writeHead(status, { "content-type": "application/problem+json", "retry-after": "1", "x-request-id": `req_fault_${count}` });
          res.end(body);
          return;
        }
      }
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const url = new URL(req.url ?? "/", "http://deviant");
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) headers[name] = value;
      }
      if (deviation === "ignores-idempotency-key") delete headers["idempotency-key"];
      if (deviation === "integer-ids") integers.inward(url);
      if (deviation === "x-api-key-auth" || deviation === "x-api-key-quiet") {
        const key = headers["x-api-key"];
        delete headers["x-api-key"];
        if (key) headers.authorization = `Bearer ${key}`;
        else delete headers.authorization;
      }
      if (deviation === "list-without-pages" && url.pathname === "/v1/proxies") {
        url.searchParams.set("limit", "1000");
        url.searchParams.delete("cursor");
      }
      if (deviation === "every-fault" && url.pathname === "/v1/proxies") url.searchParams.set("limit", "2");
      const answer = await request(`${sandbox.url}${url.pathname}${url.search}`, {
        method: req.method as "GET",
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      let status = answer.statusCode;
      const text = await answer.body.text();
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (typeof value === "string" && !["content-length", "connection", "keep-alive", "transfer-encoding"].includes(name)) out[name] = value;
      }
      let body: unknown = text ? JSON.parse(text) : undefined;
      if (status >= 400 && deviation === "plain-text-errors") {
        const detail = (body as { detail?: string }).detail ?? "error";
        res.writeHead(status, { ...out, "content-type": "text/plain" });
        res.end(`Error: ${detail}`);
        return;
      }
      if (status < 300) body = transform(deviation, url.pathname, body);
      if (deviation === "created-as-200" && status === 201) {
        status = 200;
        delete out.location;
      }
      if (deviation === "camel-case") body = camelize(body);
      if (deviation === "integer-ids" && status < 300) {
        body = integers.outward(body);
        if (out.location) out.location = out.location.replace(/[^/]+$/, (id) => String(integers.numberOf(id)));
      }
      if (deviation === "location-only-purchase" && status === 201) {
        res.writeHead(status, out);
        res.end();
        return;
      }
      if (deviation === "link-pages" && url.pathname === "/v1/proxies" && status === 200) {
        const page = body as { data: unknown[]; has_more?: boolean; next_cursor?: string | null };
        if (page.has_more && page.next_cursor) {
          const next = new URL(`${url.pathname}${url.search}`, "http://deviant");
          next.searchParams.set("cursor", page.next_cursor);
          out.link = `<${next.pathname}${next.search}>; rel="next"`;
        }
        body = { data: page.data };
      }
      if (deviation === "unknown-hint-form") {
        for (const name of Object.keys(out)) if (name.startsWith("ratelimit")) delete out[name];
        out["x-ratelimit-budget"] = "100/60s";
      }
      // Such a server challenges for its own scheme, not the sandbox's Bearer.
      if (deviation === "x-api-key-auth" && status === 401) out["www-authenticate"] = 'ApiKey header="X-Api-Key"';
      const json = deviation === "gzip-always" ? gzipSync(JSON.stringify(body)) : Buffer.from(JSON.stringify(body));
      if (deviation === "gzip-always") out["content-encoding"] = "gzip";
      res.writeHead(status, { ...out, "content-length": String(json.length) });
      res.end(json);
    })().catch((error: unknown) => {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    heal: () => {
      deviation = "none";
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The integer a deviant server names each sandbox order by, and back: requests name orders by the integer, answers
 * carry it in the order's `id` and the proxies' `order_id`.
 */
function integerIds() {
  const numbers = new Map<string, number>();
  const names = new Map<string, string>();
  const numberOf = (id: string): number => {
    if (!numbers.has(id)) {
      numbers.set(id, 1001 + numbers.size);
      names.set(String(numbers.get(id)), id);
    }
    return numbers.get(id) as number;
  };
  const withNumbers = (record: Record<string, unknown>, key: string) =>
    typeof record[key] === "string" ? { ...record, [key]: numberOf(record[key] as string) } : record;
  return {
    numberOf,
    inward(url: URL): void {
      url.pathname = url.pathname.replace(/^\/v1\/orders\/(\d+)$/, (path, n: string) => (names.has(n) ? `/v1/orders/${names.get(n)}` : path));
      const filter = url.searchParams.get("order_id");
      if (filter) url.searchParams.set("order_id", filter.split(",").map((n) => names.get(n) ?? n).join(","));
    },
    outward(body: unknown): unknown {
      const record = body as Record<string, unknown>;
      const proxies = (list: unknown) => (Array.isArray(list) ? list.map((p) => withNumbers(p as Record<string, unknown>, "order_id")) : list);
      if (Array.isArray(record.data)) return { ...record, data: proxies(record.data) };
      if (typeof record.id === "string" && typeof record.status === "string") return { ...withNumbers(record, "id"), proxies: proxies(record.proxies) };
      return body;
    },
  };
}

/** The success body, as the deviant server sends it. */
function transform(deviation: Deviation | "none", path: string, body: unknown): unknown {
  const record = body as Record<string, unknown>;
  if (deviation === "other-state-names" && path.startsWith("/v1/orders") && typeof record.status === "string") {
    return { ...record, status: STATE_NAMES[record.status] ?? record.status };
  }
  if (deviation === "upper-case-states" && path.startsWith("/v1/orders") && typeof record.status === "string") {
    return { ...record, status: record.status.toUpperCase() };
  }
  if (deviation === "data-envelope" && path !== "/v1/proxies") return { data: record };
  if (deviation === "order-without-plan-id" && path.startsWith("/v1/orders")) {
    const order = { ...record };
    delete order.plan_id;
    return order;
  }
  if (deviation === "order-without-proxies" && path.startsWith("/v1/orders") && "proxies" in record) {
    const order = { ...record };
    delete order.proxies;
    return order;
  }
  if (deviation === "list-without-pages" && path === "/v1/proxies") return { data: record.data };
  if (deviation === "unreadable-purchase" && path === "/v1/orders") return { ...record, status_reason: 42 };
  if (deviation === "unreadable-orders" && path.startsWith("/v1/orders")) return { ...record, status_reason: 42 };
  if (deviation === "usage-in-gigabytes" && path === "/v1/usage") {
    const bandwidth = record.bandwidth as { used_bytes: number; limit_bytes: number | null };
    return { ...record, bandwidth: { used_gb: bandwidth.used_bytes / 1e9, limit_gb: bandwidth.limit_bytes === null ? null : bandwidth.limit_bytes / 1e9 } };
  }
  return body;
}
