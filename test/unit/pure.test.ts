import { describe, expect, it, vi } from "vitest";
import { backoffDelay, isRetryable, jitter } from "../../client/retry";
import { formatDuration, parseDuration } from "../../provider/shared/duration";
import { nextPurchaseKey, purchaseKey } from "../../provider/state/idempotency";

describe("retry decision", () => {
  it.each([
    [{ status: undefined, idempotent: true }, true],
    [{ status: 503, idempotent: true }, true],
    [{ status: 429, idempotent: true }, true],
    [{ status: 408, idempotent: true }, true],
    [{ status: 409, idempotent: true }, true],
    [{ status: 400, idempotent: true }, false],
    [{ status: 422, idempotent: true }, false],
    [{ status: 401, idempotent: true }, false],
    [{ status: 503, idempotent: false }, false],
    [{ status: undefined, idempotent: false }, false],
  ])("%o -> %s", (outcome, expected) => {
    expect(isRetryable(outcome)).toBe(expected);
  });

  it("backs off exponentially under a cap, jittered down from the ceiling", () => {
    const options = { initialRetryDelayMs: 500, maxRetryDelayMs: 4000 };
    const random = vi.spyOn(jitter, "random");
    random.mockReturnValue(1);
    expect([0, 1, 2, 3, 4].map((n) => backoffDelay(n, options))).toEqual([500, 1000, 2000, 4000, 4000]);
    random.mockReturnValue(0.25);
    expect(backoffDelay(3, options)).toBe(1000);
    random.mockReturnValue(0);
    expect(backoffDelay(3, options)).toBe(0);
    random.mockRestore();
  });
});

describe("durations", () => {
  it.each([
    ["20m", 1_200_000],
    ["90s", 90_000],
    ["1h30m", 5_400_000],
    ["2h", 7_200_000],
    ["", undefined],
    ["20", undefined],
    ["m", undefined],
    ["20 minutes", undefined],
    ["1m1h", undefined],
    ["7d", 604_800_000],
    ["36h", 129_600_000],
    ["2d12h", 216_000_000],
    ["-1d", undefined],
    ["1h2d", undefined],
    ["1.5d", undefined],
  ])("parseDuration(%j) = %s", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it("formats waits compactly", () => {
    expect(formatDuration(5_000)).toBe("5s");
    expect(formatDuration(245_000)).toBe("4m05s");
    expect(formatDuration(3_720_000)).toBe("1h02m");
    expect(formatDuration(6 * 86_400_000 + 23 * 3_600_000)).toBe("6d23h");
  });
});

describe("purchase keys", () => {
  const identity = { project: "infra", stack: "prod", resourceName: "edge", planId: "dc-us-5" };

  it("are deterministic, valid Idempotency-Key values, and differ per resource, stack and plan", () => {
    const key = purchaseKey(identity);
    expect(purchaseKey({ ...identity })).toBe(key);
    expect(key).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(purchaseKey({ ...identity, stack: "dev" })).not.toBe(key);
    expect(purchaseKey({ ...identity, resourceName: "edge2" })).not.toBe(key);
    expect(purchaseKey({ ...identity, planId: "isp-gb-2" })).not.toBe(key);
  });

  it("chain deterministically after a spent order", () => {
    const key = purchaseKey(identity);
    const next = nextPurchaseKey(key, "ord_1");
    expect(next).toBe(nextPurchaseKey(key, "ord_1"));
    expect(next).not.toBe(key);
    expect(nextPurchaseKey(key, "ord_2")).not.toBe(next);
  });
});
