#!/usr/bin/env node
// K stacks on one key, simulated: one request budget per stack (client/budget.ts, as each `pulumi up` process has its
// own) against the sandbox's rate limiter, on a virtual clock, so a case takes milliseconds instead of the minutes of
// bench/fleet-resource.mjs's real `pulumi up`s. A model, not a measurement: each stack is a fleet reduced to its
// requests (N purchases at once, then one read of each order T after its purchase, or without estimates the
// provider's own waiter, which learns the plan's time from its first order), with
// 3 to 3.5 s of engine start and 1 s of engine end; figures to compare pacing designs, not to quote as the bench's.
//
// `node bench/stacks-sim.mjs` after `npm run build`. SIM_CASES: K:N:R:T cases as BENCH_STACKS takes them, with
// `:on-429`, `:never`, `:late=<s>`, `:latency=<ms>`, `:window=<s>` (with `:from-first`, windows as express-rate-limit
// counts them, each beginning with the first request after the last ended), `:sliding` (HAProxy's sliding second,
// which counts the requests it refuses), `:counter` (go-chi/httprate's sliding window counter, with GitHub's hints and
// the current window's end as their reset), `:log` (a sliding log of the window's accepted requests, as the `limits`
// library's moving window behind Flask-Limiter and slowapi counts them, its reset the oldest's expiry), `:ulule`
// (ulule/limiter's windows, each from the first request after the last, their resets cut down to the second, no
// `Retry-After`), `:no-estimates`, and `:share=<percent>` (each stack
// capped at that share, beside an application sending the rest of the key's rate steadily, as BENCH_SHARE_CASES does;
// with `:no-app`, the stacks alone, each given its share of the key); SIM_SEEDS (default 1,7,13) vary the latency's
// jitter; `:form=<form>` states the hints in another form (contract/rate-limit.ts).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMain } from "../scripts/lib/is-main.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { RequestBudget } = require(join(root, "dist", "client", "index.js"));
const { RateLimiter } = require(join(root, "dist", "sandbox", "index.js"));
const { rateLimitHeaders, readRateLimitHints } = require(join(root, "dist", "contract", "index.js"));
const { ProvisioningTimes, waitForOrder } = require(join(root, "dist", "provider", "index.js"));

const ENGINE_START_MS = 3000;
const ENGINE_START_SPREAD_MS = 500;
const ENGINE_END_MS = 1000;
/** The Unix time at which a simulation starts (2027-01-15), a whole second plus a part, so seconds fall mid-window. */
const EPOCH_MS = 1_800_000_000_337;

/** A virtual clock: time moves only to the next sleeper once everything runnable has run. */
function virtualClock() {
  let now = 0;
  const sleepers = [];
  return {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        const sleeper = { at: now + ms, wake: resolve };
        sleepers.push(sleeper);
        signal?.addEventListener("abort", () => {
          const index = sleepers.indexOf(sleeper);
          if (index !== -1) sleepers.splice(index, 1);
          resolve();
        }, { once: true });
      }),
    /** Runs until `done()`: lets promises settle, then wakes the earliest sleeper. */
    async run(done) {
      const settle = async () => {
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      };
      while (!done()) {
        await settle();
        if (done()) break;
        sleepers.sort((a, b) => a.at - b.at);
        const next = sleepers.shift();
        if (!next) throw new Error("the simulation is stuck: nothing sleeps and nothing is done");
        now = Math.max(now, next.at);
        next.wake();
      }
    },
  };
}

/**
 * The provider's own waiter (provider/api/wait.ts) on an order bought at `started` and ready at `readyAt`, against an API
 * without estimates: each read goes through `read`, which spends it on the stack's budget.
 */
function waitLikeTheProvider(clock, times, started, readyAt, read) {
  const client = {
    clock,
    async getOrder(id, { priority }) {
      await read(priority);
      return { order: { id, planId: "p", status: clock.now() >= readyAt ? "active" : "provisioning" }, retryAfterMs: undefined };
    },
  };
  return waitForOrder({ client, orderId: "ord", deadline: started + 3_600_000, lastSeen: { id: "ord", planId: "p", status: "pending" }, provisioning: times });
}

/**
 * express-rate-limit's memory store (8.x), on the virtual clock: a window of `windowSeconds` begins with the first
 * request after the last one ended (not on a grid), and holds `r × windowSeconds` requests. Decisions as the sandbox's
 * RateLimiter gives them.
 */
