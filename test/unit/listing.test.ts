import { describe, expect, it } from "vitest";
import type { ProxyPage, ProxyRecord } from "../../contract/types";
import { ProxyError } from "../../client";
import { listForOrders, sameProxies, unchangedInList } from "../../provider/api/listing";
import { ActiveOrderProxies } from "../../provider/api/order-proxies";

const proxy = (orderId: string | undefined, n: number): ProxyRecord => ({
  ip: `198.51.100.${n}`,
  port: 10_000 + n,
  type: "datacenter",
  country: "US",
  id: `px_${n}`,
  ...(orderId ? { orderId } : {}),
  username: `u${n}`,
  password: `p${n}`,
});

/** A list of `pages` pages; records how many were fetched. */
function api(pages: ProxyRecord[][]) {
  let fetched = 0;
  return {
    fetched: () => fetched,
    async *listProxyPages(): AsyncGenerator<ProxyPage> {
      for (let i = 0; i < pages.length; i++) {
        fetched += 1;
        yield { proxies: pages[i]!, nextCursor: i < pages.length - 1 ? `c${i + 1}` : undefined };
      }
    },
  };
}

/**
 * An API that applies the order_id filter (up to 100 ids), over an account of `pages` pages; records the filters asked
 * for, and every page fetched.
 */
function filteringApi(pages: ProxyRecord[][]) {
  const asked: Array<string | string[] | undefined> = [];
  let fetched = 0;
  return {
    asked,
    fetched: () => fetched,
    async *listProxyPages(filters: { orderId?: string | string[] } = {}): AsyncGenerator<ProxyPage> {
      asked.push(filters.orderId);
      const ids = new Set([filters.orderId ?? []].flat());
      if (ids.size === 0) {
        for (let i = 0; i < pages.length; i++) {
          fetched += 1;
          yield { proxies: pages[i]!, nextCursor: i < pages.length - 1 ? `c${i + 1}` : undefined };
        }
        return;
      }
      fetched += 1;
      yield { proxies: pages.flat().filter((p) => ids.has(p.orderId ?? "")), nextCursor: undefined };
    },
  };
}

