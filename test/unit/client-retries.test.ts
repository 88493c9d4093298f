import { describe, expect, it } from "vitest";
import { ConnectionError, InvalidRequestError, RateLimitError, ServerError } from "../../client/errors";
import type { CallTracer } from "../../client/trace";
import { callLog } from "../../tracing/call-log";
import { API_KEY, mockApi, ORDER, PROXY, problem, PROBLEM_HEADERS } from "../helpers/mock-api";

const USAGE = {
  period: { start: "2026-11-01T00:00:00Z", end: "2026-12-01T00:00:00Z" },
  as_of: "2026-11-21T10:00:00Z",
  bandwidth: { used_bytes: 10, limit_bytes: null },
  requests: { used: 2, limit: 100 },
};

describe("retries", () => {
  it("retries a GET after 503 and returns the later success", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(503, problem(503, "unavailable", "x"), { headers: PROBLEM_HEADERS });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
    const usage = await api.client.getUsage();
    expect(usage.bandwidth).toEqual({ usedBytes: 10, limitBytes: null });
    // The back-off (250 ms: half of 500 ms, the jitter fixed at 0.5), then the rest of the half second a 503 pauses
    // the key.
    expect(api.sleeps).toEqual([250, 250]);
    api.done();
  });

  it("tells the tracer it was given of the call, each attempt, and the back-off between them", async () => {
    const told: string[] = [];
    const tracer: CallTracer = {
      call: (method, path, orderId) => {
        told.push(`call ${method} ${path} ${orderId}`);
        return {
          held: (ms) => void told.push(`held ${ms}`),
          attempt: (n) => ({ end: (o) => void told.push(`attempt ${n}: ${o.status}`) }),
          backoff: (_ms, o) => void told.push(`backoff after ${o.status}`),
          end: (o) => void told.push(`end ${o.status}`),
        };
      },
    };
    const api = mockApi({ tracer });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(503, problem(503, "unavailable", "x"), { headers: PROBLEM_HEADERS });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, ORDER);
    await api.client.getOrder("ord_1");
    expect(told).toEqual(["call GET /v1/orders/ord_1 ord_1", "attempt 1: 503", "backoff after 503", "held 250", "attempt 2: 200", "end 200"]);
    // A client given no tracer tells nothing, whatever another client was given.
    const quiet = mockApi();
    quiet.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
    await quiet.client.getUsage();
    expect(told).toHaveLength(6);
    api.done();
  });

  it("the debug log's lines (tracing/call-log.ts): each answer with its status, the rate limit's holds and pauses, each retry; no key", async () => {
    const lines: string[] = [];
    const api = mockApi({ tracer: callLog((line) => lines.push(line)) });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(429, problem(429, "rate_limited", "slow down"), { headers: { ...PROBLEM_HEADERS, "retry-after": "1" } });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(429, problem(429, "rate_limited", "slow down"), { headers: PROBLEM_HEADERS });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(503, problem(503, "unavailable", "x"), { headers: { ...PROBLEM_HEADERS, "x-request-id": "req_2" } });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, ORDER);
    await api.client.getOrder("ord_1");
    // How long an answer took, and how long the budget held a call (its pacing's decision), vary: not asserted here.
    const shown = lines.map((line) => line.replace(/ in \d+ms \(/, " in Nms (").replace(/held \d+(ms|\.\ds)/, "held T"));
    expect(shown).toEqual([
      "proxy: GET /v1/orders/ord_1 -> 429 rate_limited in Nms (attempt 1, request id req_123); the rate limit pauses the key for its Retry-After, 1.0s",
      "proxy: GET /v1/orders/ord_1 held T by the rate limit",
      "proxy: GET /v1/orders/ord_1 -> 429 rate_limited in Nms (attempt 2, request id req_123); the rate limit pauses the key (no Retry-After)",
      "proxy: GET /v1/orders/ord_1 held T by the rate limit",
      "proxy: GET /v1/orders/ord_1 -> 503 unavailable in Nms (attempt 3, request id req_2)",
      "proxy: GET /v1/orders/ord_1 retries in 250ms after 503 unavailable",
      "proxy: GET /v1/orders/ord_1 held T by the rate limit",
      "proxy: GET /v1/orders/ord_1 -> 200 in Nms (attempt 4)",
    ]);
    expect(lines.join("\n")).not.toContain(API_KEY);
    api.done();
  });

  it.each([408, 429, 500, 502, 504])("retries a GET after %i", async (status) => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(status, "");
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
    await api.client.getUsage();
    api.done();
  });

  it("retries a GET after a connection error", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).replyWithError(new Error("ECONNRESET"));
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
    await api.client.getUsage();
    api.done();
  });

  it("waits as long as Retry-After asks (delta seconds), even above the backoff", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(429, problem(429, "rate_limited", "slow"), {
      headers: { ...PROBLEM_HEADERS, "retry-after": "7" },
    });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
    await api.client.getUsage();
    expect(api.sleeps).toEqual([7000]);
    api.done();
  });

  it("reads Retry-After as an HTTP date", async () => {
    const api = mockApi();
    const at = new Date(Date.now() + 20_000).toUTCString();
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(503, "", { headers: { "retry-after": at } });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
    await api.client.getUsage();
    expect(api.sleeps[0]).toBeGreaterThan(15_000);
    expect(api.sleeps[0]).toBeLessThanOrEqual(20_000);
    api.done();
  });

  it("reads a Retry-After date against the API's clock (its Date header) where the two clocks differ", async () => {
    // A minute behind, the date had passed by this machine's clock (the key would be asked again at once, and again);
    // a minute ahead, it was past the longest Retry-After the client waits for, and the call failed.
    for (const offset of [-60_000, 60_000]) {
      const api = mockApi();
      const apiNow = Date.now() + offset;
      const headers = { ...PROBLEM_HEADERS, date: new Date(apiNow).toUTCString(), "retry-after": new Date(apiNow + 20_000).toUTCString() };
      api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(429, problem(429, "rate_limited", "slow"), { headers });
      api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
      await api.client.getUsage();
      expect(api.sleeps, String(offset)).toEqual([20_000]);
      api.done();
    }
  });

  it("gives up at once, with the hint, when Retry-After is beyond the cap", async () => {
    const api = mockApi({ maxRetryAfterMs: 60_000 });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(429, problem(429, "rate_limited", "slow"), {
      headers: { ...PROBLEM_HEADERS, "retry-after": "3600" },
    });
    const error = (await api.client.getUsage().catch((e) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(api.sleeps).toEqual([]);
    api.done();
  });

  it("uses capped exponential backoff with full jitter", async () => {
    const api = mockApi({ maxAttempts: 5, initialRetryDelayMs: 100, maxRetryDelayMs: 300, random: 1 });
    for (let i = 0; i < 4; i++) {
      api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(500, "");
    }
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
    await api.client.getUsage();
    // random() = 1 shows the ceiling of each jittered delay: 100, 200, then capped at 300.
    expect(api.sleeps).toEqual([100, 200, 300, 300]);
    api.done();
  });

  it("stops after maxAttempts and throws the last error", async () => {
    const api = mockApi({ maxAttempts: 3 });
    for (let i = 0; i < 3; i++) {
      api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(502, problem(502, "unavailable", `try ${i}`), { headers: PROBLEM_HEADERS });
    }
    const error = (await api.client.getUsage().catch((e) => e)) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toContain("try 2");
    expect(api.sleeps).toHaveLength(2);
    api.done();
  });

  it("never retries another 4xx", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/proxies?type=nope", method: "GET" }).reply(400, problem(400, "invalid_request", "bad type"), { headers: PROBLEM_HEADERS });
    await expect(api.client.listProxies({ type: "nope" })).rejects.toBeInstanceOf(InvalidRequestError);
    expect(api.sleeps).toEqual([]);
    api.done();
  });

  it("stops when the next wait would pass the call's deadline", async () => {
    const api = mockApi({ callDeadlineMs: 5_000 });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(503, "", { headers: { "retry-after": "10" } });
    await expect(api.client.getUsage()).rejects.toBeInstanceOf(ServerError);
    expect(api.sleeps).toEqual([]);
    api.done();
  });

  it("turns the call's deadline into a ConnectionError", async () => {
    const api = mockApi({ callDeadlineMs: 50 });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE).delay(500);
    const error = (await api.client.getUsage().catch((e) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.code).toBe("deadline");
    expect(error.message).toMatch(/got no response/);
  });
});

