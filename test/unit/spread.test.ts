import { describe, expect, it } from "vitest";
import { QuotaSpread } from "../../client/spread";

const spent = { remaining: 0 };

/** A spread that has seen an answer find the quota spent, so its hints are known to follow what is sent. */
function trustedSpread() {
  const spread = new QuotaSpread();
  spread.answered(200, spent, 0);
  return spread;
}

describe("quota spread", () => {
  it("does not pace until an answer other than a 429 has found the quota spent, nor after a 429 until one has again", () => {
    const spread = new QuotaSpread();
    const quota = { remaining: 8, resetAt: 1000 };
    spread.answered(200, { remaining: 8 }, 0);
    expect(spread.paces(quota, true)).toBe(false);
    spread.answered(200, spent, 0);
    expect(spread.paces(quota, true)).toBe(true);
    spread.answered(429, spent, 0);
    expect(spread.paces(quota, true)).toBe(false);
    spread.answered(200, { remaining: 5 }, 0);
    expect(spread.paces(quota, true)).toBe(false);
    spread.answered(200, spent, 0);
    expect(spread.paces(quota, true)).toBe(true);
    // Nor without fresh hints, nor without a quota.
    expect(spread.paces(quota, false)).toBe(false);
    expect(spread.paces(undefined, true)).toBe(false);
  });

  it("spends what is left evenly until the reset", () => {
    const spread = trustedSpread();
    spread.sent(0);
    // Nine left after the one sent at 0, over the second to the reset: one every 100 ms.
    expect(spread.nextAt(0, { remaining: 9, resetAt: 1000 }, 1, 50)).toBe(100);
    spread.sent(100);
    expect(spread.nextAt(100, { remaining: 8, resetAt: 1000 }, 1, 50)).toBe(200);
    // A neighbour spent four more meanwhile: what is left is spread the thinner.
    spread.sent(200);
    expect(spread.nextAt(200, { remaining: 3, resetAt: 1000 }, 1, 50)).toBe(400);
  });

  it("waits for the reset once the rest is spent", () => {
    const spread = trustedSpread();
    spread.sent(900);
    expect(spread.nextAt(900, { remaining: 0, resetAt: 1000 }, 1, 50)).toBe(1000);
  });

  it("leaves the last request of a window others spend too to them", () => {
    const spread = trustedSpread();
    spread.answered(200, { remaining: 1 }, 3);
    spread.sent(500);
    expect(spread.nextAt(500, { remaining: 1, resetAt: 1000 }, 0, 50)).toBe(1000);
    spread.answered(200, { remaining: 1 }, 0);
    expect(spread.nextAt(500, { remaining: 1, resetAt: 1000 }, 0, 50)).toBe(750);
  });

  it("past the reset, sends one request and waits for what its answer finds before the rest, but not long", () => {
    const spread = trustedSpread();
    spread.sent(900);
    // The reset at 1000 passed: the quota was whole then, but others may have spent it since.
    expect(spread.nextAt(1000, { remaining: 0, resetAt: 1000 }, 0, 50)).toBe(1000);
    spread.sent(1000);
    expect(spread.nextAt(1000, { remaining: 9, resetAt: 1000 }, 1, 50)).toBe(1250);
    // Its answer found a neighbour had spent one: eight left over the second to the next reset.
    expect(spread.nextAt(1010, { remaining: 8, resetAt: 2000 }, 0, 50)).toBeCloseTo(1000 + 1000 / 9);
    // With requests sent before the reset still in flight, the first of their answers says; one slow to come holds the
    // next back 250 ms at most, and each one after it 250 ms after the last.
    spread.sent(1500);
    expect(spread.nextAt(2100, { remaining: 3, resetAt: 2000 }, 2, 50)).toBe(2250);
    expect(spread.nextAt(2250, { remaining: 3, resetAt: 2000 }, 2, 50)).toBe(2250);
    spread.sent(2250);
    expect(spread.nextAt(2250, { remaining: 3, resetAt: 2000 }, 3, 50)).toBe(2500);
    // Long after it, one goes at once.
    expect(spread.nextAt(4500, { remaining: 0, resetAt: 2000 }, 0, 50)).toBe(4500);
  });

  it("does not pace what a quarter of the quota left holds: no limit is near", () => {
    const spread = trustedSpread();
    spread.sent(0);
    expect(spread.nextAt(0, { remaining: 16, resetAt: 1000 }, 1, 4)).toBe(0);
    expect(spread.nextAt(0, { remaining: 16, resetAt: 1000 }, 1, 5)).toBeGreaterThan(0);
  });
});
