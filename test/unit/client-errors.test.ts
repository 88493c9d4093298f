import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConnectionError,
  IdempotencyError,
  InsufficientBalanceError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PlanNotFoundError,
  ProxyApiError,
  RateLimitError,
  ServerError,
  UnexpectedResponseError,
  UnreadableOrderError,
} from "../../client/errors";
import { API_KEY, mockApi, problem, PROBLEM_HEADERS, PROXY } from "../helpers/mock-api";

/** Every row of the contract's error table, with what the user must be told. */
const ROWS = [
  { status: 400, code: "invalid_request", type: InvalidRequestError, says: /malformed/ },
  { status: 401, code: "unauthenticated", type: AuthenticationError, says: /proxy:apiKey.*PROXY_API_KEY/ },
  { status: 402, code: "insufficient_balance", type: InsufficientBalanceError, says: /nothing was charged/ },
  { status: 403, code: "forbidden", type: PermissionError, says: /not allowed/ },
  { status: 404, code: "not_found", type: NotFoundError, says: /No such resource/ },
  { status: 409, code: "idempotency_key_in_use", type: IdempotencyError, says: /still running/ },
  { status: 422, code: "plan_not_found", type: PlanNotFoundError, says: /Check the plan id; nothing was bought/ },
  { status: 422, code: "idempotency_key_reused", type: IdempotencyError, says: /different order/ },
  { status: 429, code: "rate_limited", type: RateLimitError, says: /rate limit/ },
  { status: 500, code: "internal", type: ServerError, says: /failed on its side/ },
  { status: 502, code: "unavailable", type: ServerError, says: /failed on its side/ },
  { status: 503, code: "unavailable", type: ServerError, says: /failed on its side/ },
  { status: 504, code: "unavailable", type: ServerError, says: /failed on its side/ },
] as const;