function expressWindow(r, windowSeconds, now) {
  const windowMs = windowSeconds * 1000;
  const limit = Math.max(1, Math.floor(r * windowSeconds));
  let resetAt = Number.NEGATIVE_INFINITY;
  let hits = 0;
  return {
    take() {
      if (resetAt <= now()) {
        resetAt = now() + windowMs;
        hits = 0;
      }
      hits += 1;
      const allowed = hits <= limit;
      const quota = { limit, remaining: Math.max(0, limit - hits), resetAt, windowSeconds };
      return { allowed, quota, retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now()) / 1000)) };
    },
  };
}

/**
 * HAProxy's stick table (`http_req_rate(1s)`, as scripts/lib/haproxy-front.mjs configures it), on the virtual clock:
 * each request is counted, refused or not, in the current second's counter, and one that finds more than `r` in the
 * last second (the current counter plus the previous one's, weighted by what is left of the current second) is refused.
 */
function haproxySliding(r, now) {
  const periodMs = 1000;
  let currentStart = 0;
  let current = 0;
  let previous = 0;
  return {
    take() {
      const elapsed = now() - currentStart;
      if (elapsed >= periodMs) {
        previous = elapsed >= 2 * periodMs ? 0 : current;
        current = 0;
        currentStart = now() - (elapsed % periodMs);
      }
      current += 1;
      const rate = current + previous * (1 - (now() - currentStart) / periodMs);
      const allowed = rate <= r;
      // No Retry-After, as HAProxy's deny sends none.
      return { allowed, quota: { limit: r, remaining: Math.max(0, Math.floor(r - rate)), resetAt: currentStart + periodMs, windowSeconds: 1 }, retryAfterSeconds: undefined };
    },
  };
}

/**
 * A sliding log (the `limits` library's moving window, behind Flask-Limiter and slowapi), on the virtual clock: a request
 * is taken while fewer than `r × windowSeconds` were taken in the last window (the refused are not counted); the
 * quota's reset is when the oldest of them leaves the window, so it frees one request, not the whole quota.
 */
function slidingLog(r, windowSeconds = 1, now) {
  const windowMs = windowSeconds * 1000;
  const limit = Math.max(1, Math.floor(r * windowSeconds));
  const taken = [];
  return {
    take() {
      while (taken.length > 0 && taken[0] <= now() - windowMs) taken.shift();
      const allowed = taken.length < limit;
      if (allowed) taken.push(now());
      const resetAt = taken.length > 0 ? taken[0] + windowMs : now();
      const quota = { limit, remaining: limit - taken.length, resetAt, windowSeconds };
      return { allowed, quota, retryAfterSeconds: allowed ? undefined : Math.max(1, Math.ceil((resetAt - now()) / 1000)) };
    },
  };
}

/**
 * go-chi/httprate's sliding window counter (v0.16.1), on the virtual clock: windows aligned to the limiter's start (the
 * case's first moment, 337 ms into a second), not to the Unix time; a request is taken while the previous window's
 * count, weighted by what is left of the current one, plus the current's, rounded, is below `r × windowSeconds` (the
 * refused are not counted); its reset is the current window's end as a Unix time in whole seconds, cut down (so it may
 * have passed already), and a refusal's `Retry-After` the window's length.
 */
function slidingCounter(r, windowSeconds = 1, now) {
  const windowMs = windowSeconds * 1000;
  const limit = Math.max(1, Math.floor(r * windowSeconds));
  const counts = new Map();
  return {
    take() {
      const unix = EPOCH_MS + now();
      const start = EPOCH_MS + Math.floor(now() / windowMs) * windowMs;
      const rate = Math.round((counts.get(start - windowMs) ?? 0) * (1 - (unix - start) / windowMs) + (counts.get(start) ?? 0));
      const allowed = rate + 1 <= limit;
      if (allowed) counts.set(start, (counts.get(start) ?? 0) + 1);
      const remaining = Math.max(0, limit - rate - (allowed ? 1 : 0));
      const quota = { limit, remaining, resetAt: start + windowMs - EPOCH_MS, windowSeconds };
      // As httprate writes them: rateLimitHeaders would round the reset up, and never state one already passed.
      const headers = { "x-ratelimit-limit": String(limit), "x-ratelimit-remaining": String(remaining), "x-ratelimit-reset": String(Math.floor((start + windowMs) / 1000)) };
      return { allowed, quota, headers, retryAfterSeconds: allowed ? undefined : windowSeconds };
    },
  };
}

/**
 * ulule/limiter's memory store (v3.11.2) behind its net/http middleware, on the virtual clock: express-rate-limit's
 * windows (each from the first request after the last ended, every request counted), refused with no `Retry-After`,
 * and GitHub's hints on every answer, the reset the window's end as a Unix time cut down to the second.
 */
