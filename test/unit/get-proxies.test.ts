/**
 * getProxies (provider/functions.ts) against an API that keeps the contract to its minimum: the seed names no query
 * of `GET /v1/proxies`, so an API may ignore the filters, and its records may carry no `order_id`.
 */
import { describe, expect, it } from "vitest";
import { checkGetProxyHealthArgs, checkProxyHealth, listProxies } from "../../provider/functions";
import { mockApi, ORDER, problem, PROBLEM_HEADERS } from "../helpers/mock-api";

const proxy = (n: number, extra: Record<string, unknown> = {}) => ({ ip: `198.51.100.${n}`, port: 8000 + n, type: "datacenter", country: "US", ...extra });

/** An API that answers every list with every proxy of the account, whatever the query. */
function ignoringFilters(records: unknown[]) {
  const api = mockApi();
  api.pool.intercept({ path: (path) => path.startsWith("/v1/proxies"), method: "GET" }).reply(200, { data: records }).persist();
  return api;
}

describe("getProxies where the API ignores the filters", () => {
  it("keeps only the proxies of the type, country and orders asked for", async () => {
    const api = ignoringFilters([
      proxy(1, { order_id: "ord_1" }),
      proxy(2, { order_id: "ord_2" }),
      proxy(3, { order_id: "ord_1", type: "residential" }),
      proxy(4, { order_id: "ord_1", country: "DE" }),
    ]);
    const ips = async (filters: Parameters<typeof listProxies>[1]) => (await listProxies(api.client, filters, false)).proxies.map((p) => p.ip);
    expect(await ips({ orderId: "ord_1" })).toEqual(["198.51.100.1", "198.51.100.3", "198.51.100.4"]);
    expect(await ips({ orderId: "ord_1", type: "datacenter", country: "us" })).toEqual(["198.51.100.1"]);
    expect(await ips({ country: "DE,FR" })).toEqual(["198.51.100.4"]);
    expect(await ips({})).toHaveLength(4);
  });

  it("reads the orders asked for by id when the records do not say whose they are", async () => {
    const api = ignoringFilters([proxy(1), proxy(2), proxy(3)]);
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { ...ORDER, id: "ord_1", status: "active", proxies: [proxy(2, { username: "u", password: "p" })] });
    const listed = await listProxies(api.client, { orderId: "ord_1" }, true);
    expect(listed.proxies.map((p) => p.ip)).toEqual(["198.51.100.2"]);
    expect(listed.credentials).toEqual([{ ip: "198.51.100.2", port: 8002, username: "u", password: "p" }]);
    api.done();
  });

  it("finds no proxies of an order the API no longer knows, as a list that filtered would show none", async () => {
    const api = ignoringFilters([proxy(1), proxy(2)]);
    api.pool.intercept({ path: "/v1/orders/ord_gone", method: "GET" }).reply(404, problem(404, "not_found", "no such order"), { headers: PROBLEM_HEADERS });
    expect(await listProxies(api.client, { orderId: "ord_gone" }, false)).toEqual({ proxies: [], credentials: [] });
    api.done();
  });

  it("getProxyHealth reads each order once and checks the orders both the filter and orderIds name", async () => {
    // Port 9 on loopback refuses at once: the check fails fast, and the report counts what was checked.
    const refusing = (n: number) => proxy(n, { ip: "127.0.0.1", port: 9 });
    const api = ignoringFilters([refusing(1), refusing(2)]);
    api.pool.intercept({ path: "/v1/orders/ord_1", method: "GET" }).reply(200, { ...ORDER, id: "ord_1", status: "active", proxies: [refusing(1)] });
    const call = checkGetProxyHealthArgs({ target: "http://127.0.0.1:9/", orderId: "ord_1", orderIds: ["ord_1", "ord_2"] });
    if (call.failures) throw new Error(JSON.stringify(call.failures));
    expect(await checkProxyHealth(api.client, call.query)).toMatchObject({ total: 1, healthy: 0 });
    api.done();
  });
});

describe("getProxies with more orders than one filter may name", () => {
  it("lists without order_id (the API would refuse 101 ids) and keeps the proxies of the orders asked for", async () => {
    const api = mockApi();
    const ids = Array.from({ length: 101 }, (_, i) => `ord_${i}`);
    const queries: string[] = [];
    api.pool
      .intercept({ path: (path) => path.startsWith("/v1/proxies") && Boolean(queries.push(path)), method: "GET" })
      .reply(200, { data: [proxy(1, { order_id: "ord_0" }), proxy(2, { order_id: "ord_100" }), proxy(3, { order_id: "ord_other" })] });
    const listed = await listProxies(api.client, { orderId: ids.join(",") }, false);
    expect(listed.proxies.map((p) => p.ip)).toEqual(["198.51.100.1", "198.51.100.2"]);
    expect([...new Set(queries)]).toEqual(["/v1/proxies?limit=1000"]);
    api.done();
  });
});
