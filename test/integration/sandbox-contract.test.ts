import { request } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../sandbox";
import { useSandbox } from "../helpers/sandbox";

const sandbox = useSandbox();

async function call(method: string, path: string, options: { body?: string; headers?: Record<string, string>; key?: string | null } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? sandbox.current.apiKey}`;
  const res = await request(sandbox.current.url + path, { method: method as "GET", body: options.body, headers });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe("sandbox: the contract as written", () => {
  it("sends X-Request-Id on every response, errors included", async () => {
    for (const res of [await call("GET", "/v1/usage"), await call("GET", "/v1/usage", { key: null }), await call("GET", "/v2/usage")]) {
      expect(res.headers["x-request-id"]).toMatch(/^req_/);
    }
  });

  it("answers errors as problem+json with code and request_id", async () => {
    const res = await call("GET", "/v1/usage", { key: "nope" });
    expect(res.status).toBe(401);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 401, code: "unauthenticated", request_id: res.headers["x-request-id"], instance: "/v1/usage" });
    expect(res.body.title).toBeTruthy();
  });

  it("creates with 201 and Location, replays with 200 and Idempotent-Replayed", async () => {
    const headers = { "idempotency-key": "contract-1", "content-type": "application/json" };
    const first = await call("POST", "/v1/orders", { body: '{"plan_id":"dc-us-5"}', headers });
    expect(first.status).toBe(201);
    expect(first.headers.location).toBe(`/v1/orders/${first.body.id}`);
    expect(first.body).toMatchObject({ plan_id: "dc-us-5", status: "pending", status_reason: null, ready_at: null });
    expect(first.body.estimated_ready_at).toBeTruthy();
    const again = await call("POST", "/v1/orders", { body: '{ "plan_id": "dc-us-5" }', headers });
    expect(again.status).toBe(200);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body.id).toBe(first.body.id);
  });

  it("still creates an order without an Idempotency-Key (so clients must always send one)", async () => {
    const a = await call("POST", "/v1/orders", { body: '{"plan_id":"dc-us-5"}' });
    const b = await call("POST", "/v1/orders", { body: '{"plan_id":"dc-us-5"}' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
  });

  it.each([
    ["malformed JSON", "{plan", "/"],
    ["a missing plan_id", "{}", "/plan_id"],
    ["an unknown field", '{"plan_id":"dc-us-5","qty":2}', "/qty"],
    ["a plan_id over 128 characters", JSON.stringify({ plan_id: "p".repeat(129) }), "/plan_id"],
  ])("refuses %s with 400 invalid_request and a pointer", async (_name, body, pointer) => {
    const res = await call("POST", "/v1/orders", { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.errors[0].pointer.startsWith(pointer === "/" ? "" : pointer)).toBe(true);
  });

  it("ends an order of the failing plan in failed, with a status_reason", async () => {
    const created = await call("POST", "/v1/orders", { body: '{"plan_id":"res-br-out-of-stock"}' });
    sandbox.current.clock.advance(1000);
    const read = await call("GET", `/v1/orders/${created.body.id}`);
    expect(read.body).toMatchObject({ status: "failed", status_reason: { code: "out_of_stock" } });
    expect(read.headers["retry-after"]).toBeUndefined();
  });

  it("sends a Retry-After polling hint while an order is not terminal", async () => {
    const created = await call("POST", "/v1/orders", { body: '{"plan_id":"dc-us-5"}' });
    const read = await call("GET", `/v1/orders/${created.body.id}`);
    expect(read.body.status).toMatch(/pending|provisioning/);
    expect(read.headers["retry-after"]).toBe("1");
  });

  it("shows a cancelled order with its reason and without its proxies in the list", async () => {
    const created = await call("POST", "/v1/orders", { body: '{"plan_id":"isp-gb-2"}' });
    sandbox.current.clock.advance(1000);
    expect((await call("GET", `/v1/proxies?order_id=${created.body.id}`)).body.data).toHaveLength(2);
    sandbox.current.cancelOrder(created.body.id);
    const read = await call("GET", `/v1/orders/${created.body.id}`);
    expect(read.body).toMatchObject({ status: "cancelled", status_reason: { code: "cancelled_by_operator" } });
    expect((await call("GET", `/v1/proxies?order_id=${created.body.id}`)).body.data).toHaveLength(0);
  });

  it("records when each request arrived, on its own clock", async () => {
    const before = sandbox.current.clock.now();
    await call("GET", "/v1/usage");
    sandbox.current.clock.advance(60_000);
    await call("GET", "/v1/usage");
    const [first, second] = sandbox.current.requests.slice(-2).map((r) => r.at);
    expect(first).toBeGreaterThanOrEqual(before);
    expect(second! - first!).toBeGreaterThanOrEqual(60_000);
  });

  it("answers 405 to a wrong method and 404 outside /v1", async () => {
    expect((await call("DELETE", "/v1/orders")).status).toBe(405);
    expect((await call("GET", "/v1/plans")).status).toBe(404);
  });

  it("keeps the admin routes off unless enabled", async () => {
    expect((await call("GET", "/__sandbox/requests")).status).toBe(404);
  });
});

describe("sandbox: admin routes (enabled by flag)", () => {
  let admin: Sandbox;
  afterAll(() => admin?.stop());

  it("injects faults and shows the records over HTTP", async () => {
    admin = await startSandbox({ enableAdmin: true });
    const auth = { authorization: `Bearer ${admin.apiKey}`, "content-type": "application/json" };
    const post = (path: string, body: unknown) => request(admin.url + path, { method: "POST", headers: auth, body: JSON.stringify(body) });
    expect((await post("/__sandbox/faults", { failNext: { count: 1, status: 503, retryAfterSeconds: 2 } })).statusCode).toBe(200);
    const failed = await request(admin.url + "/v1/usage", { headers: auth });
    expect(failed.statusCode).toBe(503);
    expect(failed.headers["retry-after"]).toBe("2");
    const records = await request(admin.url + "/__sandbox/requests", { headers: auth });
    const body = (await records.body.json()) as { data: Array<{ path: string; auth: string }> };
    expect(body.data.map((r) => r.path)).toContain("/v1/usage");
    // The record never holds the key itself.
    expect(JSON.stringify(body)).not.toContain(admin.apiKey);
    const refused = await request(admin.url + "/__sandbox/requests", { headers: { authorization: "Bearer nope" } });
    expect(refused.statusCode).toBe(401);
  });

  it("sets the lifetime of new orders and moves the clock forward, so an order expires without waiting", async () => {
    const auth = { authorization: `Bearer ${admin.apiKey}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown) => {
      const answer = await request(admin.url + path, { method: "POST", headers: auth, body: JSON.stringify(body) });
      return { status: answer.statusCode, body: (await answer.body.json()) as Record<string, unknown> };
    };
    expect(await post("/__sandbox/settings", { provisioningMs: 0, orderLifetimeMs: 5000 })).toEqual({
      status: 200,
      body: { provisioningMs: 0, orderLifetimeMs: 5000 },
    });
    const bought = await request(admin.url + "/v1/orders", { method: "POST", headers: auth, body: JSON.stringify({ plan_id: "dc-us-5" }) });
    const { id } = (await bought.body.json()) as { id: string };
    expect(admin.orderStatus(id)).toBe("active");
    const moved = await post("/__sandbox/clock", { advanceMs: 5000 });
    expect(moved.status).toBe(200);
    // The sandbox's time now runs 5 s ahead of the real one, and its answers' Date with it (the times they state are
    // read against it).
    expect(Date.parse(String(moved.body.now)) - Date.now()).toBeGreaterThan(4000);
    const usage = await request(admin.url + "/v1/usage", { headers: auth });
    await usage.body.dump();
    expect(Date.parse(String(usage.headers.date)) - Date.now()).toBeGreaterThan(3000);
    expect(admin.orderStatus(id)).toBe("expired");
    expect((await post("/__sandbox/clock", { advanceMs: -1 })).status).toBe(400);
    expect((await post("/__sandbox/settings", { orderLifetimeMs: "1d" })).status).toBe(400);
  });
});

