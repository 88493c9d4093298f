import { describe, expect, it } from "vitest";
import { UnexpectedResponseError } from "../../client/errors";
import { BASE_URL, mockApi, PROXY } from "../helpers/mock-api";

const proxy = (n: number) => ({ ...PROXY, ip: `198.51.100.${n}`, username: `u${n}`, password: `p${n}`, order_id: "ord_1" });

describe("GET /v1/proxies", () => {
  it("follows next_cursor across pages and sends the filters", async () => {
    const api = mockApi();
    const query = "limit=2&type=datacenter%2Cisp&country=US&order_id=ord_1";
    api.pool.intercept({ path: `/v1/proxies?${query}`, method: "GET" }).reply(200, { data: [proxy(1), proxy(2)], has_more: true, next_cursor: "c2" });
    api.pool.intercept({ path: `/v1/proxies?${query.replace("limit=2", "limit=2&cursor=c2")}`, method: "GET" }).reply(200, {
      data: [proxy(3), proxy(4)],
      has_more: true,
      next_cursor: "c3",
    });
    api.pool.intercept({ path: `/v1/proxies?${query.replace("limit=2", "limit=2&cursor=c3")}`, method: "GET" }).reply(200, {
      data: [proxy(5)],
      has_more: false,
      next_cursor: null,
    });
    const proxies = await api.client.listProxies({ pageSize: 2, type: ["datacenter", "isp"], country: "US", orderId: "ord_1" });
    expect(proxies.map((p) => p.ip)).toEqual([1, 2, 3, 4, 5].map((n) => `198.51.100.${n}`));
    expect(proxies[0]).toMatchObject({ orderId: "ord_1", username: "u1", password: "p1" });
    api.done();
  });

  it("yields one page at a time", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: [proxy(1)], has_more: true, next_cursor: "c2" });
    api.pool.intercept({ path: "/v1/proxies?cursor=c2", method: "GET" }).reply(200, { data: [proxy(2)], has_more: false, next_cursor: null });
    const sizes: number[] = [];
    for await (const page of api.client.listProxyPages()) sizes.push(page.proxies.length);
    expect(sizes).toEqual([1, 1]);
    api.done();
  });

  it("reads a response with data alone (the seed's shape) as one complete page", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: [proxy(1), { ...PROXY, type: "satellite" }] });
    const proxies = await api.client.listProxies();
    expect(proxies).toHaveLength(2);
    // An unknown type is kept as it is.
    expect(proxies[1]?.type).toBe("satellite");
    api.done();
  });

  it("reads an empty list sent as `data: null` (Go writes an empty slice so) as no proxies, and an order's `proxies: null` as none", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: null, has_more: false, next_cursor: null });
    expect(await api.client.listProxies()).toEqual([]);
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { id: "ord_1", plan_id: "dc-us-5", status: "active", proxies: null });
    expect((await api.client.getOrder("ord_1")).order.proxies).toEqual([]);
    api.done();
  });

  it("reads field names in camelCase as the contract's: hasMore and nextCursor page on, orderId is the proxy's order", async () => {
    const api = mockApi();
    const camel = (n: number) => ({ ip: `198.51.100.${n}`, port: 8080, type: "datacenter", country: "US", orderId: "ord_1", expiresAt: "2027-01-01T00:00:00Z" });
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: [camel(1)], hasMore: true, nextCursor: "c2" });
    api.pool.intercept({ path: "/v1/proxies?cursor=c2", method: "GET" }).reply(200, { data: [camel(2)], hasMore: false, nextCursor: null });
    const proxies = await api.client.listProxies();
    expect(proxies).toEqual([1, 2].map((n) => ({ ip: `198.51.100.${n}`, port: 8080, type: "datacenter", country: "US", orderId: "ord_1", expiresAt: "2027-01-01T00:00:00Z" })));
    api.done();
  });

  it("follows a next_cursor sent as an integer (the last id seen, as APIs keyed by database sequences page) as its digits", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: [proxy(1)], has_more: true, next_cursor: 1001 });
    api.pool.intercept({ path: "/v1/proxies?cursor=1001", method: "GET" }).reply(200, { data: [proxy(2)], has_more: false, next_cursor: null });
    expect((await api.client.listProxies()).map((p) => p.ip)).toEqual(["198.51.100.1", "198.51.100.2"]);
    api.done();
  });

  it("keeps unknown fields, renamed to camelCase, and never lets a \"__proto__\" key set a record's prototype", async () => {
    const api = mockApi();
    const record = JSON.stringify({ ...proxy(1), rotation_interval_s: 300, nested_info: { last_seen_at: "x" } });
    const hostile = `{"extra_info":{"__proto__":{"polluted":true}},${JSON.stringify(proxy(2)).slice(1)}`;
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, `{"data":[${record},${hostile}]}`, {
      headers: { "content-type": "application/json" },
    });
    const [first, second] = await api.client.listProxies();
    expect(first).toMatchObject({ orderId: "ord_1", rotationIntervalS: 300, nestedInfo: { lastSeenAt: "x" } });
    const extra = (second as unknown as { extraInfo: Record<string, unknown> }).extraInfo;
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(extra.polluted).toBeUndefined();
    expect(Object.keys(extra)).toEqual(["_Proto__"]);
    api.done();
  });

  it("refuses has_more without a cursor instead of silently truncating", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: [proxy(1)], has_more: true, next_cursor: null });
    const error = await api.client.listProxies().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toContain("next_cursor is missing");
    api.done();
  });

  it("follows the cursor of the next page a Link header names, where the body says nothing of more pages", async () => {
    const api = mockApi();
    const link = (cursor: string) => ({ headers: { link: `<https://api.example.com/v1/proxies?limit=2&cursor=${cursor}>; rel="next", </v1/proxies?limit=2>; rel=first` } });
    api.pool.intercept({ path: "/v1/proxies?limit=2", method: "GET" }).reply(200, { data: [proxy(1), proxy(2)] }, link("c2"));
    api.pool.intercept({ path: "/v1/proxies?limit=2&cursor=c2", method: "GET" }).reply(200, { data: [proxy(3)] }, { headers: { link: '</v1/proxies?limit=2>; rel="first prev"' } });
    expect((await api.client.listProxies({ pageSize: 2 })).map((p) => p.ip)).toEqual([1, 2, 3].map((n) => `198.51.100.${n}`));
    // The body's word wins over the header's: has_more false ends the list.
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: [proxy(1)], has_more: false, next_cursor: null }, link("c9"));
    expect(await api.client.listProxies()).toHaveLength(1);
    api.done();
  });

  it("follows a next page a Link header names by page number, sending its query as written, until a page names none", async () => {
    const api = mockApi();
    // An absolute target on the API's origin, then a relative one.
    const next = (page: number) => ({ headers: { link: `<${page === 2 ? BASE_URL : ""}/v1/proxies?per_page=2&page=${page}>; rel="next"` } });
    api.pool.intercept({ path: "/v1/proxies?limit=2&type=isp", method: "GET" }).reply(200, { data: [proxy(1), proxy(2)] }, next(2));
    api.pool.intercept({ path: "/v1/proxies?per_page=2&page=2", method: "GET" }).reply(200, { data: [proxy(3), proxy(4)] }, next(3));
    api.pool.intercept({ path: "/v1/proxies?per_page=2&page=3", method: "GET" }).reply(200, { data: [proxy(5)] });
    expect((await api.client.listProxies({ pageSize: 2, type: "isp" })).map((p) => p.ip)).toEqual([1, 2, 3, 4, 5].map((n) => `198.51.100.${n}`));
    // A page that names itself as the next is a loop.
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: [proxy(1)] }, next(2));
    api.pool.intercept({ path: "/v1/proxies?per_page=2&page=2", method: "GET" }).reply(200, { data: [proxy(2)] }, next(2));
    await expect(api.client.listProxies()).rejects.toThrow(/repeats an earlier page/);
    api.done();
  });

  it("refuses a next page a Link header names elsewhere than the list, instead of sending the key there", async () => {
    const api = mockApi();
    for (const target of ["https://elsewhere.example.net/v1/proxies?page=2", `${BASE_URL}/v2/proxies?page=2`]) {
      api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: [proxy(1)] }, { headers: { link: `<${target}>; rel="next"` } });
      const error = await api.client.listProxies().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect((error as Error).message).toMatch(/Link header names a next page elsewhere than this list \(https:\/\/\S+\/proxies\), which is not followed/);
    }
    api.done();
  });

  it("refuses a cursor that repeats (a loop)", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: [proxy(1)], has_more: true, next_cursor: "c" });
    api.pool.intercept({ path: "/v1/proxies?cursor=c", method: "GET" }).reply(200, { data: [proxy(2)], has_more: true, next_cursor: "c" });
    await expect(api.client.listProxies()).rejects.toThrow(/repeats an earlier page/);
    api.done();
  });

  it("rejects a port out of range, naming the field", async () => {
    const api = mockApi();
    api.pool.intercept({ path: "/v1/proxies", method: "GET" }).reply(200, { data: [{ ...PROXY, port: 70000 }] });
    await expect(api.client.listProxies()).rejects.toThrow(/data\.0\.port/);
    api.done();
  });
});