describe("POST /v1/orders", () => {
  it("sends the same Idempotency-Key on every retry", async () => {
    const api = mockApi();
    const keys: Array<string | undefined> = [];
    const record = (opts: { headers?: unknown }) => {
      keys.push((opts.headers as Record<string, string>)["idempotency-key"]);
    };
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply((opts) => {
      record(opts);
      return { statusCode: 503, data: "" };
    });
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).replyWithError(new Error("socket hang up"));
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply((opts) => {
      record(opts);
      return { statusCode: 200, data: JSON.stringify(ORDER), responseOptions: { headers: { "idempotent-replayed": "true" } } };
    });
    const result = await api.client.createOrder({ planId: "dc-us-5", idempotencyKey: "key-1" });
    expect(keys).toEqual(["key-1", "key-1"]);
    expect(result.replayed).toBe(true);
    expect(result.order.id).toBe("ord_1");
    api.done();
  });

  it.each(["True", " TRUE "])("reads Idempotent-Replayed: %j as a replay", async (value) => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(200, ORDER, { headers: { "idempotent-replayed": value } });
    expect((await api.client.createOrder({ planId: "dc-us-5", idempotencyKey: "k" })).replayed).toBe(true);
    api.done();
  });

  it("sends the plan as plan_id, with the bearer key", async () => {
    const api = mockApi();
    api.pool
      .intercept({
        path: "/v1/orders",
        method: "POST",
        body: JSON.stringify({ plan_id: "dc-us-5" }),
        headers: { authorization: "Bearer sk_live_SECRET_9f8e7d6c5b4a", "content-type": "application/json" },
      })
      .reply(201, ORDER);
    const result = await api.client.createOrder({ planId: "dc-us-5", idempotencyKey: "k" });
    expect(result).toMatchObject({ replayed: false, order: { id: "ord_1", planId: "dc-us-5", status: "pending" } });
    api.done();
  });

  it("retries 409 idempotency_key_in_use with the same key", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(409, problem(409, "idempotency_key_in_use", "busy"), {
      headers: { ...PROBLEM_HEADERS, "retry-after": "1" },
    });
    api.pool.intercept({ path: "/v1/orders", method: "POST", headers: { "idempotency-key": "k" } }).reply(201, ORDER);
    await api.client.createOrder({ planId: "dc-us-5", idempotencyKey: "k" });
    expect(api.sleeps).toEqual([1000]);
    api.done();
  });
});

