import { describe, expect, it } from "vitest";
import { PLANS } from "../../sandbox";
import { Store } from "../../sandbox/store";

const DAY = 86_400_000;

describe("the sandbox's usage", () => {
  it("stops billing an order at its expiry, counted from its ready time, across a month boundary", () => {
    let now = Date.UTC(2026, 0, 20);
    const store = new Store(undefined, () => now);
    const plan = PLANS["dc-us-5"];
    if (!plan) throw new Error("dc-us-5 is missing from the catalogue");
    store.createOrder(plan, 0, { hiddenReads: 0, fails: false });
    // Ready on 20 January, expires after 30 days, on 19 February; the February period bills 1 to 19 February.
    now = Date.UTC(2026, 1, 28);
    const usage = store.usage() as { bandwidth: { used_bytes: number }; requests: { used: number } };
    const proxySeconds = 18 * (DAY / 1000) * plan.proxyCount;
    expect(usage.bandwidth.used_bytes).toBe(Math.floor(proxySeconds * 48_000));
    expect(usage.requests.used).toBe(Math.floor(proxySeconds * 0.5));
  });

  it("bills nothing for an order that failed fast", () => {
    const now = Date.UTC(2026, 0, 20);
    const store = new Store(undefined, () => now + DAY);
    const plan = PLANS["dc-us-5"];
    if (!plan) throw new Error("dc-us-5 is missing from the catalogue");
    const order = store.createOrder(plan, 0, { hiddenReads: 0, fails: true });
    expect(store.status(order)).toBe("failed");
    expect((store.usage() as { bandwidth: { used_bytes: number } }).bandwidth.used_bytes).toBe(0);
  });
});
