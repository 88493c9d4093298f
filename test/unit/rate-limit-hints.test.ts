import { describe, expect, it } from "vitest";
import { apiTime, HINT_FORMS, parseRetryAfter, rateLimitHeaders, readRateLimitHints, unreadHints } from "../../contract/rate-limit";

const NOW = Date.parse("2026-11-27T10:00:00Z");
const UNIX = NOW / 1000;

describe("rate-limit hints, read in every form the contract names", () => {
  it("reads the contract's form, with a delta-seconds reset (and a Unix time when the value can only be one)", () => {
    const hints = readRateLimitHints({ "ratelimit-limit": "20", "ratelimit-remaining": "3", "ratelimit-reset": "2" }, NOW);
    expect(hints).toEqual({ quota: { limit: 20, remaining: 3, resetMs: 2000, resetIsMoment: false }, forms: ["contract"], retryAfterMs: undefined });
    // An early draft's policy after the number.
    expect(readRateLimitHints({ "ratelimit-limit": "20, 20;w=1", "ratelimit-remaining": "3", "ratelimit-reset": "1" }, NOW).quota).toEqual({
      limit: 20,
      remaining: 3,
      resetMs: 1000,
      resetIsMoment: false,
    });
    expect(readRateLimitHints({ "ratelimit-limit": "20", "ratelimit-remaining": "0", "ratelimit-reset": String(UNIX + 3) }, NOW).quota).toMatchObject({
      resetMs: 3000,
      resetIsMoment: true,
    });
  });

  it("reads the current IETF draft's structured fields, matching RateLimit to RateLimit-Policy by name", () => {
    const hints = readRateLimitHints({ "ratelimit-policy": '"default";q=100;w=60', ratelimit: '"default";r=42;t=17' }, NOW);
    expect(hints.quota).toEqual({ limit: 100, remaining: 42, resetMs: 17_000, resetIsMoment: false });
    expect(hints.forms).toEqual(["ietf-draft"]);
    // A token instead of a string, parameters it does not know, and a RateLimit item without `t` (the policy's window).
    expect(readRateLimitHints({ "ratelimit-policy": "burst;q=10;w=1;pk=:abc:", ratelimit: "burst;r=4" }, NOW).quota).toEqual({
      limit: 10,
      remaining: 4,
      resetMs: 1000,
      resetIsMoment: false,
    });
    // Without a policy the quota's size is unknown: what is left stands for it.
    expect(readRateLimitHints({ ratelimit: '"default";r=5;t=2' }, NOW).quota).toEqual({ limit: 5, remaining: 5, resetMs: 2000, resetIsMoment: false });
  });

  it("takes the tightest of several policies: the least left for each second until its reset", () => {
    const headers = {
      "ratelimit-policy": '"burst";q=100;w=1, "daily";q=1000;w=86400',
      ratelimit: '"burst";r=90;t=1, "daily";r=900;t=3600',
    };
    // 90 in a second against 900 in an hour: the daily policy holds requests back first.
    expect(readRateLimitHints(headers, NOW).quota).toEqual({ limit: 1000, remaining: 900, resetMs: 3_600_000, resetIsMoment: false });
    const spentBurst = { ...headers, ratelimit: '"burst";r=0;t=1, "daily";r=900;t=3600' };
    expect(readRateLimitHints(spentBurst, NOW).quota).toEqual({ limit: 100, remaining: 0, resetMs: 1000, resetIsMoment: false });
  });

  it("reads GitHub's X-RateLimit-* and Okta's X-Rate-Limit-*, their resets Unix times or deltas by size", () => {
    const github = { "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "4990", "x-ratelimit-reset": String(UNIX + 60), "x-ratelimit-used": "10" };
    expect(readRateLimitHints(github, NOW)).toMatchObject({ quota: { limit: 5000, remaining: 4990, resetMs: 60_000 }, forms: ["x-ratelimit"] });
    const okta = { "x-rate-limit-limit": "600", "x-rate-limit-remaining": "599", "x-rate-limit-reset": String(UNIX + 30) };
    expect(readRateLimitHints(okta, NOW)).toMatchObject({ quota: { limit: 600, remaining: 599, resetMs: 30_000 }, forms: ["x-rate-limit"] });
    // Some servers send these names with a delta; a number too small to be a Unix time is one. Unix milliseconds too.
    expect(readRateLimitHints({ ...okta, "x-rate-limit-reset": "30" }, NOW).quota?.resetMs).toBe(30_000);
    expect(readRateLimitHints({ ...github, "x-ratelimit-reset": String(NOW + 1500) }, NOW).quota?.resetMs).toBe(1500);
  });

  it("ignores malformed and partial values, never throwing", () => {
    const bad: Record<string, string>[] = [
      { "ratelimit-limit": "20", "ratelimit-remaining": "3" },
      { "ratelimit-limit": "x", "ratelimit-remaining": "3", "ratelimit-reset": "1" },
      { "ratelimit-limit": "0", "ratelimit-remaining": "0", "ratelimit-reset": "1" },
      { "ratelimit-limit": "-5", "ratelimit-remaining": "3", "ratelimit-reset": "1" },
      { "ratelimit-limit": "20", "ratelimit-remaining": "3", "ratelimit-reset": "soon" },
      { "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "", "x-ratelimit-reset": String(UNIX) },
      { ratelimit: '"default";q=3', "ratelimit-policy": '"default";q=100;w=60' },
      { ratelimit: '"unterminated;r=1;t=1' },
      { ratelimit: "r=1, t=1", "ratelimit-policy": ";;;" },
      { ratelimit: '"default";r=1e9;t=1' },
    ];
    for (const headers of bad) {
      const hints = readRateLimitHints(headers, NOW);
      expect(hints, JSON.stringify(headers)).toMatchObject({ quota: undefined, forms: [], retryAfterMs: undefined });
      // Each header is named as one the reader could not read.
      expect(unreadHints(headers, hints.forms).map((u) => u.name).sort(), JSON.stringify(headers)).toEqual(Object.keys(headers).sort());
    }
    // More left than the limit is read as the limit.
    expect(readRateLimitHints({ "ratelimit-limit": "10", "ratelimit-remaining": "50", "ratelimit-reset": "1" }, NOW).quota?.remaining).toBe(10);
  });

  it("reads what express-rate-limit sends in each of its four header modes (8.7.5, a window of 3 per second)", () => {
    const modes: [string, Record<string, string>, string][] = [
      ["legacyHeaders", { "x-ratelimit-limit": "3", "x-ratelimit-remaining": "2", "x-ratelimit-reset": String(UNIX + 1) }, "x-ratelimit"],
      ["draft-6", { "ratelimit-limit": "3", "ratelimit-policy": "3;w=1", "ratelimit-remaining": "2", "ratelimit-reset": "1" }, "contract"],
      ["draft-7", { ratelimit: "limit=3, remaining=2, reset=1", "ratelimit-policy": "3;w=1" }, "ietf-draft-7"],
      ["draft-8", { ratelimit: '"3-in-1sec"; r=2; t=1', "ratelimit-policy": '"3-in-1sec"; q=3; w=1; pk=:Y2M5YjE1NTBkNGNi:' }, "ietf-draft"],
    ];
    for (const [mode, headers, form] of modes) {
      const hints = readRateLimitHints(headers, NOW);
      // The legacy headers' reset is a Unix time, the drafts' seconds from now.
      const quota = { limit: 3, remaining: 2, resetMs: 1000, resetIsMoment: mode === "legacyHeaders" };
      expect(hints, mode).toEqual({ quota, forms: [form], retryAfterMs: undefined });
      expect(unreadHints(headers, hints.forms), mode).toEqual([]);
    }
  });

  it("names the rate-limit headers of a family it read nothing from, value cut short, and no others", () => {
    const headers = { "ratelimit-limit": "10", "ratelimit-remaining": "3", "ratelimit-reset": "1", "x-rate-limit-budget": "a".repeat(300), "x-request-id": "r" };
    const hints = readRateLimitHints(headers, NOW);
    expect(hints.forms).toEqual(["contract"]);
    expect(unreadHints(headers, hints.forms)).toEqual([{ name: "x-rate-limit-budget", value: "a".repeat(120) }]);
  });

  it("reads an answer that mixes forms into the tightest quota, naming each form it read", () => {
    const hints = readRateLimitHints(
      {
        "ratelimit-limit": "100",
        "ratelimit-remaining": "80",
        "ratelimit-reset": "10",
        "x-ratelimit-limit": "100",
        "x-ratelimit-remaining": "5",
        "x-ratelimit-reset": String(UNIX + 10),
        "x-rate-limit-limit": "oops",
      },
      NOW,
    );
    expect(hints.forms).toEqual(["contract", "x-ratelimit"]);
    expect(hints.quota).toEqual({ limit: 100, remaining: 5, resetMs: 10_000, resetIsMoment: true });
  });

  it("reads Retry-After as delta seconds (whole, or in fractions as rate-limiter-flexible's middleware sends them) or an HTTP date, and nothing else", () => {
    expect(readRateLimitHints({ "retry-after": "7" }, NOW).retryAfterMs).toBe(7000);
    expect(parseRetryAfter("120", NOW)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter("2.5", NOW)).toBe(2500);
    expect(parseRetryAfter("0.5321", NOW)).toBe(533);
    expect(parseRetryAfter(new Date(NOW + 5000).toUTCString(), NOW)).toBe(5000);
    expect(parseRetryAfter(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
    for (const value of ["", ".5", "2.", "-1", "soon-ish", undefined, null]) expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });

  it("reads the times the API states absolutely against its own clock, its Date header, where the two clocks differ", () => {
    const stated = (apiNow: number) => ({
      date: new Date(apiNow).toUTCString(),
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(Math.floor(apiNow / 1000) + 30),
      "retry-after": new Date(apiNow + 20_000).toUTCString(),
    });
    // The API's clock a minute behind: read against this machine's, the reset and the Retry-After had passed; a minute
    // ahead, both were a minute further off than the API meant (beyond the longest Retry-After the client waits for).
    for (const apiNow of [NOW - 60_000, NOW + 60_000]) {
      const hints = readRateLimitHints(stated(apiNow), NOW);
      expect(hints.quota?.resetMs, String(apiNow - NOW)).toBe(30_000);
      expect(hints.retryAfterMs, String(apiNow - NOW)).toBe(20_000);
    }
    // Clocks that agree to within the Date's whole second and a second more: this machine's time, which is finer.
    const agreeing = { ...stated(NOW - 400), "x-ratelimit-reset": String(UNIX + 30) };
    expect(readRateLimitHints(agreeing, NOW).quota?.resetMs).toBe(30_000);
    expect(readRateLimitHints({ ...agreeing, date: new Date(NOW - 1500).toUTCString() }, NOW).quota?.resetMs).toBe(30_000);
    // A Date that is no date is not read.
    expect(readRateLimitHints({ ...agreeing, date: "12" }, NOW).quota?.resetMs).toBe(30_000);
    expect(apiTime(undefined, NOW)).toBe(NOW);
    expect(apiTime("yesterday", NOW)).toBe(NOW);
  });

  it("reads an X-RateLimit-Reset written as a date, as rate-limiter-flexible's documented middleware writes it", () => {
    // Its README sets `"X-RateLimit-Reset": new Date(Date.now() + msBeforeNext)`, which Express writes with String().
    const at = new Date(NOW + 30_000);
    for (const written of [String(at), at.toISOString(), at.toUTCString()]) {
      const hints = readRateLimitHints({ "x-ratelimit-limit": "10", "x-ratelimit-remaining": "4", "x-ratelimit-reset": written, "retry-after": "29.5" }, NOW);
      expect(hints.forms, written).toEqual(["x-ratelimit"]);
      expect(hints.quota, written).toEqual({ limit: 10, remaining: 4, resetMs: 30_000, resetIsMoment: true });
      expect(hints.retryAfterMs).toBe(29_500);
    }
    expect(readRateLimitHints({ "x-ratelimit-limit": "10", "x-ratelimit-remaining": "4", "x-ratelimit-reset": "soon" }, NOW).quota).toBeUndefined();
  });

  it("writes each form so that it reads back as the quota stated", () => {
    for (const form of HINT_FORMS) {
      const headers = rateLimitHeaders(form, { limit: 10, remaining: 4, resetAt: NOW + 1500, windowSeconds: 1 }, NOW);
      const hints = readRateLimitHints(headers, NOW);
      expect(hints.forms, form).toEqual([form]);
      // Delta seconds and Unix times are whole seconds, rounded up.
      expect(hints.quota, form).toMatchObject({ limit: 10, remaining: 4, resetMs: 2000 });
      expect(hints.quota?.resetIsMoment, form).toBe(form === "x-ratelimit" || form === "x-rate-limit");
    }
  });
});
