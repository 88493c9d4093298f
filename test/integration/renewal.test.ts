/**
 * Renewal before expiry, through the provider core against the sandbox: the provider judges expiry by the sandbox's
 * clock, so a test moves both forward instead of waiting.
 */
import { describe, expect, it } from "vitest";
import { ProxyApiClient } from "../../client/client";
import { listProxies } from "../../provider/functions";
import { nextPurchaseKey } from "../../provider/state/idempotency";
import { createOrderProvider } from "../../provider/order/order-provider";
import type { OrderInputs, OrderOutputs } from "../../provider/state/order-state";
import { accountsPerTest, sandboxClock, useSandbox } from "../helpers/sandbox";
import { orderInputs } from "../helpers/inputs";

const DAY = 86_400_000;
const sandbox = useSandbox({ orderLifetimeMs: 10 * DAY });

const accounts = accountsPerTest();

function provider() {
  const warnings: string[] = [];
  const p = createOrderProvider({
    log: { info: () => {}, warn: (m) => warnings.push(m) },
    testing: {
      env: { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: sandbox.current.apiKey },
      clock: sandboxClock(() => sandbox.current),
      accounts: accounts.current,
    },
  });
  return { p, warnings };
}

const inputs = (over: Partial<OrderInputs> = {}) => orderInputs({ renewBefore: "3d", ...over });

/** Buys an order and returns its outputs. */
async function bought(given: OrderInputs & { __provider: string }) {
  const { p } = provider();
  return (await p.create(given)).outs as OrderOutputs;
}

describe("check", () => {
  it.each(["-1d", "7 days", "1.5d", "0s", "366d", 7])("refuses renewBefore %j, naming it and the syntax", async (renewBefore) => {
    const { p } = provider();
    const { failures } = await p.check({}, { planId: "dc-us-5", idempotencyKey: "k", renewBefore });
    expect(failures).toEqual([{ property: "renewBefore", reason: expect.stringMatching(/^renewBefore must be a duration such as "7d", "36h" or "2d12h"/) }]);
  });

  it.each(["7d", "36h", "2d12h", "90s"])("accepts renewBefore %j", async (renewBefore) => {
    const { p } = provider();
    expect((await p.check({}, { planId: "dc-us-5", idempotencyKey: "k", renewBefore })).failures).toEqual([]);
  });
});

describe("expiresAt", () => {
  it("is the earliest expiry of the order's proxies, and renewBefore is echoed", async () => {
    const outs = await bought(inputs());
    const expiry = sandbox.current.clock.now() + 10 * DAY;
    expect(Math.abs(Date.parse(outs.expiresAt ?? "") - expiry)).toBeLessThan(60_000);
    expect(outs.proxies.every((p) => p.expiresAt === outs.expiresAt)).toBe(true);
    expect(outs.renewBefore).toBe("3d");
  });
});