describe("GET /v1/orders/{id}", () => {
  it("returns the order with the server's polling hint", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { ...ORDER, status: "provisioning", future_field: 1 }, {
      headers: { "retry-after": "3" },
    });
    const { order, retryAfterMs } = await api.client.getOrder("ord_1");
    expect(order.status).toBe("provisioning");
    expect(retryAfterMs).toBe(3000);
    // Unknown fields are kept, in camelCase.
    expect((order as unknown as Record<string, unknown>).futureField).toBe(1);
    api.done();
  });

  it("reads a time with no zone (SQL's or ISO's) as UTC, whatever the machine's zone", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, {
      ...ORDER,
      status: "active",
      created_at: "2027-01-15T10:00:00",
      proxies: [{ ...PROXY, expires_at: "2027-02-15 10:00:00.250" }],
    });
    const { order } = await api.client.getOrder("ord_1");
    expect(order).toMatchObject({ createdAt: "2027-01-15T10:00:00Z", proxies: [{ expiresAt: "2027-02-15T10:00:00.250Z" }] });
    expect(Date.parse(order.proxies?.[0]?.expiresAt ?? "")).toBe(Date.UTC(2027, 1, 15, 10, 0, 0, 250));
    api.done();
  });

  it("reads a status_reason sent as a string as its message", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { ...ORDER, status: "failed", status_reason: "out of stock in US" });
    expect((await api.client.getOrder("ord_1")).order).toMatchObject({ status: "failed", statusReason: { message: "out of stock in US" } });
    api.done();
  });

  it("accepts a state it does not know (the waiter decides what to do with it)", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { ...ORDER, status: "paused" });
    expect((await api.client.getOrder("ord_1")).order.status).toBe("paused");
    api.done();
  });

  it("reads identifiers sent as integers (APIs keyed by database sequences) as their decimal strings, and integers sent as digits as integers", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders/1001", method: "GET" }).reply(200, { ...ORDER, id: 1001, status: "active", proxies: [{ ...PROXY, id: 7, order_id: 1001 }] });
    const { order } = await api.client.getOrder("1001");
    expect(order).toMatchObject({ id: "1001", proxies: [{ id: "7", orderId: "1001" }] });
    api.pool.intercept({ path: "/v1/orders/1001", method: "GET" }).reply(200, { ...ORDER, id: 1001.5, status: "active" });
    await expect(api.client.getOrder("1001")).rejects.toThrow(/id: .*expected string/);
    api.pool.intercept({ path: "/v1/orders/1001", method: "GET" }).reply(200, { ...ORDER, id: 1001, status: "active", proxies: [{ ...PROXY, port: "8080" }] });
    expect((await api.client.getOrder("1001")).order.proxies?.[0]?.port).toBe(8080);
    api.pool.intercept({ path: "/v1/orders/1001", method: "GET" }).reply(200, { ...ORDER, id: 1001, status: "active", proxies: [{ ...PROXY, port: "80a" }] });
    await expect(api.client.getOrder("1001")).rejects.toThrow(/proxies\.0\.port: .*expected number/);
    api.done();
  });

  it("reads an order or usage inside a data envelope ({ data: { ... } }, the list's envelope around one record)", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(201, { data: { ...ORDER, status: "pending" } });
    expect((await api.client.createOrder({ planId: "dc-us-5", idempotencyKey: "k" })).order).toMatchObject({ id: ORDER.id, status: "pending" });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { data: { ...ORDER, status: "active" }, meta: { request: 1 } });
    expect((await api.client.getOrder("ord_1")).order.status).toBe("active");
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, { data: USAGE });
    expect(await api.client.getUsage()).toMatchObject({ bandwidth: { usedBytes: USAGE.bandwidth.used_bytes } });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { data: { status: "active" } });
    await expect(api.client.getOrder("ord_1")).rejects.toThrow(/id: /);
    api.done();
  });

  it("reads an order or usage inside a member named after it ({ order: { ... } }), beside members that are no record", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(201, { order: { ...ORDER, status: "pending" }, request_id: "req_1" });
    expect((await api.client.createOrder({ planId: "dc-us-5", idempotencyKey: "k" })).order).toMatchObject({ id: ORDER.id, status: "pending" });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, { usage: USAGE });
    expect(await api.client.getUsage()).toMatchObject({ bandwidth: { usedBytes: USAGE.bandwidth.used_bytes } });
    // Two members that are objects: which one is the record is not guessed.
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { order: { ...ORDER, status: "active" }, meta: { page: 1 } });
    await expect(api.client.getOrder("ord_1")).rejects.toThrow(/id: /);
    api.done();
  });

  it("reads usage whose 64-bit counts come as strings of digits (protobuf's JSON) as integers, and whose times come as Unix times", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, {
      ...USAGE,
      bandwidth: { used_bytes: "9007199254740", limit_bytes: null },
      requests: { used: "12", limit: "1000" },
    });
    expect(await api.client.getUsage()).toMatchObject({ bandwidth: { usedBytes: 9007199254740, limitBytes: null }, requests: { used: 12, limit: 1000 } });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, { ...USAGE, period: { start: 1_798_761_600, end: 1_801_440_000 }, as_of: 1_800_000_000_000 });
    expect(await api.client.getUsage()).toMatchObject({ period: { start: "2027-01-01T00:00:00.000Z", end: "2027-02-01T00:00:00.000Z" }, asOf: "2027-01-15T08:00:00.000Z" });
    api.done();
  });

  it("reads times sent as Unix times (seconds, or milliseconds) as RFC 3339, as APIs that write Unix times send them", async () => {
    const api = mockApi();
    const at = Date.parse("2027-01-15T10:00:00Z");
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, {
      ...ORDER,
      status: "active",
      created_at: at / 1000 - 60,
      ready_at: at,
      expires_at: at / 1000 + 86_400,
      proxies: [{ ...PROXY, expires_at: at / 1000 + 86_400 }],
    });
    const { order } = await api.client.getOrder("ord_1");
    expect(order).toMatchObject({
      createdAt: "2027-01-15T09:59:00.000Z",
      readyAt: "2027-01-15T10:00:00.000Z",
      expiresAt: "2027-01-16T10:00:00.000Z",
      proxies: [{ expiresAt: "2027-01-16T10:00:00.000Z" }],
    });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { ...ORDER, status: "active", created_at: -5 });
    await expect(api.client.getOrder("ord_1")).rejects.toThrow(/created_at: .*expected string/);
    api.done();
  });

  it("reads a state the contract names, sent in another case, as that state (APIs that send enumerations' names)", async () => {
    const api = mockApi();
    for (const [sent, read] of [["ACTIVE", "active"], [" Provisioning", "provisioning"], ["Cancelled", "cancelled"], ["PAUSED", "PAUSED"]]) {
      api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { ...ORDER, status: sent });
      expect((await api.client.getOrder("ord_1")).order.status, sent).toBe(read);
    }
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(201, { ...ORDER, status: "PENDING" });
    expect((await api.client.createOrder({ planId: "dc-us-5", idempotencyKey: "k" })).order.status).toBe("pending");
    api.done();
  });
});