describe("sandbox: the list's order_id filter", () => {
  it("takes one id or up to 100, comma separated", async () => {
    const headers = { "content-type": "application/json" };
    const a = await call("POST", "/v1/orders", { body: '{"plan_id":"dc-us-5"}', headers: { ...headers, "idempotency-key": "oid-a" } });
    const b = await call("POST", "/v1/orders", { body: '{"plan_id":"dc-us-5"}', headers: { ...headers, "idempotency-key": "oid-b" } });
    await call("POST", "/v1/orders", { body: '{"plan_id":"dc-us-5"}', headers: { ...headers, "idempotency-key": "oid-c" } });
    sandbox.current.clock.advance(60_000);
    const one = await call("GET", `/v1/proxies?limit=1000&order_id=${a.body.id}`);
    const two = await call("GET", `/v1/proxies?limit=1000&order_id=${a.body.id},${b.body.id}`);
    expect(new Set(one.body.data.map((p: { order_id: string }) => p.order_id))).toEqual(new Set([a.body.id]));
    expect(new Set(two.body.data.map((p: { order_id: string }) => p.order_id))).toEqual(new Set([a.body.id, b.body.id]));
    const many = Array.from({ length: 101 }, (_, i) => `ord_${i}`).join(",");
    expect((await call("GET", `/v1/proxies?order_id=${many}`)).status).toBe(400);
  });
});