describe("a renewal", () => {
  it("is planned only inside the window, buys once with a key derived from the order it renews, and never twice", async () => {
    const given = inputs();
    const old = await bought(given);
    const { p, warnings } = provider();
    expect(await p.diff(old.orderId, old, given)).toMatchObject({ changes: false, replaces: [] });
    expect(warnings).toEqual([]);

    sandbox.current.clock.advance(8 * DAY);
    expect(await p.diff(old.orderId, old, given)).toMatchObject({ changes: true, replaces: ["expiresAt"] });
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`order ${old.orderId} \\(plan dc-us-5\\) expires at ${old.expiresAt}, in (1d23h|2d00h), within renewBefore \\(3d\\): \`pulumi up\` renews it`)),
    ]);
    const { id, outs } = await p.create(given);
    expect(id).not.toBe(old.orderId);
    expect(outs.status).toBe("active");
    expect(outs.purchaseKey).toBe(nextPurchaseKey(old.purchaseKey ?? "", old.orderId));
    expect(sandbox.current.createdOrders.map((o) => o.idempotencyKey)).toEqual([given.idempotencyKey, outs.purchaseKey]);

    // An interrupted renewal runs again (diff, then create): the same key, the same order, nothing bought.
    const again = provider().p;
    await again.diff(old.orderId, old, given);
    expect((await again.create(given)).id).toBe(id);
    expect(sandbox.current.createdOrders).toHaveLength(2);

    // The new order is far from its expiry: the next diff changes nothing.
    expect(await again.diff(id, outs as OrderOutputs, given)).toMatchObject({ changes: false });
  });

  it("buys the same successor when create meets the due order again without a plan from diff", async () => {
    // Inside the API's 24-hour replay window, the resource's own key replays the due order.
    sandbox.current.settings.orderLifetimeMs = DAY / 2;
    const given = inputs({ renewBefore: "3h" });
    const old = await bought(given);
    sandbox.current.clock.advance(10 * 3_600_000);
    const { p, warnings } = provider();
    const { id, outs } = await p.create(given);
    expect(id).not.toBe(old.orderId);
    expect(outs.purchaseKey).toBe(nextPurchaseKey(given.idempotencyKey, old.orderId));
    expect(warnings).toEqual([expect.stringContaining(`order ${old.orderId} (bought by an earlier run with this key) is due for renewal`)]);
    expect(sandbox.current.createdOrders).toHaveLength(2);
  });

  it("is a change of renewBefore alone while outside the window: an update, no purchase", async () => {
    const given = inputs();
    const old = await bought(given);
    const { p } = provider();
    const news = { ...given, renewBefore: "5d" };
    expect(await p.diff(old.orderId, old, news)).toMatchObject({ changes: true, replaces: [] });
    const { outs } = await p.update(old.orderId, old, news);
    expect(outs).toMatchObject({ orderId: old.orderId, renewBefore: "5d" });
    const { renewBefore: _dropped, ...without } = news;
    expect((await p.update(old.orderId, outs, without)).outs).not.toHaveProperty("renewBefore");
    expect(sandbox.current.createdOrders).toHaveLength(1);
  });

  it("is refused, with what to set instead, when renewBefore is at least the order's lifetime", async () => {
    const given = inputs({ renewBefore: "10d" });
    const old = await bought(given);
    const { p, warnings } = provider();
    expect(await p.diff(old.orderId, old, given)).toMatchObject({ changes: false, replaces: [] });
    expect(warnings).toEqual([
      expect.stringMatching(/not renewing order ord_\w+ \(plan dc-us-5\): renewBefore \(10d\) is at least its whole lifetime \(10d00h .*such as "3d08h"/),
    ]);
    // Once it has expired, it is replaced like any expired order.
    sandbox.current.clock.advance(10 * DAY);
    expect(await p.diff(old.orderId, old, given)).toMatchObject({ changes: true, replaces: ["expiresAt"] });
  });

  it("is impossible without a known expiry: said, and nothing is replaced", async () => {
    const given = inputs();
    const old = await bought(given);
    const unknown = { ...old, expiresAt: null, proxies: old.proxies.map(({ expiresAt: _e, ...p }) => p) };
    const { p, warnings } = provider();
    sandbox.current.clock.advance(9 * DAY);
    expect(await p.diff(old.orderId, unknown, given)).toMatchObject({ changes: false, replaces: [] });
    expect(warnings).toEqual([expect.stringMatching(/order ord_\w+ cannot be renewed: the API reported no expiry/)]);
  });
});

describe("without renewBefore", () => {
  it("warns 7 days ahead in preview and refresh, buys nothing, and replaces once expired", async () => {
    const given = inputs({ renewBefore: undefined });
    const old = await bought(given);
    const { p, warnings } = provider();
    sandbox.current.clock.advance(2 * DAY);
    expect(await p.diff(old.orderId, old, given)).toMatchObject({ changes: false });
    expect(warnings).toEqual([]);

    sandbox.current.clock.advance(4 * DAY);
    expect(await p.diff(old.orderId, old, given)).toMatchObject({ changes: false, replaces: [] });
    const refreshed = await p.read(old.orderId, old);
    expect(refreshed.props).toMatchObject({ status: "active" });
    expect(warnings).toHaveLength(2);
    for (const line of warnings) expect(line).toMatch(/expires at .*, in (3d23h|4d00h)\. Nothing renews it: set renewBefore/);

    sandbox.current.clock.advance(4 * DAY + 60_000);
    warnings.length = 0;
    expect(await p.diff(old.orderId, old, given)).toMatchObject({ changes: true, replaces: ["expiresAt"] });
    expect(warnings[0]).toMatch(/expired at .*; the next `pulumi up` replaces it/);
    expect(sandbox.current.createdOrders).toHaveLength(1);
  });
});

describe("getProxies' expiresBefore", () => {
  it("keeps only proxies that expire before the time, and refuses a value that is not a time", async () => {
    const first = await bought(inputs());
    sandbox.current.clock.advance(DAY);
    await bought(inputs({ planId: "isp-gb-2" }));
    const api = new ProxyApiClient({ baseUrl: sandbox.current.url, apiKey: sandbox.current.apiKey });
    const cut = new Date(Date.parse(first.expiresAt ?? "") + 1000).toISOString();
    const soon = await listProxies(api, { expiresBefore: cut }, false);
    expect(soon.proxies.map((p) => p.orderId)).toEqual(first.proxies.map(() => first.orderId));
    expect((await listProxies(api, {}, false)).proxies).toHaveLength(first.proxies.length + 2);
    await expect(listProxies(api, { expiresBefore: "next week" }, false)).rejects.toThrow(/expiresBefore must be an RFC 3339 time/);
  });
});
