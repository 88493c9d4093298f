import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Clock } from "../../client/clock";
import { BudgetDeadlineError, RequestBudget, type Permit, type RequestPriority } from "../../client/budget";
import { HINT_FORMS, rateLimitHeaders, readRateLimitHints, type HintForm } from "../../contract/rate-limit";

/**
 * A clock that moves only when the test advances it; sleepers wake in time order, aborted ones at once. `moved` hears
 * each new time (to move the real clock with it).
 */
function manualClock(moved: (now: number) => void = () => undefined) {
  let now = 0;
  const sleepers: { at: number; wake: () => void }[] = [];
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const clock: Clock & { advance(ms: number): Promise<void> } = {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        const sleeper = { at: now + ms, wake: resolve };
        sleepers.push(sleeper);
        signal?.addEventListener("abort", () => {
          sleepers.splice(sleepers.indexOf(sleeper), 1);
          resolve();
        }, { once: true });
      }),
    async advance(ms) {
      const end = now + ms;
      await settle();
      for (;;) {
        sleepers.sort((a, b) => a.at - b.at);
        const next = sleepers[0];
        if (!next || next.at > end) break;
        sleepers.shift();
        now = next.at;
        moved(now);
        next.wake();
        await settle();
      }
      now = end;
      moved(now);
      await settle();
    },
  };
  return clock;
}

/** A budget on a manual clock, and a record of when each named request was let go. */
function harness(options: ConstructorParameters<typeof RequestBudget>[0] = {}) {
  const clock = manualClock();
  const budget = new RequestBudget({ ...options, clock });
  const granted: { name: string; at: number; permit: Permit }[] = [];
  const ask = (name: string, priority: RequestPriority = "urgent", extra: { deadline?: number; signal?: AbortSignal } = {}) =>
    budget.acquire({ priority, ...extra }).then((permit) => {
      granted.push({ name, at: clock.now(), permit });
      return permit;
    });
  const answer = (permit: Permit, status = 200, headers: Record<string, string> = {}, retryAfterMs?: number) =>
    permit.settle({ status, hints: { ...readRateLimitHints(headers, Date.now()), retryAfterMs } });
  return { clock, budget, granted, ask, answer, names: () => granted.map((g) => g.name) };
}

/** Answers the first request so the budget has heard from the key (before that, one request goes alone). */
async function warmUp(h: ReturnType<typeof harness>, headers: Record<string, string> = {}) {
  h.answer(await h.ask("first"), 200, headers);
  h.granted.length = 0;
}

/** What an API decided for a request arriving at `at` on the test's clock. */
type Decision = { allowed: boolean; headers: Record<string, string>; retryAfterMs?: number };
type Api = (at: number) => Decision;

/**
 * The hints of a quota stated in `form` (or none), with times on the manual clock moved onto the real one: the forms
 * with a Unix-time reset are read against the real time, as the API's.
 */
function stated(form: HintForm | "none", quota: { limit: number; remaining: number; resetAt: number; windowSeconds: number }, at: number) {
  if (form === "none") return {};
  const real = Date.now();
  return rateLimitHeaders(form, { ...quota, resetAt: quota.resetAt - at + real }, real);
}

/** An API that counts requests in fixed windows of `windowMs`, `limit` each, hinting in `form` on every answer. */
function fixedWindows(limit: number, form: HintForm | "none" = "contract", windowMs = 1000): Api & { counted: Map<number, number> } {
  const counted = new Map<number, number>();
  const take = (at: number) => {
    const window = Math.floor(at / windowMs);
    const used = counted.get(window) ?? 0;
    counted.set(window, used + 1);
    const resetAt = (window + 1) * windowMs;
    const headers = stated(form, { limit, remaining: Math.max(0, limit - used - 1), resetAt, windowSeconds: windowMs / 1000 }, at);
    return { allowed: used < limit, headers, retryAfterMs: Math.max(1000, Math.ceil((resetAt - at) / 1000) * 1000) };
  };
  return Object.assign(take, { counted });
}

/**
 * A sliding log (the `limits` library's moving window, behind Flask-Limiter and slowapi): at most `limit` accepted in
 * any `windowMs`; its reset, stated in `form`, is when the oldest of them leaves the log, which frees one request.
 */
function slidingLog(limit: number, form: HintForm = "contract", windowMs = 1000): Api {
  const taken: number[] = [];
  return (at) => {
    while (taken.length > 0 && taken[0]! <= at - windowMs) taken.shift();
    const allowed = taken.length < limit;
    if (allowed) taken.push(at);
    const resetAt = taken.length > 0 ? taken[0]! + windowMs : at;
    const headers = stated(form, { limit, remaining: limit - taken.length, resetAt, windowSeconds: windowMs / 1000 }, at);
    return { allowed, headers, retryAfterMs: Math.max(1000, Math.ceil((resetAt - at) / 1000) * 1000) };
  };
}

/**
 * express-rate-limit's count: a window of `windowMs` begins with the first request after the last one ended, `limit`
 * each, every request counted, and its reset is stated as a Unix time in whole seconds (`X-RateLimit-Reset`, its legacy
 * headers). With `cutDown`, as ulule/limiter's memory store behind its net/http middleware (v3.11.2) answers: the reset
 * cut down to the second, and no `Retry-After`. The real clock is `epochMs` plus the test's: run it with
 * `stacksOnOneKey`'s `realTimeFrom`.
 */