describe("rate limits", () => {
  it("waits out every 429 without using an attempt, and logs no retry for it", async () => {
    const retries: unknown[] = [];
    const api = mockApi({ maxAttempts: 1, onRetry: (e) => retries.push(e) });
    for (let i = 0; i < 3; i++) {
      api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(429, problem(429, "rate_limited", "slow"), {
        headers: { ...PROBLEM_HEADERS, "retry-after": "2" },
      });
    }
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
    await api.client.getUsage();
    // The three pauses are the budget's, each at least the Retry-After (then the learned rate spaces the requests).
    expect(api.sleeps).toHaveLength(3);
    for (const ms of api.sleeps) expect(ms).toBeGreaterThanOrEqual(2000);
    expect(retries).toEqual([]);
    api.done();
  });

  it("fails with a RateLimitError naming the call when the limit holds it past its deadline", async () => {
    const api = mockApi({ callDeadlineMs: 30_000 });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(429, problem(429, "rate_limited", "slow"), {
      headers: { ...PROBLEM_HEADERS, "retry-after": "50" },
    });
    const error = (await api.client.getOrder("ord_1").catch((e) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.message).toMatch(/GET \/v1\/orders\/ord_1 was held back by the API's rate limit .* deadline; it last answered 429/);
    expect(error.message).toMatch(/--parallel/);
    expect(error.requestId).toBe("req_123");
    api.done();
  });

  it("lets a call run to a later deadline it is given, holding it back meanwhile", async () => {
    const api = mockApi({ callDeadlineMs: 30_000 });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(429, problem(429, "rate_limited", "slow"), {
      headers: { ...PROBLEM_HEADERS, "retry-after": "50" },
    });
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, ORDER);
    const { order } = await api.client.getOrder("ord_1", { deadline: Date.now() + 600_000, priority: "routine" });
    expect(order.id).toBe("ord_1");
    expect(api.sleeps).toEqual([50_000]);
    api.done();
  });

  it("waits out 503s as 429s while the API takes the key's other requests: a limiter shedding load", async () => {
    // nginx's limit_req refuses with 503 by default, with an HTML page and neither hints nor Retry-After.
    const page = "<html><head><title>503 Service Temporarily Unavailable</title></head></html>";
    const retries: unknown[] = [];
    const api = mockApi({ maxAttempts: 1, onRetry: (e) => retries.push(e) });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
    await api.client.getUsage();
    for (let i = 0; i < 3; i++) api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(503, page, { headers: { "content-type": "text/html" } });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(200, USAGE);
    await api.client.getUsage();
    // Each refusal pauses the key for half a second (no Retry-After), and uses no attempt of the call's one.
    expect(api.sleeps.filter((ms) => ms >= 500)).toHaveLength(3);
    expect(retries).toEqual([]);
    api.done();
  });

  it("counts 503s as attempts where the API took none of the key's requests lately: an outage", async () => {
    const api = mockApi({ maxAttempts: 3 });
    for (let i = 0; i < 3; i++) api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(503, problem(503, "unavailable", "down"), { headers: PROBLEM_HEADERS });
    const error = await api.client.getUsage().catch((e) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(503);
    api.done();
  });

  it("still counts attempts for server errors between 429s", async () => {
    const api = mockApi({ maxAttempts: 2 });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(500, "");
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(429, "", { headers: { "retry-after": "1" } });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(500, "");
    const error = await api.client.getUsage().catch((e) => e);
    expect(error).toBeInstanceOf(ServerError);
    api.done();
  });
});