describe("listing an account's proxies for a refresh", () => {
  it("asks the list for the stack's orders only, 100 ids a request, whatever else the account holds", async () => {
    const others = Array.from({ length: 30 }, (_, page) => Array.from({ length: 1000 }, (_, i) => proxy(`ord_other${page}_${i}`, i)));
    const mine = Array.from({ length: 150 }, (_, i) => proxy(`ord_mine${i}`, i));
    const list = filteringApi([...others, mine]);
    const found = await listForOrders(list, new Set(mine.map((p) => p.orderId ?? "")));
    // The account's first page (a small account ends there), then the stack's orders by id.
    expect(list.asked.map((ids) => [ids ?? []].flat().length)).toEqual([0, 100, 50]);
    expect(mine.every((p) => found?.byOrder.has(p.orderId ?? ""))).toBe(true);
    expect(found?.complete).toBe(false);
  });

  it("pages on through an account that is mostly the stack's, where its pages cost less than its batches of ids", async () => {
    // A fleet of 1,000 orders of 5 proxies alone in its account: 5 pages, against the first page and 8 batches of ids.
    const fleet = Array.from({ length: 5 }, (_, page) => Array.from({ length: 1000 }, (_, i) => proxy(`ord_${page * 200 + Math.floor(i / 5)}`, i)));
    const alone = filteringApi(fleet);
    const found = await listForOrders(alone, new Set(Array.from({ length: 1000 }, (_, i) => `ord_${i}`)));
    expect(found?.byOrder.size).toBe(1000);
    expect(found?.complete).toBe(true);
    expect(alone.fetched()).toBe(5);
    // One member gone: still its pages; the caller reads the missing one by id.
    const gone = filteringApi(fleet.map((page) => page.filter((p) => p.orderId !== "ord_500")));
    expect((await listForOrders(gone, new Set(Array.from({ length: 1000 }, (_, i) => `ord_${i}`))))?.byOrder.has("ord_500")).toBe(false);
    expect(gone.fetched()).toBe(5);
    // The same fleet beside 20 pages of another stack's orders after it: the pages it needs, then no more.
    const others = Array.from({ length: 20 }, (_, page) => Array.from({ length: 1000 }, (_, i) => proxy(`ord_other${page}_${i}`, i)));
    const shared = filteringApi([...fleet, ...others]);
    expect((await listForOrders(shared, new Set(Array.from({ length: 1000 }, (_, i) => `ord_${i}`))))?.byOrder.size).toBe(1000);
    expect(shared.fetched()).toBe(5);
  });

  it("reads every page it needs and groups the proxies by order", async () => {
    const list = api([[proxy("ord_a", 1), proxy("ord_b", 2)], [proxy("ord_b", 3), proxy("ord_c", 4)]]);
    // ord_x is not listed (expired, cancelled or not yet visible): the caller reads it.
    const found = await listForOrders(list, new Set(["ord_a", "ord_b", "ord_c", "ord_x"]));
    expect(found?.complete).toBe(true);
    expect(found?.byOrder.has("ord_x")).toBe(false);
    expect(found?.byOrder.get("ord_b")?.map((p) => p.id)).toEqual(["px_2", "px_3"]);
    // An API that ignores the order_id filter costs one request more: its first page, twice.
    expect(list.fetched()).toBe(3);
  });

  it("does not list for one order: reading it costs the same", async () => {
    const list = api([[proxy("ord_a", 1)]]);
    expect((await listForOrders(list, new Set(["ord_a"])))?.byOrder.size).toBe(0);
    expect(list.fetched()).toBe(0);
  });

  it("stops once the pages would outnumber the orders left, and after a page that matched none of them", async () => {
    const many = Array.from({ length: 10 }, (_, i) => [proxy(`ord_other${i}`, i)]);
    const unmatched = api([[proxy("ord_a", 1)], ...many]);
    await listForOrders(unmatched, new Set(["ord_a", "ord_b", "ord_c"]));
    // Page 1 matched ord_a; the request by id, ignored, answered page 1 again (one request more than an API that
    // keeps the filter costs); page 2 matched nothing: stop.
    expect(unmatched.fetched()).toBe(3);
    const few = api([[proxy("ord_a", 1)], [proxy("ord_b", 2)], [proxy("ord_c", 3)], [proxy("ord_d", 4)]]);
    await listForOrders(few, new Set(["ord_a", "ord_b", "ord_x"]));
    // Page 1 again for the request by id, then page 2: one order is left and another page would outnumber it.
    expect(few.fetched()).toBe(3);
  });

  it("gives up when the proxies carry no order_id (optional in the contract)", async () => {
    const list = api([[proxy(undefined, 1), proxy(undefined, 2)], [proxy("ord_a", 3)]]);
    expect(await listForOrders(list, new Set(["ord_a", "ord_b"]))).toBeUndefined();
    expect(list.fetched()).toBe(1);
  });

  it("compares listed proxies with the stored ones in any order, credentials included", () => {
    const listed = [proxy("ord_a", 1), proxy("ord_a", 2)];
    const stored = [proxy("ord_a", 2), proxy("ord_a", 1)];
    const info = stored.map(({ username: _u, password: _p, ...rest }) => rest);
    const credentials = stored.map(({ ip, port, username, password }) => ({ ip, port, username, password }));
    expect(sameProxies(listed, info, credentials)).toBe(true);
    expect(sameProxies([{ ...listed[0]!, ip: "203.0.113.9" }, listed[1]!], info, credentials)).toBe(false);
    expect(sameProxies([listed[0]!, { ...listed[1]!, password: "rotated" }], info, credentials)).toBe(false);
    expect(sameProxies([listed[0]!], info, credentials)).toBe(false);
  });

  it("does not keep an order from the list when a listed proxy is past its expiry (an API that expires lazily)", () => {
    const listed = [{ ...proxy("ord_a", 1), expiresAt: "2026-01-01T00:00:00Z" }];
    const info = listed.map(({ username: _u, password: _p, ...rest }) => rest);
    const credentials = listed.map(({ ip, port, username, password }) => ({ ip, port, username, password }));
    expect(unchangedInList(listed, info, credentials, Date.parse("2025-12-31T00:00:00Z"))).toBe(true);
    expect(unchangedInList(listed, info, credentials, Date.parse("2026-01-02T00:00:00Z"))).toBe(false);
    expect(unchangedInList(undefined, info, credentials, 0)).toBe(false);
  });
});