function expressWindows(limit: number, epochMs: number, windowMs = 1000, { cutDown = false } = {}): Api {
  let resetAt = Number.NEGATIVE_INFINITY;
  let hits = 0;
  return (at) => {
    if (resetAt <= at) {
      resetAt = at + windowMs;
      hits = 0;
    }
    hits += 1;
    const quota = { limit, remaining: Math.max(0, limit - hits), resetAt: epochMs + resetAt, windowSeconds: windowMs / 1000 };
    const headers = rateLimitHeaders("x-ratelimit", quota, epochMs + at);
    if (cutDown) return { allowed: hits <= limit, headers: { ...headers, "x-ratelimit-reset": String(Math.floor(quota.resetAt / 1000)) } };
    return { allowed: hits <= limit, headers, retryAfterMs: Math.ceil((resetAt - at) / 1000) * 1000 };
  };
}

/**
 * go-chi/httprate's sliding window counter (v0.16.1): windows of a second from the limiter's start (the test's 0), a
 * request taken while the last window's count, weighted by what is left of this one, plus this one's, rounded, is below
 * `limit`; the refused are not counted. Its reset is this window's end as a Unix time in whole seconds, cut down, so an
 * answer may name a second already passed; a refusal's `Retry-After` is the window's length. Run it with
 * `stacksOnOneKey`'s `realTimeFrom` at `epochMs`.
 */
function httprateCounter(limit: number, epochMs: number): Api {
  const counts = new Map<number, number>();
  return (at) => {
    const start = Math.floor(at / 1000) * 1000;
    const rate = Math.round((counts.get(start - 1000) ?? 0) * (1 - (at - start) / 1000) + (counts.get(start) ?? 0));
    const allowed = rate + 1 <= limit;
    if (allowed) counts.set(start, (counts.get(start) ?? 0) + 1);
    const remaining = String(Math.max(0, limit - rate - (allowed ? 1 : 0)));
    const headers = { "x-ratelimit-limit": String(limit), "x-ratelimit-remaining": remaining, "x-ratelimit-reset": String(Math.floor((epochMs + start + 1000) / 1000)) };
    return { allowed, headers, retryAfterMs: 1000 };
  };
}

/**
 * An API with a token bucket of `limit` refilled at `perSecond` (by default `limit`), hinting in `form` on every answer
 * (or only on refusals, or never: `"none"`). Its reset is when the bucket is full again, as the sandbox's.
 */
function tokenBucket(limit: number, form: HintForm | "none" = "contract", options: { perSecond?: number; hintOnlyOn429?: boolean } = {}): Api {
  const rate = options.perSecond ?? limit;
  let tokens = limit;
  let last = 0;
  return (at) => {
    tokens = Math.min(limit, tokens + ((at - last) / 1000) * rate);
    last = at;
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    const quota = { limit, remaining: Math.floor(tokens), resetAt: at + ((limit - tokens) / rate) * 1000, windowSeconds: limit / rate };
    const headers = options.hintOnlyOn429 && allowed ? {} : stated(form, quota, at);
    return { allowed, headers, retryAfterMs: Math.max(1, Math.ceil((1 - tokens) / rate)) * 1000 };
  };
}

/**
 * HAProxy's stick table (`http_req_rate(1s)`, scripts/lib/haproxy-front.mjs): a request is refused when more than
 * `limit` came in the last second, counted as this second's plus the last one's weighted by what is left of this one,
 * the refused requests included. No hints, no `Retry-After`.
 */
function slidingSecond(limit: number): Api {
  let start = 0;
  let current = 0;
  let previous = 0;
  return (at) => {
    if (at - start >= 1000) {
      previous = at - start >= 2000 ? 0 : current;
      current = 0;
      start = at - ((at - start) % 1000);
    }
    current += 1;
    return { allowed: current + previous * (1 - (at - start) / 1000) <= limit, headers: {} };
  };
}

interface Stack {
  budget: RequestBudget;
  /** Requests still wanted. */
  wanted: number;
  /** When each request arrived at the API, and whether it was refused. */
  arrivals: { at: number; refused: boolean }[];
  inFlight: { at: number; permit: Permit }[];
  answered: number;
}

/**
 * Stacks on one key, each a budget of its own wanting `counts[i]` requests from `starts[i]` ms: each request arrives
 * at the API 20 ms after it went and is answered 20 ms later, as `api` decided; a refused one is asked for again, as
 * the client does. Runs until every request was accepted (or `limitMs` passes).
 */