function ululeWindows(r, windowSeconds = 1, now) {
  const windows = expressWindow(r, windowSeconds, now);
  return {
    take() {
      const { allowed, quota } = windows.take();
      const reset = String(Math.floor((EPOCH_MS + quota.resetAt) / 1000));
      const headers = { "x-ratelimit-limit": String(quota.limit), "x-ratelimit-remaining": String(quota.remaining), "x-ratelimit-reset": reset };
      return { allowed, quota, headers, retryAfterSeconds: undefined };
    },
  };
}

/** The case's limiter: HAProxy's sliding second, a sliding log or counter, express-rate-limit's or ulule/limiter's windows, or the sandbox's. */
function caseLimiter({ r, windowSeconds, fromFirst, sliding, log, counter, ulule }, now) {
  if (ulule) return ululeWindows(r, windowSeconds, now);
  if (counter) return slidingCounter(r, windowSeconds, now);
  if (sliding) return haproxySliding(r, now);
  if (log) return slidingLog(r, windowSeconds, now);
  if (fromFirst) return expressWindow(r, windowSeconds ?? 1, now);
  return new RateLimiter({ requestsPerSecond: r, burst: r, windowSeconds }, now);
}

/**
 * The key's traffic on the virtual clock: each stack's requests through its own budget, and, beside a capped share,
 * an application sending the rest of the key's rate, evenly spaced, from the start to the end.
 */
function simulatedKey(c, clock) {
  const limiter = caseLimiter(c, clock.now);
  let state = c.seed;
  const random = () => (state = (state * 16807) % 2147483647) / 2147483647;
  const key = { random, refusals: [], calls: 0, finished: false };
  key.appRuns = c.share !== undefined && c.app;
  key.app = { sent: 0, refused: 0, done: !key.appRuns };
  key.application = async () => {
    if (!key.appRuns) return;
    const every = 1000 / (c.r * (1 - c.share));
    while (!key.finished) {
      await clock.sleep(every);
      key.app.sent += 1;
      if (!limiter.take("key").allowed) key.app.refused += 1;
    }
    key.app.done = true;
  };
  key.send = async (budget, stack, priority) => {
    for (;;) {
      const permit = await budget.acquire({ priority });
      const trip = c.latencyMs * (0.8 + 0.4 * random());
      await clock.sleep(trip / 2 + 1);
      const decision = limiter.take("key");
      key.calls += 1;
      await clock.sleep(trip / 2 + 1);
      const withHints = c.hints === "always" || (c.hints === "on-429" && !decision.allowed);
      const stated = decision.headers ?? rateLimitHeaders(c.form, { ...decision.quota, resetAt: decision.quota.resetAt + EPOCH_MS }, Date.now());
      const headers = withHints ? stated : {};
      const hinted = readRateLimitHints(headers, Date.now());
      if (decision.allowed) return permit.settle({ status: 200, hints: hinted });
      key.refusals.push({ stack, at: clock.now() });
      const retryAfterMs = decision.retryAfterSeconds === undefined ? undefined : decision.retryAfterSeconds * 1000;
      permit.settle({ status: 429, hints: { ...hinted, retryAfterMs } });
    }
  };
  return key;
}

/** One stack: its engine's start, N purchases and a read of each order once ready, through a budget of its own. */
async function simulatedStack(c, clock, key, index, starts) {
  // Real CLIs start their providers a few hundred milliseconds apart, not in the same instant.
  await clock.sleep((index === c.k - 1 ? c.lateMs : 0) + ENGINE_START_MS + key.random() * ENGINE_START_SPREAD_MS);
  starts[index] = clock.now();
  const budget = new RequestBudget({ clock });
  const times = new ProvisioningTimes();
  if (c.share !== undefined) budget.limitShare(c.share);
  await Promise.all(
    Array.from({ length: c.n }, async () => {
      await key.send(budget, index, "urgent");
      const readyAt = clock.now() + c.t * 1000;
      if (c.estimates) {
        await clock.sleep(readyAt - clock.now());
        return key.send(budget, index, "due");
      }
      return waitLikeTheProvider(clock, times, readyAt - c.t * 1000, readyAt, (priority) => key.send(budget, index, priority));
    }),
  );
  return clock.now() + ENGINE_END_MS;
}

