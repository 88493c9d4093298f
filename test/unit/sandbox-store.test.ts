import { describe, expect, it } from "vitest";
import { PLANS } from "../../sandbox";
import { RateLimiter } from "../../sandbox/rate-limit";
import { SandboxState } from "../../sandbox/state";
import { orderStatus, orderView, usageView } from "../../sandbox/views";

const DAY = 86_400_000;
const plan = PLANS["dc-us-5"]!;

describe("the sandbox's usage", () => {
  it("stops billing an order at its expiry, counted from its ready time, across a month boundary", () => {
    const state = new SandboxState();
    state.createOrder(plan, Date.UTC(2026, 0, 20), { provisioningMs: 0 }, { hiddenReads: 0, fails: false });
    // Ready on 20 January, expires after 30 days, on 19 February; the February period bills 1 to 19 February.
    const usage = usageView(state, Date.UTC(2026, 1, 28)) as { bandwidth: { used_bytes: number }; requests: { used: number } };
    const proxySeconds = 18 * (DAY / 1000) * plan.proxyCount;
    expect(usage.bandwidth.used_bytes).toBe(Math.floor(proxySeconds * 48_000));
    expect(usage.requests.used).toBe(Math.floor(proxySeconds * 0.5));
  });

  it("bills nothing for an order that failed fast", () => {
    const state = new SandboxState();
    const at = Date.UTC(2026, 0, 20);
    const order = state.createOrder(plan, at, { provisioningMs: 0 }, { hiddenReads: 0, fails: true });
    expect(orderStatus(order, at + DAY)).toBe("failed");
    expect((usageView(state, at + DAY) as { bandwidth: { used_bytes: number } }).bandwidth.used_bytes).toBe(0);
  });
});

describe("the sandbox's order lifetime", () => {
  it("expires an order its lifetime after it became ready, and says when on each proxy", () => {
    const state = new SandboxState();
    const at = Date.UTC(2026, 0, 20);
    const order = state.createOrder(plan, at, { provisioningMs: 1000, lifetimeMs: 60_000 }, { hiddenReads: 0, fails: false });
    expect(orderStatus(order, at + 60_999)).toBe("active");
    expect(orderStatus(order, at + 61_000)).toBe("expired");
    const view = orderView(state, order, at + 2000) as { proxies: Array<{ expires_at: string }> };
    expect(new Set(view.proxies.map((p) => p.expires_at))).toEqual(new Set([new Date(at + 61_000).toISOString()]));
  });

  it("keeps the plan's 30 days when no lifetime is set", () => {
    const state = new SandboxState();
    const order = state.createOrder(plan, 0, { provisioningMs: 0 }, { hiddenReads: 0, fails: false });
    expect(orderStatus(order, 30 * DAY - 1)).toBe("active");
    expect(orderStatus(order, 30 * DAY)).toBe("expired");
  });
});

describe("the sandbox's rate limit", () => {
  const timed = () => {
    let now = Date.UTC(2026, 0, 20, 10, 0, 0, 100);
    return { now: () => now, at: (ms: number) => (now = Date.UTC(2026, 0, 20, 10, 0, 0) + ms) };
  };

  it("as a token bucket, allows the burst at once, then the rate, and says when one more is allowed", () => {
    const time = timed();
    const limiter = new RateLimiter({ requestsPerSecond: 10, burst: 5 }, time.now);
    const first = Array.from({ length: 6 }, () => limiter.take("k"));
    expect(first.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(first[5]).toMatchObject({ limit: 5, remaining: 0, retryAfterSeconds: 1 });
    time.at(300);
    expect([limiter.take("k").allowed, limiter.take("k").allowed, limiter.take("k").allowed]).toEqual([true, true, false]);
  });

  it("in fixed windows, allows rate × window in each, refuses the rest until the next window, and counts keys apart", () => {
    const time = timed();
    const limiter = new RateLimiter({ requestsPerSecond: 10, windowSeconds: 2 }, time.now);
    const first = Array.from({ length: 21 }, () => limiter.take("k"));
    expect(first.filter((d) => d.allowed)).toHaveLength(20);
    expect(first[19]).toMatchObject({ allowed: true, limit: 20, remaining: 0 });
    expect(first[20]).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 2, resetSeconds: 2 });
    expect(limiter.take("other").allowed).toBe(true);
    time.at(1_500);
    expect(limiter.take("k")).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    time.at(2_000);
    expect(limiter.take("k")).toMatchObject({ allowed: true, remaining: 19 });
  });
});