async function stacksOnOneKey(api: Api, counts: number[], options: { starts?: number[]; share?: number; limitMs?: number; realTimeFrom?: number } = {}) {
  const { realTimeFrom } = options;
  const clock = manualClock((now) => realTimeFrom !== undefined && vi.setSystemTime(realTimeFrom + now));
  const stacks: Stack[] = counts.map((wanted) => ({ budget: new RequestBudget({ clock }), wanted, arrivals: [], inFlight: [], answered: 0 }));
  if (options.share !== undefined) for (const stack of stacks) stack.budget.limitShare(options.share);
  const ask = (stack: Stack) => void stack.budget.acquire({ priority: "urgent" }).then((permit) => stack.inFlight.push({ at: clock.now(), permit }));
  const started = new Set<Stack>();
  const limitMs = options.limitMs ?? 120_000;
  while (stacks.some((stack) => stack.answered < stack.wanted) && clock.now() < limitMs) {
    stacks.forEach((stack, i) => {
      if (started.has(stack) || clock.now() < (options.starts?.[i] ?? 0)) return;
      started.add(stack);
      for (let n = 0; n < stack.wanted; n++) ask(stack);
    });
    await clock.advance(10);
    for (const stack of stacks) {
      const due = stack.inFlight.filter((g) => clock.now() - g.at >= 40);
      stack.inFlight = stack.inFlight.filter((g) => !due.includes(g));
      for (const g of due) {
        const { allowed, headers, retryAfterMs } = api(g.at + 20);
        stack.arrivals.push({ at: g.at + 20, refused: !allowed });
        if (allowed) stack.answered += 1;
        g.permit.settle({ status: allowed ? 200 : 429, hints: { ...readRateLimitHints(headers, Date.now()), retryAfterMs: allowed ? undefined : retryAfterMs } });
        if (!allowed) ask(stack);
      }
    }
  }
  const refused = stacks.reduce((sum, stack) => sum + stack.arrivals.filter((a) => a.refused).length, 0);
  const sent = stacks.reduce((sum, stack) => sum + stack.arrivals.length, 0);
  const ends = stacks.map((stack) => Math.max(...stack.arrivals.filter((a) => !a.refused).map((a) => a.at)));
  return { stacks, refused, sent, ends, done: stacks.every((stack) => stack.answered >= stack.wanted) };
}