describe("an active order whose record names no proxies", () => {
  /** `list` on a clock whose sleeps are counted and pass at once. */
  const withClock = <T extends object>(list: T) => {
    const slept: number[] = [];
    const clock = { now: () => 0, sleep: async (ms: number) => void slept.push(ms) };
    return { slept, api: { ...list, clock } as T & { clock: typeof clock } };
  };
  const order = (id: string, status = "active") => ({ id, planId: "dc-us-5", status });
  const log = () => {
    const lines: string[] = [];
    return { lines, warn: (line: string) => lines.push(line) };
  };

  it("gets its proxies from the list, asked by order id, one listing for the orders that arrive together", async () => {
    const pages = [[proxy("ord_a", 1), proxy("ord_a", 2), proxy("ord_b", 3), proxy("ord_other", 4)]];
    const list = filteringApi(pages);
    const { api } = withClock(list);
    const proxies = new ActiveOrderProxies(api);
    const said = log();
    const [a, b] = await Promise.all([proxies.complete(order("ord_a"), said), proxies.complete(order("ord_b"), said)]);
    expect(a.proxies).toEqual([proxy("ord_a", 1), proxy("ord_a", 2)]);
    expect(b.proxies).toEqual([proxy("ord_b", 3)]);
    expect(list.asked).toEqual([["ord_a", "ord_b"]]);
    expect(said.lines).toEqual([]);
  });

  it("leaves an order that is not active, or that names its proxies (even none), as it was read, asking nothing", async () => {
    const list = filteringApi([[proxy("ord_a", 1)]]);
    const proxies = new ActiveOrderProxies(withClock(list).api);
    const pending = order("ord_a", "provisioning");
    const named = { ...order("ord_a"), proxies: [] };
    expect(await proxies.complete(pending, log())).toBe(pending);
    expect(await proxies.complete(named, log())).toBe(named);
    expect(list.asked).toEqual([]);
  });

  it("asks once more a moment later when the list does not show them yet, then records none and says a refresh reads them", async () => {
    const list = filteringApi([[proxy("ord_other", 1)]]);
    const { api, slept } = withClock(list);
    const said = log();
    const read = await new ActiveOrderProxies(api).complete(order("ord_a"), said);
    expect(read.proxies).toBeUndefined();
    expect(list.asked).toEqual([["ord_a"], ["ord_a"]]);
    expect(slept.filter((ms) => ms >= 1000)).not.toEqual([]);
    expect(said.lines).toEqual([expect.stringMatching(/order ord_a is active, but its record names no proxies .* a `pulumi refresh` reads them/)]);
  });

  it("records none, with the same line, when the list fails or its proxies carry no order_id: the order itself is kept", async () => {
    const failing = {
      async *listProxyPages(): AsyncGenerator<ProxyPage> {
        throw new ProxyError("GET /v1/proxies returned 400", "invalid_request");
      },
    };
    for (const list of [failing, api([[proxy(undefined, 1)]])]) {
      const said = log();
      const read = await new ActiveOrderProxies(withClock(list).api).complete(order("ord_a"), said);
      expect(read).toEqual(order("ord_a"));
      expect(said.lines).toHaveLength(1);
    }
  });
});
