import { describe, expect, it } from "vitest";
import { QuotaReset } from "../../client/quota-reset";

/** Hints as a fixed window of `limit` requests a second reports them at `now`, with `used` counted in it. */
function windowHints(now: number, used: number, limit = 10) {
  return { limit, remaining: limit - used, resetMs: Math.ceil((Math.floor(now / 1000) * 1000 + 1000 - now) / 1000) * 1000 };
}

describe("quota reset", () => {
  it("narrows a fixed window's reset to within the gaps between its answers, once a refill showed it is one", () => {
    const reset = new QuotaReset();
    // The first window: each answer alone says "within a second", so the end of the last answer's second is kept.
    let at = 0;
    for (let i = 0; i < 9; i++) at = reset.observe(100 + i * 100, windowHints(100 + i * 100, i + 1), 0);
    expect(at).toBe(1900);
    // The quota back whole at once: a fixed window, not a bucket. From the next window on, the earliest answer's
    // second bounds the reset (1050 + 1 s), however late the later answers come.
    for (let i = 0; i < 9; i++) at = reset.observe(1050 + i * 100, windowHints(1050 + i * 100, i + 1), 0);
    expect(at).toBe(2050);
  });

  it("keeps answers out of order within one window, and takes a quota grown by more than they explain as the next", () => {
    const reset = new QuotaReset();
    reset.observe(900, windowHints(900, 9), 0);
    reset.observe(1050, windowHints(1050, 1), 3);
    // Answered after the 1050 one, counted before it: the quota looks one larger, not a new window.
    expect(reset.observe(1100, { limit: 10, remaining: 9, resetMs: 1000 }, 2)).toBe(2050);
    expect(reset.observe(1300, windowHints(1300, 4), 0)).toBe(2050);
    // The next window's first answer: its own second, then narrowed as before.
    expect(reset.observe(2020, windowHints(2020, 1), 0)).toBe(3020);
    expect(reset.observe(2600, windowHints(2600, 5), 0)).toBe(3020);
  });

  it("leaves a token bucket's reset as each answer says, since its quota comes back a little at a time", () => {
    const reset = new QuotaReset();
    // A bucket of 10 refilled at 10 a second, nearly drained, then one token back.
    expect(reset.observe(0, { limit: 10, remaining: 1, resetMs: 1000 }, 0)).toBe(1000);
    expect(reset.observe(100, { limit: 10, remaining: 2, resetMs: 1000 }, 0)).toBe(1100);
    // A bucket once, a bucket after: a full quota after a pause looks like a window's, and is still not narrowed.
    expect(reset.observe(1200, { limit: 10, remaining: 10, resetMs: 0 }, 0)).toBe(1200);
    expect(reset.observe(1300, { limit: 10, remaining: 9, resetMs: 1000 }, 0)).toBe(2300);
    expect(reset.observe(1400, { limit: 10, remaining: 8, resetMs: 1000 }, 0)).toBe(2400);
  });

  it("takes a bucket's seconds that stop meeting while its quota stays nearly spent for a bucket", () => {
    const reset = new QuotaReset();
    reset.observe(0, { limit: 10, remaining: 0, resetMs: 1000 }, 0);
    // Back whole at once, as a window's would be...
    expect(reset.observe(1100, { limit: 10, remaining: 10, resetMs: 0 }, 0)).toBe(1100);
    expect(reset.observe(1150, { limit: 10, remaining: 2, resetMs: 1000 }, 0)).toBe(2150);
    // ...but past the reset it bounded, the quota is still nearly spent: no window began, a bucket's full time moved on.
    expect(reset.observe(2200, { limit: 10, remaining: 1, resetMs: 1000 }, 0)).toBe(3200);
    expect(reset.observe(2300, { limit: 10, remaining: 0, resetMs: 1000 }, 0)).toBe(3300);
  });

  it("keeps a window for a window when a quota mostly left looks the same in the next one", () => {
    const reset = new QuotaReset();
    for (let i = 0; i < 9; i++) reset.observe(100 + i * 100, windowHints(100 + i * 100, i + 1), 0);
    reset.observe(1050, windowHints(1050, 1), 0);
    // One request a window, as a stack polling its orders sends: the quota left alike in each. Read as a bucket, each
    // reset would be the end of the answer's own second, and the next busy window half lost.
    for (const at of [2300, 3700, 4400]) reset.observe(at, windowHints(at, 1), 0);
    for (let i = 0; i < 5; i++) reset.observe(5020 + i * 100, windowHints(5020 + i * 100, i + 1), 0);
    expect(reset.observe(5600, windowHints(5600, 6), 0)).toBe(6020);
  });
});