/** The most requests among `times` within any stretch of `spanMs`. */
function mostWithin(times: number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= spanMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe("request budget: the pace with hints", () => {
  it("before the first answer lets one request go alone", async () => {
    const h = harness();
    const first = await h.ask("a");
    expect(first.heldMs).toBe(0);
    const second = h.ask("b");
    await h.clock.advance(1000);
    expect(h.names()).toEqual(["a"]);
    h.answer(first, 200, { "ratelimit-limit": "100", "ratelimit-remaining": "99", "ratelimit-reset": "60" });
    await second;
  });

  it("lets no request wait while the hints show room", async () => {
    const h = harness();
    await warmUp(h, { "ratelimit-limit": "100", "ratelimit-remaining": "99", "ratelimit-reset": "60" });
    const permits = await Promise.all(Array.from({ length: 24 }, (_, i) => h.ask(`r${i}`)));
    expect(permits.map((p) => p.heldMs)).toEqual(Array(24).fill(0));
  });

  it("lets a burst of requests that come one at a time take a quarter of what is left, not all of it", async () => {
    const h = harness();
    await warmUp(h, { "ratelimit-limit": "100", "ratelimit-remaining": "96", "ratelimit-reset": "10" });
    // A fleet's purchases: each asked once the one before it went, so none is ever held beside another.
    for (let i = 0; i < 49; i++) {
      void h.ask(`r${i}`);
      await h.clock.advance(0);
    }
    expect(h.granted).toHaveLength(24);
    await answerAll(h);
  });

  describe.each(HINT_FORMS)("in the %s form", (form) => {
    // The forms with a Unix-time reset are read against the real time: it stands still here, on a whole second, so
    // that where in its second the machine's clock is does not decide the run.
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.UTC(2026, 10, 27, 10, 0, 0));
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it("never sends more than the hinted quota in a window", async () => {
      const api = fixedWindows(5, form);
      const run = await stacksOnOneKey(api, [60]);
      expect(run.done).toBe(true);
      expect(run.refused).toBe(0);
      expect(Math.max(...api.counted.values())).toBeLessThanOrEqual(5);
    });

    it("spends a sliding log alone as it counts, where each reset frees one request: not a quota, then a second's wait", async () => {
      const run = await stacksOnOneKey(slidingLog(10, form), [200]);
      expect(run.done).toBe(true);
      expect(run.refused).toBe(0);
      // 200 requests at 10 a second take 20 s; waiting out each stated reset (a second, rounded up) took about 40 s.
      expect(run.ends[0]).toBeLessThanOrEqual(26_000);
    });

    it("spends a token bucket alone at its rate, not what is left of it over its reset rounded up to a second", async () => {
      // 5 a second, 5 at once: 100 requests take 19 s at its rate. Spread evenly over the reset stated, the bucket never
      // fell below 4 and took 4 a second: 25.5 s here.
      const run = await stacksOnOneKey(tokenBucket(5, form), [100]);
      expect(run.done).toBe(true);
      expect(run.refused).toBe(0);
      expect(run.ends[0]).toBeLessThanOrEqual(19_000 * 1.1);
    });

    it("shares a token bucket between stacks that know nothing of each other, each at its part, hardly a 429", async () => {
      const run = await stacksOnOneKey(tokenBucket(10, form), [100, 100, 100, 100], { starts: [0, 0, 0, 2000] });
      expect(run.done).toBe(true);
      expect(run.refused / run.sent).toBeLessThanOrEqual(0.02);
      // 400 requests at 10 a second: 40 s with the key always busy; the late stack ends with the others.
      expect(Math.max(...run.ends)).toBeLessThanOrEqual(40_000 * 1.15);
      // None took the key for itself (alone, a stack's 100 go in about 10 s): each had its part nearly to the end.
      expect(Math.min(...run.ends)).toBeGreaterThanOrEqual(40_000 * 0.6);
    });

    it("shares a token bucket between eight stacks, one of them late, at a small cost in 429s", async () => {
      // Eight race for the last of a count that refills: 5 of 205 are refused here (2.4%). The rule that held it to none
      // (two kept back of a count that refills, one of a fixed window's) is gone with the telling of the two apart
      // (docs/contributing/benchmarks.md, "The pacing as one model").
      const run = await stacksOnOneKey(tokenBucket(10, form), Array(8).fill(25), { starts: [0, 100, 200, 300, 400, 500, 600, 10_000] });
      expect(run.done).toBe(true);
      expect(run.refused / run.sent).toBeLessThanOrEqual(0.03);
      expect(Math.max(...run.ends)).toBeLessThanOrEqual(20_000 * 1.1);
    });
  });

  describe("behind fixed windows (express-rate-limit's count), whose reset is stated in whole seconds", () => {
    it("spends each window to its end alone, instead of a part of it", async () => {
      // 100 requests at 10 a window: 10 windows with each one spent, within issue 73's bound for 1 s windows (1.25x);
      // read a second late at every window, the reset would take 20.
      const api = fixedWindows(10);
      const run = await stacksOnOneKey(api, [100]);
      expect(run.done).toBe(true);
      expect(run.refused).toBe(0);
      expect(run.ends[0]).toBeLessThanOrEqual(10_000 * 1.25);
    });

    it("holds a stack that joins a window the others are spending back for them at most until its reset", async () => {
      // Windows of 100 per 10 s. Three stacks want 58 each: the first window and 74 of the second, which they spend at
      // its start. A fourth wants 100 from just before it and sees their 75 between its first answers: it leaves the
      // rest of that window to them though they stopped (22 go unused), and has the next whole. A rule that sent one
      // request every 2 s while held back, to see the others again, gave it that rest, at 3.6% refused of eight stacks'
      // requests behind 10 s windows in bench/stacks-sim.mjs, 1.3% without it: not worth it.
      const api = fixedWindows(100, "contract", 10_000);
      const run = await stacksOnOneKey(api, [58, 58, 58, 100], { starts: [0, 0, 0, 9_990] });
      expect(run.done).toBe(true);
      expect(run.refused / run.sent).toBeLessThanOrEqual(0.02);
      expect(api.counted.get(1)).toBeGreaterThanOrEqual(75);
      // The key's 274 requests in three windows at most.
      expect(Math.max(...run.ends)).toBeLessThan(30_000);
    });

    it("shares them between stacks, one of them late, each getting its part within a few windows, hardly a 429", async () => {
      const run = await stacksOnOneKey(fixedWindows(10), [100, 100, 100, 100], { starts: [0, 0, 0, 5000] });
      expect(run.done).toBe(true);
      expect(run.refused / run.sent).toBeLessThanOrEqual(0.02);
      // 400 requests at 10 a window: 40 windows with the key always busy.
      expect(Math.max(...run.ends)).toBeLessThanOrEqual(40_000 * 1.15);
      // The late stack was served from its first windows on, not after the others ended.
      const late = run.stacks[3]!.arrivals.filter((a) => !a.refused && a.at < 15_000).length;
      expect(late).toBeGreaterThanOrEqual(15);
    });
  });

  describe("where the reset names only a Unix second (express-rate-limit's legacy X-RateLimit-Reset)", () => {
    // The real clock moves with the test's, from a moment a third of the way into a second: every answer of a 1 s
    // window names the same second, up to a second after the window ends.
    const epochMs = Date.UTC(2026, 10, 27, 10, 0, 0) + 337;
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ["Date"] });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it("reads the window's end from the longest reset stated, not from the second each answer names", async () => {
      // 100 requests at 10 a window: 10 windows, within issue 73's bound for 1 s windows (1.25x). Waiting for the
      // second each answer names would take about 15.
      const run = await stacksOnOneKey(expressWindows(10, epochMs), [100], { realTimeFrom: epochMs });
      expect(run.done).toBe(true);
      expect(run.refused).toBe(0);
      expect(run.ends[0]).toBeLessThanOrEqual(10_000 * 1.25);
    });

    it("shares the windows between stacks, one of them late, hardly a 429", async () => {
      const run = await stacksOnOneKey(expressWindows(10, epochMs), [100, 100, 100, 100], { starts: [0, 0, 0, 5000], realTimeFrom: epochMs });
      expect(run.done).toBe(true);
      expect(run.refused / run.sent).toBeLessThanOrEqual(0.02);
      expect(Math.max(...run.ends)).toBeLessThanOrEqual(40_000 * 1.2);
    });

    it("takes a reset named as passed (httprate cuts its window's end down to the second) for one a second away", async () => {
      // Read as passed, each answer let the next request go alone at once: one a round trip while the count said none
      // was left, and two stacks had 15% of their requests refused (bench/stacks-sim.mjs, :counter).
      const run = await stacksOnOneKey(httprateCounter(10, epochMs), [100, 100], { realTimeFrom: epochMs });
      expect(run.done).toBe(true);
      expect(run.refused / run.sent).toBeLessThanOrEqual(0.02);
    });

    it("reads the resets of an API that cuts them down to the second (ulule/limiter's windows) as up to a second later", async () => {
      // Read as rounded up, the lone request after a reset went at the second named, before the window ended, and was
      // refused; named as passed, the reset was taken as a second away, where the window ended milliseconds later: two
      // stacks had 8.8% of their requests refused at 2.1x of the floor (bench/stacks-sim.mjs, :ulule).
      const run = await stacksOnOneKey(expressWindows(10, epochMs, 1000, { cutDown: true }), [100, 100], { realTimeFrom: epochMs });
      expect(run.done).toBe(true);
      expect(run.refused / run.sent).toBeLessThanOrEqual(0.02);
      expect(Math.max(...run.ends)).toBeLessThanOrEqual(20_000 * 1.5);
    });

    it("keeps a counter that weighs the last window one short of its quota, after a refusal, alone on the key", async () => {
      // A steady quota a second counts as the quota (the last window's whole, the current's as much as is gone of the
      // last), and the next is refused: rule 9's log, kept at the quota, was refused once a second or two.
      const run = await stacksOnOneKey(httprateCounter(10, epochMs), [200], { realTimeFrom: epochMs });
      expect(run.done).toBe(true);
      expect(run.refused).toBeLessThanOrEqual(2);
      expect(run.ends[0]).toBeLessThanOrEqual(20_000 * 1.25);
    });

    it("learns that windows are not whole seconds long when one outlasts its bound", async () => {
      // Windows of 2.5 s, taken as 2 s at first: 300 requests at 10 a window are 75 s of the key's work. Held to the
      // whole-second bound, each window's end is looked for half a second early and the last stack ends at 109 s.
      const run = await stacksOnOneKey(expressWindows(10, epochMs, 2500), [100, 100, 100], { realTimeFrom: epochMs });
      expect(run.done).toBe(true);
      expect(run.refused / run.sent).toBeLessThanOrEqual(0.02);
      expect(Math.max(...run.ends)).toBeLessThanOrEqual(75_000 * 1.25);
    });

    it("does not read a token bucket stated the same way as windows of a second", async () => {
      // Full again 1 s to 10 s after it was emptied: a bound of a second on its "windows" would spend up to ten times what
      // it holds (without the check of the longest reset seen, 8.7% refused at 1 a second).
      for (const perSecond of [10, 5, 2, 1]) {
        const run = await stacksOnOneKey(tokenBucket(10, "x-ratelimit", { perSecond }), [100, 100, 100, 100], { starts: [0, 0, 0, 2000], realTimeFrom: epochMs, limitMs: (400_000 / perSecond) * 1.5 });
        expect(run.done).toBe(true);
        expect(run.refused / run.sent, `${perSecond} a second`).toBeLessThanOrEqual(0.02);
        expect(Math.max(...run.ends), `${perSecond} a second`).toBeLessThanOrEqual((400_000 / perSecond) * 1.15);
      }
    });
  });

  it("spends a share of the key and no more, alone or beside others", async () => {
    for (const api of [tokenBucket(10), fixedWindows(10)]) {
      const alone = await stacksOnOneKey(api, [60], { share: 0.5 });
      expect(alone.done).toBe(true);
      expect(mostWithin(alone.stacks[0]!.arrivals.map((a) => a.at), 1000)).toBeLessThanOrEqual(6);
    }
    const pair = await stacksOnOneKey(tokenBucket(10), [60, 60], { share: 0.5 });
    expect(pair.done).toBe(true);
    for (const stack of pair.stacks) expect(mostWithin(stack.arrivals.map((a) => a.at), 1000)).toBeLessThanOrEqual(6);
    expect(pair.refused / pair.sent).toBeLessThanOrEqual(0.02);
  });

  it("lets stacks that each take their share spend the whole key between them, not only its top", async () => {
    // Four stacks at 25% each: 200 requests at 10 a second take 20 s with the key always busy. Keeping the others'
    // part of each quota back (the top 7.5 of 10) left each stack what the count showed above it, and the four
    // together took about a quarter of the key: 2.4x of the floor in bench/stacks-sim.mjs.
    for (const api of [tokenBucket(10), fixedWindows(10)]) {
      const run = await stacksOnOneKey(api, [50, 50, 50, 50], { share: 0.25 });
      expect(run.done).toBe(true);
      expect(run.refused / run.sent).toBeLessThanOrEqual(0.02);
      expect(Math.max(...run.ends)).toBeLessThanOrEqual(20_000 * 1.25);
    }
  });

  it("holds stacks that each take their share to the rate a 429's hints state, not to what a stack took at its first refusal", async () => {
    // A stack that started a moment after the other met the key spent: refused at its first request, it had taken one
    // request in that second, and a share of that held it to one a second to the end (5.1x of the floor in
    // bench/stacks-sim.mjs). With hints on 429s the key's rate is known: its share of it is the cap.
    const run = await stacksOnOneKey(tokenBucket(10, "contract", { hintOnlyOn429: true }), [100, 100], { starts: [0, 300], share: 0.5 });
    expect(run.done).toBe(true);
    expect(run.refused / run.sent).toBeLessThanOrEqual(0.05);
    expect(Math.max(...run.ends)).toBeLessThanOrEqual(20_000 * 1.3);
  });

  it("after a hinted quota's reset, trusts one request until its answer tells the truth", async () => {
    const h = harness();
    await warmUp(h, { "ratelimit-limit": "10", "ratelimit-remaining": "9", "ratelimit-reset": "1" });
    await h.clock.advance(1500);
    const asked = Array.from({ length: 5 }, (_, i) => h.ask(`r${i}`));
    await h.clock.advance(100);
    expect(h.names()).toEqual(["r0"]);
    h.answer(h.granted[0]!.permit, 200, { "ratelimit-limit": "10", "ratelimit-remaining": "9", "ratelimit-reset": "1" });
    await answerAll(h);
    await Promise.all(asked);
    expect(h.names()).toEqual(["r0", "r1", "r2", "r3", "r4"]);
    expect(h.granted.slice(1).every((g) => g.at >= 1600)).toBe(true);
  });

  it("after a 429 its hints foresaw (nothing left), waits out its pause and goes on by the hints, with no learned rate", async () => {
    const h = harness();
    const quota = (remaining: number) => ({ "ratelimit-limit": "10", "ratelimit-remaining": String(remaining), "ratelimit-reset": "1" });
    // This process spends the last of a window itself, then is refused at the window's turn: the hints said so.
    await warmUp(h, quota(1));
    void h.ask("last");
    // The last of the window goes within its reset.
    for (let t = 0; t < 11 && h.granted.length === 0; t++) await h.clock.advance(100);
    h.answer(h.granted[0]!.permit, 200, quota(0));
    void h.ask("refused");
    await h.clock.advance(1100);
    expect(h.names()).toEqual(["last", "refused"]);
    h.answer(h.granted[1]!.permit, 429, quota(0), 1000);
    const after = Array.from({ length: 5 }, (_, i) => h.ask(`r${i}`));
    await h.clock.advance(1100);
    expect(h.names()).toEqual(["last", "refused", "r0"]);
    h.answer(h.granted[2]!.permit, 200, quota(9));
    await h.clock.advance(400);
    // A rate learned from the refusal (70% of the two a second the key accepted) would let one go every 0.7 s.
    expect(h.names()).toHaveLength(7);
    await answerAll(h);
    await Promise.all(after);
  });

  it("when its first request meets a quota the others spent, waits out the pause and goes on by the hints, with no learned rate", async () => {
    const h = harness();
    const quota = (remaining: number, reset: number) => ({ "ratelimit-limit": "100", "ratelimit-remaining": String(remaining), "ratelimit-reset": String(reset) });
    // A stack that starts late: the window is spent, and its first answer, a 429, says so.
    h.answer(await h.ask("first"), 429, quota(0, 2), 2000);
    const after = Array.from({ length: 40 }, (_, i) => h.ask(`r${i}`));
    await h.clock.advance(2100);
    expect(h.names()).toEqual(["first", "r0"]);
    h.answer(h.granted[1]!.permit, 200, quota(88, 10));
    await h.clock.advance(2000);
    // The hints leave 88 for 10 s: about nine a second. A rate learned from the refusal, with nothing accepted before
    // it, would start at the least, one a second.
    expect(h.names().length).toBeGreaterThanOrEqual(2 + 15);
    await answerAll(h);
    await Promise.all(after);
  });

  it("paces by the learned rate once a 429 came, where the hints say more than the key takes", async () => {
    // The hints always say 100 of 100 are left, but the key takes 5 a second.
    const api = tokenBucket(5);
    const lying: Api = (at) => ({ ...api(at), headers: { "ratelimit-limit": "100", "ratelimit-remaining": "100", "ratelimit-reset": "1" } });
    const run = await stacksOnOneKey(lying, [100]);
    expect(run.done).toBe(true);
    expect(run.refused / run.sent).toBeLessThanOrEqual(0.15);
    // Every 429 pauses the key for a second: a burst after each would cost far more.
    expect(run.ends[0]).toBeLessThanOrEqual(40_000);
  });
});