/** Runs the stacks and the application on the virtual clock; resolves with each stack's end. */
async function runStacks(c, clock, key, starts) {
  // Forms with a Unix-time reset are read against the real time (Date.now()): while the case runs, that is the virtual
  // clock on a fixed epoch, so that each run is the same and a window's second does not wander with the real one.
  const realNow = Date.now;
  Date.now = () => Math.floor(EPOCH_MS + clock.now());
  let ends;
  try {
    const appDone = key.application();
    const all = Promise.all(Array.from({ length: c.k }, (_, i) => simulatedStack(c, clock, key, i, starts))).then((e) => {
      ends = e;
      key.finished = true;
    });
    await clock.run(() => ends !== undefined);
    await all;
    await clock.run(() => key.app.done);
    await appDone;
  } finally {
    Date.now = realNow;
  }
  return ends;
}

/** One case: K stacks of N orders on a key of R requests a second. */
export async function simulateStacks(options) {
  const defaults = { hints: "always", form: "contract", lateMs: 0, latencyMs: 5, fromFirst: false, sliding: false, log: false, counter: false, ulule: false, estimates: true, app: true, seed: 1 };
  // A value left undefined takes its default, as a destructuring default would.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const c = { ...defaults, ...given };
  const clock = virtualClock();
  const key = simulatedKey(c, clock);
  const starts = [];
  const ends = await runStacks(c, clock, key, starts);
  const { k, n, r, t, share } = c;
  // The floor at what the stacks may use of the key's rate: beside the application, their share.
  const rate = key.appRuns ? r * share : r;
  const floor = Math.max(t * 1000 + ((k * n) / rate) * 1000, ((2 * k * n) / rate) * 1000);
  // A stack's first contact: its refusals within a second of its first request, when its slow start met the limit.
  const firstContact = key.refusals.filter((x) => x.at - starts[x.stack] < 1000).length;
  return {
    ratio: Math.max(...ends) / floor,
    ends,
    share: key.refusals.length / key.calls,
    refused: key.refusals.length,
    firstContact,
    calls: key.calls,
    app: key.appRuns ? key.app.refused / Math.max(1, key.app.sent) : undefined,
  };
}

/** Reads a case as BENCH_STACKS writes it. */
function parseCase(spec) {
  const [k, n, r, t] = spec.split(":").slice(0, 4).map(Number);
  const flags = spec.split(":").slice(4);
  const value = (name) => flags.find((f) => f.startsWith(`${name}=`))?.slice(name.length + 1);
  const hints = flags.includes("never") ? "never" : flags.includes("on-429") ? "on-429" : "always";
  return {
    k, n, r, t, hints,
    form: value("form") ?? "contract",
    lateMs: Number(value("late") ?? 0) * 1000,
    latencyMs: Number(value("latency") ?? 5),
    windowSeconds: value("window") === undefined ? undefined : Number(value("window")),
    fromFirst: flags.includes("from-first"),
    sliding: flags.includes("sliding"),
    log: flags.includes("log"),
    counter: flags.includes("counter"),
    ulule: flags.includes("ulule"),
    estimates: !flags.includes("no-estimates"),
    share: value("share") === undefined ? undefined : Number(value("share")) / 100,
    app: !flags.includes("no-app"),
  };
}

const DEFAULT_SIM_CASES =
  "2:100:10:20:on-429,2:100:10:20:never,2:100:10:20,4:50:10:20:on-429:late=10,4:50:10:20:never:late=10,4:50:10:20:late=10,2:100:10:20:on-429:latency=40:window=1:no-estimates," +
  "2:100:10:20:latency=40:window=1:no-estimates,4:50:10:20:late=10:latency=40:window=1:no-estimates," +
  "4:50:10:20:late=10:latency=40:window=1:from-first:no-estimates:form=x-ratelimit," +
  "1:100:20:20:on-429:share=50,1:100:20:20:on-429:share=50:latency=40:window=1:no-estimates";

if (isMain(import.meta.url)) {
  const seeds = (process.env.SIM_SEEDS ?? "1,7,13").split(",").map(Number);
  console.log("| case | last end / floor, per seed | answered 429 | of them at a stack's first contact | the application's answered 429 |");
  console.log("|---|---|---|---|---|");
  for (const spec of (process.env.SIM_CASES ?? DEFAULT_SIM_CASES).split(",")) {
    const runs = [];
    for (const seed of seeds) runs.push(await simulateStacks({ ...parseCase(spec), seed }));
    const ratios = runs.map((x) => `${x.ratio.toFixed(2)}x`).join(", ");
    const shares = runs.map((x) => `${(x.share * 100).toFixed(1)}%`).join(", ");
    const contacts = runs.map((x) => `${x.firstContact} of ${x.refused}`).join(", ");
    const app = runs[0].app === undefined ? "" : runs.map((x) => `${(x.app * 100).toFixed(1)}%`).join(", ");
    console.log(`| ${spec} | ${ratios} | ${shares} | ${contacts} | ${app} |`);
  }
}