describe("error responses", () => {
  for (const row of ROWS) {
    it(`${row.status} ${row.code} becomes ${row.type.name} with status, code, request id and advice`, async () => {
      // maxAttempts 1: this test is about the error, not about retries. A 429 is waited out whatever the attempts,
      // so its Retry-After is beyond the longest wait.
      const api = mockApi({ maxAttempts: 1 });
      const headers = row.status === 429 ? { ...PROBLEM_HEADERS, "retry-after": "3600" } : PROBLEM_HEADERS;
      api.pool
        .intercept({ path: "/v1/orders", method: "POST" })
        .reply(row.status, problem(row.status, row.code, "server detail"), { headers });
      const error = await api.client.createOrder({ planId: "p", idempotencyKey: "k" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(row.type);
      const e = error as ProxyApiError;
      expect(e.status).toBe(row.status);
      expect(e.code).toBe(row.code);
      expect(e.requestId).toBe("req_123");
      expect(e.method).toBe("POST");
      expect(e.path).toBe("/v1/orders");
      expect(e.message).toMatch(row.says);
      expect(e.message).toContain("server detail");
      expect(e.message).toContain("req_123");
      api.done();
    });
  }

  it("keeps the field errors of a problem document", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(
      400,
      problem(400, "invalid_request", "bad body", { errors: [{ pointer: "/plan_id", detail: "required" }] }),
      { headers: PROBLEM_HEADERS },
    );
    const error = (await api.client.createOrder({ planId: "", idempotencyKey: "k" }).catch((e) => e)) as ProxyApiError;
    expect(error.fieldErrors).toEqual([{ pointer: "/plan_id", detail: "required" }]);
    expect(error.message).toContain("/plan_id: required");
    api.done();
  });

  it.each([
    ["FastAPI's (`detail` a list of { loc, msg })", 422, { detail: [{ loc: ["body", "plan_id"], msg: "field required", type: "value_error.missing" }] }, "/plan_id", "field required"],
    ["Rails' (`errors` a map of field to messages)", 422, { errors: { plan_id: ["is not a plan", "is too short"] } }, "/plan_id", "is not a plan; is too short"],
  ])("reads a refused field as %s write it", async (_name, status, body, pointer, detail) => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(status, body, { headers: { "x-request-id": "req_f" } });
    const error = (await api.client.createOrder({ planId: "x", idempotencyKey: "k" }).catch((e) => e)) as ProxyApiError;
    expect(error.fieldErrors).toEqual([{ pointer, detail }]);
    expect(error.message).toContain(`${pointer}: ${detail}`);
    expect(error.message).not.toContain("{");
    api.done();
  });

  it.each([
    ["plain text", "upstream exploded", { "content-type": "text/plain" }, "unavailable", /upstream exploded/],
    ["{ error: { code, message } }", { error: { code: "unavailable", message: "maintenance" } }, {}, "unavailable", /maintenance/],
    ["{ detail, code }", { detail: "try later", code: "unavailable" }, {}, "unavailable", /try later/],
    ["an empty body", "", {}, "unavailable", /503 unavailable/],
    [
      "an HTML page (nginx's), by its title",
      "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n",
      { "content-type": "text/html" },
      "unavailable",
      /failed with 503 unavailable: 503 Service Temporarily Unavailable\./,
    ],
    ["an HTML page without a title, without its tags", "<p>Bad\n gateway</p>", { "content-type": "text/html" }, "unavailable", /unavailable: Bad gateway\./],
  ])("reads an error body in the form %s", async (_name, body, headers, code, says) => {
    const api = mockApi({ maxAttempts: 1 });
    api.pool
      .intercept({ path: "/v1/usage", method: "GET" })
      .reply(503, typeof body === "string" ? body : JSON.stringify(body), { headers: { ...headers, "x-request-id": "r9" } });
    const error = (await api.client.getUsage().catch((e) => e)) as ProxyApiError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(says);
    api.done();
  });

  it.each([
    ["a path", "/v1/orders/ord_loc1", "ord_loc1"],
    ["a whole URL with a query", "https://api.example.test/v1/orders/ord_loc2?expand=proxies", "ord_loc2"],
    ["an escaped id and a trailing slash", "/v1/orders/ord%3Aloc3/", "ord:loc3"],
    ["no Location, but a numeric id in the body", undefined, "12345"],
    ["a 303 See Other (the purchase carried out, its order there)", "/v1/orders/ord_loc4", "ord_loc4", 303],
  ])("reads the order an unreadable purchase's answer names (%s): the order was made", async (_name, location, id, status = 201) => {
    const api = mockApi();
    const body = location === undefined ? JSON.stringify({ id: 12345 }) : "";
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(status, body, { headers: { ...(location ? { location } : {}), "x-request-id": "req_loc" } });
    const error = (await api.client.createOrder({ planId: "p", idempotencyKey: "k" }).catch((e) => e)) as UnreadableOrderError;
    expect(error).toBeInstanceOf(UnreadableOrderError);
    expect(error.orderId).toBe(id);
    expect(error.message).toContain(`names order ${id}: the order was made`);
    api.done();
  });

  it("reads the order an unreadable purchase's answer names inside a data envelope, or as order_id: the order was made", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(201, { data: { id: "ord_env1" } });
    const error = (await api.client.createOrder({ planId: "p", idempotencyKey: "k" }).catch((e) => e)) as UnreadableOrderError;
    expect(error).toBeInstanceOf(UnreadableOrderError);
    expect(error.orderId).toBe("ord_env1");
    // An answer that names it `order_id` (an operation's answer, not the order) names it too.
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(202, { order_id: "ord_op1", state: "accepted" });
    expect(((await api.client.createOrder({ planId: "p", idempotencyKey: "k2" }).catch((e) => e)) as UnreadableOrderError).orderId).toBe("ord_op1");
    api.done();
  });

  it.each([
    ["no Location", {}],
    ["a Location that names no order", { location: "/v1/orders" }],
  ])("says nothing of an order when a bodiless purchase's answer has %s", async (_name, headers) => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/orders", method: "POST" }).reply(201, "", { headers });
    const error = (await api.client.createOrder({ planId: "p", idempotencyKey: "k" }).catch((e) => e)) as ProxyApiError;
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).not.toBeInstanceOf(UnreadableOrderError);
    api.done();
  });

  it.each([301, 307, 308])("a %i redirect is not followed, and the error names where it points and the setting to change", async (status) => {
    const api = mockApi();
    api.pool
      .intercept({ path: "/v1/orders", method: "POST" })
      .reply(status, "", { headers: { location: "https://api.example.test/v1/orders?session=s3cr3t" } });
    const error = (await api.client.createOrder({ planId: "p", idempotencyKey: "k" }).catch((e) => e)) as ProxyApiError;
    expect(error).toBeInstanceOf(ProxyApiError);
    expect(error.status).toBe(status);
    expect(error.message).toContain("a redirect to https://api.example.test/v1/orders, which this provider does not follow");
    expect(error.message).toContain("Set proxy:baseUrl (or PROXY_API_BASE_URL) to https://api.example.test.");
    expect(error.message).not.toContain("s3cr3t");
    api.done();
  });

  it("names the field path and request id when a 2xx body does not match the contract", async () => {
    const api = mockApi();
    api.pool
      .intercept({ path: "/v1/proxies", method: "GET" })
      .reply(200, { data: [{ ...PROXY, ip: undefined, password: "hunter2" }] }, { headers: { "x-request-id": "req_bad" } });
    const error = (await api.client.listProxies().catch((e) => e)) as ProxyApiError;
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.message).toContain("data.0.ip");
    expect(error.message).toContain("req_bad");
    // The offending values are not echoed (they may be credentials), nor a zod dump.
    expect(error.message).not.toContain("hunter2");
    expect(error.message).not.toContain("invalid_type\"");
    api.done();
  });
});

describe("the API key never leaks into an error", () => {
  const leaks = (error: unknown): string[] => {
    const e = error as Error & { cause?: unknown };
    const texts = [
      e.message,
      e.stack ?? "",
      JSON.stringify(e),
      inspect(e, { depth: 10, showHidden: true }),
      inspect(e.cause, { depth: 10, showHidden: true }),
    ];
    return texts.filter((t) => t.includes(API_KEY));
  };

  it("even when the server echoes the key in its error body", async () => {
    const api = mockApi({ maxAttempts: 1 });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(
      401,
      problem(401, "unauthenticated", `key ${API_KEY} is revoked`, {
        title: `Bearer ${API_KEY}`,
        errors: [{ pointer: "header:Authorization", detail: `Bearer ${API_KEY}` }],
      }),
      { headers: PROBLEM_HEADERS },
    );
    const error = await api.client.getUsage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(leaks(error)).toEqual([]);
    expect((error as Error).message).toContain("[redacted]");
    api.done();
  });

  it("in a plain-text error body", async () => {
    const api = mockApi({ maxAttempts: 1 });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).reply(500, `Authorization: Bearer ${API_KEY}`);
    expect(leaks(await api.client.getUsage().catch((e: unknown) => e))).toEqual([]);
    api.done();
  });

  it("in a connection error, cause included", async () => {
    const api = mockApi({ maxAttempts: 1 });
    api.pool.intercept({ path: "/v1/usage", method: "GET" }).replyWithError(new Error(`socket closed while sending ${API_KEY}`));
    const error = await api.client.getUsage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(leaks(error)).toEqual([]);
    api.done();
  });
});