describe("request budget: the pace without hints", () => {
  it("opens a window of requests in flight, one more per answer, instead of a burst", async () => {
    const h = harness();
    await warmUp(h);
    const fleet = Array.from({ length: 100 }, (_, i) => h.ask(`f${i}`));
    await h.clock.advance(0);
    expect(h.granted).toHaveLength(2);
    // Each answer opens the window: never more in flight than one more than before.
    let inFlight = 2;
    for (let round = 0; round < 10; round++) {
      const pending = h.granted.splice(0);
      for (const g of pending) h.answer(g.permit);
      await h.clock.advance(10);
      expect(h.granted.length).toBeGreaterThanOrEqual(inFlight);
      expect(h.granted.length).toBeLessThanOrEqual(inFlight + 1);
      inFlight = h.granted.length;
    }
    await answerAll(h);
    await Promise.all(fleet);
  });

  it("after a 429 the rate falls below what the key took, and grows back once answers succeed", async () => {
    // The key takes 10 a second; nothing is hinted.
    const run = await stacksOnOneKey(tokenBucket(10, "none"), [300]);
    expect(run.done).toBe(true);
    const accepted = run.stacks[0]!.arrivals;
    const firstRefusal = accepted.find((a) => a.refused)!.at;
    const inSecond = (from: number) => accepted.filter((a) => a.at >= from && a.at < from + 1000 && !a.refused).length;
    // What the key took before the first 429 (its burst included), per second, against the pace after the pause.
    const took = accepted.filter((a) => a.at < firstRefusal && !a.refused).length / Math.max(1, firstRefusal / 1000);
    const after = accepted.filter((a) => a.at > firstRefusal && !a.refused).slice(0, 6).map((a) => a.at);
    expect(after[0]! - firstRefusal).toBeGreaterThanOrEqual(1000);
    expect((5 / (after[5]! - after[0]!)) * 1000).toBeLessThan(took);
    // Back at the key's rate later on, and never stuck below it: 300 requests in well under 300 / (0.7 × 10) s.
    expect(Math.max(...[5, 6, 7, 8].map((s) => inSecond(firstRefusal + s * 1000)))).toBeGreaterThanOrEqual(9);
    expect(run.ends[0]).toBeLessThanOrEqual(40_000);
    expect(run.refused / run.sent).toBeLessThanOrEqual(0.05);
  });

  it("keeps no debt of refused requests: after ten 429s in a row, a success lets the next go within the quota's reset", async () => {
    const h = harness();
    const quota = (remaining: number) => ({ "ratelimit-limit": "10", "ratelimit-remaining": String(remaining), "ratelimit-reset": "1" });
    /** The permit of a request once the budget lets it go, and how long that took on the manual clock (at most 20 s). */
    const granted = async (name: string) => {
      let permit: Permit | undefined;
      void h.ask(name).then((p) => (permit = p));
      const from = h.clock.now();
      while (!permit && h.clock.now() - from < 20_000) await h.clock.advance(10);
      return { permit: permit as Permit, waited: h.clock.now() - from };
    };
    await warmUp(h, quota(9));
    // Refusals without hints, so that each teaches the learned rate (rule 7).
    for (let i = 0; i < 10; i++) h.answer((await granted(`refused${i}`)).permit, 429, {}, 1000);
    h.answer((await granted("accepted")).permit, 200, quota(9));
    // With a debt of one request per refusal, it waited about ten seconds at the learned rate of one a second. Within
    // the reset of the accepted answer, give or take the 10 ms the helper steps by.
    expect((await granted("next")).waited).toBeLessThanOrEqual(1000 + 10);
  });

  it("pauses every request on the key until a 429's Retry-After", async () => {
    const h = harness();
    await warmUp(h);
    const throttled = await h.ask("throttled");
    const others = ["x"].map((n) => h.ask(n));
    await h.clock.advance(0);
    h.answer(throttled, 429, {}, 2000);
    const late = h.ask("late");
    await h.clock.advance(1999);
    expect(h.names()).toEqual(["throttled", "x"]);
    await Promise.all(others);
    h.granted.length = 0;
    await h.clock.advance(5000);
    await late;
    expect(h.granted[0]!.at).toBeGreaterThanOrEqual(2000);
  });

  it("pauses the key half a second after a refusal without Retry-After (HAProxy's and nginx's carry none)", async () => {
    const h = harness();
    await warmUp(h);
    h.answer(await h.ask("refused"), 429);
    const next = h.ask("next");
    await h.clock.advance(490);
    expect(h.names()).toEqual(["refused"]);
    await h.clock.advance(30);
    expect(h.names()).toEqual(["refused", "next"]);
    expect(h.granted[1]!.at).toBeGreaterThanOrEqual(500);
    await next;
  });

  it("after a 429 with hints, keeps under the rate they imply when the successes carry none", async () => {
    const run = await stacksOnOneKey(tokenBucket(5, "contract", { hintOnlyOn429: true }), [80]);
    expect(run.done).toBe(true);
    const arrivals = run.stacks[0]!.arrivals;
    const firstRefusal = arrivals.find((a) => a.refused)!.at;
    const after = arrivals.filter((a) => a.at > firstRefusal + 1000).map((a) => a.at);
    // At most the hinted 5 a second over the rest, with at most a second's worth at once (the AWS SDKs' bucket).
    expect(after.length - 5).toBeLessThanOrEqual(((Math.max(...after) - Math.min(...after)) / 1000) * 5);
    expect(mostWithin(after, 1000)).toBeLessThanOrEqual(2 * 5);
    expect(arrivals.filter((a) => a.refused && a.at > firstRefusal + 1000)).toEqual([]);
  });

  it("keeps the learned rate to nine tenths of what a 429's hints say the key takes", async () => {
    const run = await stacksOnOneKey(tokenBucket(10, "contract", { hintOnlyOn429: true }), [200]);
    expect(run.done).toBe(true);
    const arrivals = run.stacks[0]!.arrivals;
    // From the third second after the first refusal, when the rate has grown back: 9 a second, and a second's worth at
    // once (the AWS SDKs' bucket).
    const after = arrivals.filter((a) => a.at > arrivals.find((b) => b.refused)!.at + 3000).map((a) => a.at);
    const seconds = (Math.max(...after) - Math.min(...after)) / 1000;
    expect(after.length).toBeGreaterThan(50);
    expect(after.length).toBeLessThanOrEqual(9 * seconds + 9);
  });

  it("without any hints, holds a share to its part of the most the key took from it", async () => {
    const run = await stacksOnOneKey(tokenBucket(10, "none"), [120], { share: 0.5 });
    expect(run.done).toBe(true);
    const arrivals = run.stacks[0]!.arrivals;
    const firstRefusal = arrivals.find((a) => a.refused)!.at;
    const took = arrivals.filter((a) => !a.refused && a.at < firstRefusal).length / Math.max(1, firstRefusal / 1000);
    const later = arrivals.filter((a) => a.at > firstRefusal + 1000).map((a) => a.at);
    expect(mostWithin(later, 1000)).toBeLessThanOrEqual(Math.ceil(0.5 * took) + 1);
    expect(arrivals.filter((a) => a.refused && a.at > firstRefusal + 1000)).toEqual([]);
  });

  it("learns the rate from what the key took, not from the moment after a pause, where the refused count too (HAProxy)", async () => {
    const run = await stacksOnOneKey(slidingSecond(10), [200]);
    expect(run.done).toBe(true);
    const arrivals = run.stacks[0]!.arrivals;
    const firstRefusal = arrivals.find((a) => a.refused)!.at;
    // Over the five seconds after the first pause, at least half the key's rate. A cut measured over the instant after
    // its pause, where the count still held the burst it refused, found nothing taken and fell to one a second (0.8).
    const taken = arrivals.filter((a) => a.at >= firstRefusal + 2000 && a.at < firstRefusal + 7000 && !a.refused).length / 5;
    expect(taken).toBeGreaterThanOrEqual(5);
    expect(run.refused / run.sent).toBeLessThanOrEqual(0.05);
  });

  it("between several stacks without hints, every request is taken in the end, at a bounded cost in 429s", async () => {
    const run = await stacksOnOneKey(tokenBucket(10, "none"), [50, 50, 50, 50], { starts: [0, 0, 0, 2000] });
    expect(run.done).toBe(true);
    expect(run.refused / run.sent).toBeLessThanOrEqual(0.15);
    expect(Math.max(...run.ends)).toBeLessThanOrEqual(20_000 * 1.6);
  });
});

describe("request budget: the queue", () => {
  it("serves purchases first, then due polls, then routine polls, each in the order asked", async () => {
    const h = harness();
    const spent = { "ratelimit-limit": "1", "ratelimit-remaining": "0", "ratelimit-reset": "1" };
    await warmUp(h, spent);
    const asked = [
      h.ask("poll-1", "routine"),
      h.ask("due-1", "due"),
      h.ask("poll-2", "routine"),
      h.ask("buy-1", "urgent"),
      h.ask("due-2", "due"),
      h.ask("buy-2", "urgent"),
    ];
    for (let second = 1; second <= 6; second++) {
      await h.clock.advance(1000);
      const last = h.granted.at(-1);
      if (last) h.answer(last.permit, 200, spent);
    }
    await Promise.all(asked);
    expect(h.names()).toEqual(["buy-1", "buy-2", "due-1", "due-2", "poll-1", "poll-2"]);
  });

  it("ends a wait that cannot finish before the request's deadline, and one whose signal aborts", async () => {
    const h = harness();
    await warmUp(h);
    const throttled = await h.ask("throttled");
    h.answer(throttled, 429, {}, 10_000);
    const late = h.ask("late", "urgent", { deadline: 5000 }).catch((e: unknown) => e);
    const controller = new AbortController();
    const cancelled = h.ask("cancelled", "urgent", { signal: controller.signal }).catch((e: unknown) => e);
    const patient = h.ask("patient", "urgent", { deadline: 20_000 });
    await h.clock.advance(0);
    expect(await late).toBeInstanceOf(BudgetDeadlineError);
    controller.abort(new Error("stop"));
    expect(((await cancelled) as Error).message).toBe("stop");
    expect(h.budget.held).toBe(1);
    await h.clock.advance(15_000);
    expect((await patient).heldMs).toBeGreaterThanOrEqual(10_000);
  });

  it("summarises at most every 30 s while it holds requests back", async () => {
    const h = harness();
    const summaries: unknown[] = [];
    h.budget.onSummary((s) => summaries.push(s));
    await warmUp(h);
    h.answer(await h.ask("throttled"), 429, {}, 95_000);
    const held = ["a", "b", "c"].map((n) => h.ask(n));
    await h.clock.advance(94_000);
    expect(summaries).toEqual([
      { held: 3, sentPerSecond: 0, throttled: 1 },
      { held: 3, sentPerSecond: 0, throttled: 0 },
      { held: 3, sentPerSecond: 0, throttled: 0 },
    ]);
    await h.clock.advance(10_000);
    await answerAll(h);
    await Promise.all(held);
  });
});

/** Answers every request let go, moving the clock on, until none is left in flight for a while. */
async function answerAll(h: ReturnType<typeof harness>) {
  const answered = new Set<Permit>();
  for (let idle = 0; idle < 50; ) {
    await h.clock.advance(10);
    const pending = h.granted.filter((g) => !answered.has(g.permit));
    for (const g of pending) {
      answered.add(g.permit);
      h.answer(g.permit);
    }
    idle = pending.length === 0 ? idle + 1 : 0;
  }
}
