import { describe, expect, it } from "vitest";
import { NotFoundError, ServerError } from "../../client/errors";
import type { Order } from "../../contract/types";
import { ProvisioningTimes, type PlanProvisioningTimes } from "../../provider/api/provisioning";
import {
  DEFAULT_WAIT_SCHEDULE,
  nextPollDelay,
  OrderFailedError,
  OrderWaitCancelledError,
  OrderWaitTimeoutError,
  UnexpectedOrderStateError,
  waitForOrder,
  type WaitProgress,
} from "../../provider/api/wait";

const START = Date.parse("2026-11-21T10:00:00Z");
const order = (status: string, extra: Partial<Order> = {}): Order => ({ id: "ord_1", planId: "p", status, ...extra });
const notFound = () => new NotFoundError("nope", { status: 404, code: "not_found", method: "GET", path: "/v1/orders/ord_1" });

/** A simulated clock: time moves only when the waiter sleeps. */
function simulatedClock() {
  let now = START;
  const sleeps: number[] = [];
  return {
    sleeps,
    clock: {
      now: () => now,
      async sleep(ms: number, signal?: AbortSignal) {
        if (signal?.aborted) throw signal.reason;
        sleeps.push(ms);
        now += ms;
      },
    },
  };
}

/** A client that answers from a script, one answer per poll (the last repeats). */
function scripted(answers: Array<Order | Error>) {
  const sim = simulatedClock();
  let calls = 0;
  const client = {
    clock: sim.clock,
    async getOrder() {
      const next = answers[Math.min(calls++, answers.length - 1)];
      if (next instanceof Error) throw next;
      return { order: next as Order, retryAfterMs: undefined };
    },
  };
  return { ...sim, client, calls: () => calls, base: { client, orderId: "ord_1" } };
}

/**
 * An API whose order becomes active `readyAfterMs` after the start, on the simulated clock; optionally with an
 * `estimated_ready_at` that is off by `estimateError` (0.2 = 20% late).
 */
function provisioning(readyAfterMs: number, hint?: { estimateError: number }) {
  const sim = simulatedClock();
  let gets = 0;
  const client = {
    clock: sim.clock,
    async getOrder() {
      gets++;
      const ready = sim.clock.now() - START >= readyAfterMs;
      const estimate = hint ? { estimatedReadyAt: new Date(START + readyAfterMs * (1 + hint.estimateError)).toISOString() } : {};
      return { order: order(ready ? "active" : "provisioning", ready ? {} : estimate), retryAfterMs: undefined };
    },
  };
  return {
    gets: () => gets,
    /** Runs the waiter and returns how late it saw the order, and how many GETs it made. */
    async run(provisioning?: PlanProvisioningTimes) {
      const first = order("pending", hint ? { estimatedReadyAt: new Date(START + readyAfterMs * (1 + hint.estimateError)).toISOString() } : {});
      await waitForOrder({ client, orderId: "ord_1", deadline: START + 3_600_000, lastSeen: first, provisioning });
      return { lagMs: sim.clock.now() - START - readyAfterMs, gets };
    },
  };
}

/** Provisioning times from 1 s to 20 min: a dense sweep, including the awkward points just after a poll. */
const SWEEP = Array.from({ length: 400 }, (_, i) => Math.round(1000 * 1200 ** (i / 399)));

describe("waitForOrder", () => {
  it("waits through pending states and returns the active order, reporting each state once", async () => {
    const s = scripted([order("pending"), order("provisioning"), order("provisioning"), order("active")]);
    const progress: WaitProgress[] = [];
    const result = await waitForOrder({ ...s.base, deadline: START + 60_000, onProgress: (p) => progress.push(p) });
    expect(result.status).toBe("active");
    expect(progress.map((p) => p.status)).toEqual(["pending", "provisioning"]);
  });

  it.each(["failed", "cancelled", "expired"])("fails fast when the order ends %s, with the reason", async (status) => {
    const s = scripted([order("pending"), order(status, { statusReason: { code: "out_of_stock", message: "none left." } })]);
    const error = await waitForOrder({ ...s.base, deadline: START + 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderFailedError);
    expect((error as Error).message).toBe(`Order ord_1 (plan p) ended "${status}": none left.`);
  });

  it("fails fast on a state the contract does not name", async () => {
    const s = scripted([order("paused")]);
    const error = await waitForOrder({ ...s.base, deadline: START + 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedOrderStateError);
    expect((error as Error).message).toContain('"paused"');
    expect(s.calls()).toBe(1);
  });

  it("stops at the deadline and names the last state seen", async () => {
    const s = scripted([order("provisioning")]);
    const error = (await waitForOrder({ ...s.base, deadline: START + 10_000 }).catch((e) => e)) as OrderWaitTimeoutError;
    expect(error).toBeInstanceOf(OrderWaitTimeoutError);
    expect(error.message).toBe("Order ord_1 was not ready after 10s (last state: provisioning).");
    expect(s.sleeps.reduce((a, b) => a + b, 0)).toBe(10_000);
  });

  it("tolerates 404s for the read-after-write window, then gives up with the 404", async () => {
    const ok = scripted([notFound(), notFound(), order("active")]);
    expect((await waitForOrder({ ...ok.base, deadline: START + 60_000 })).status).toBe("active");
    const gone = scripted([notFound()]);
    await expect(waitForOrder({ ...gone.base, deadline: START + 600_000 })).rejects.toBeInstanceOf(NotFoundError);
    // The 404s began at the first poll, 250 ms in, and were given the whole window.
    expect(gone.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(DEFAULT_WAIT_SCHEDULE.notFoundWindowMs);
  });

  it("passes other client errors through (the provider records the order)", async () => {
    const s = scripted([order("pending"), new ServerError("down", { status: 503, code: "unavailable", method: "GET", path: "/" })]);
    await expect(waitForOrder({ ...s.base, deadline: START + 60_000 })).rejects.toBeInstanceOf(ServerError);
  });

  it("stops when its signal aborts, naming the last state", async () => {
    const s = scripted([order("provisioning")]);
    const controller = new AbortController();
    const waiting = waitForOrder({ ...s.base, deadline: START + 600_000, signal: controller.signal, lastSeen: order("pending") });
    controller.abort();
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderWaitCancelledError);
    expect((error as Error).message).toBe("Waiting for order ord_1 was cancelled (last state: provisioning).");
  });
});

describe("the polling schedule, on a simulated clock", () => {
  it("sees the order within 250 ms + 10% of T, for every T from 1 s to 20 min, without hints", async () => {
    for (const t of SWEEP) {
      const { lagMs } = await provisioning(t).run();
      expect(lagMs, `T = ${t} ms`).toBeLessThanOrEqual(250 + t / 10);
    }
  });

  it("sees the order within 250 ms of an exact estimated_ready_at", async () => {
    for (const t of SWEEP) {
      const { lagMs } = await provisioning(t, { estimateError: 0 }).run();
      expect(lagMs, `T = ${t} ms`).toBeLessThanOrEqual(250);
    }
  });

  it("with an estimate 20% early or late: seen within 250 ms + T/10 of the later of ready and estimate, with no more GETs than without one", async () => {
    for (const t of SWEEP) {
      const without = await provisioning(t).run();
      for (const estimateError of [-0.2, 0.2]) {
        const { lagMs, gets } = await provisioning(t, { estimateError }).run();
        const later = Math.max(0, t * estimateError);
        expect(lagMs - later, `T = ${t} ms, estimate off by ${estimateError * 100}%`).toBeLessThanOrEqual(250 + t / 10);
        expect(gets, `T = ${t} ms, estimate off by ${estimateError * 100}%`).toBeLessThanOrEqual(without.gets);
      }
    }
  });

  it("with an exact estimate: one GET per 30 s of wait plus one, so 2 at T = 40 s (the goal is at most 4)", async () => {
    for (const t of SWEEP) expect((await provisioning(t, { estimateError: 0 }).run()).gets, `T = ${t} ms`).toBeLessThanOrEqual(1 + Math.ceil(t / 30_000));
    expect((await provisioning(40_000, { estimateError: 0 }).run()).gets).toBe(2);
  });

  describe("with no estimate from the API, what the plan's earlier orders took", () => {
    /** Fresh learned times, as a new key would have. */
    const fresh = () => new ProvisioningTimes();

    it("finds later orders of the plan ready at their first GET (one per 30 s of a longer wait), for every T, after at most two tries", async () => {
      for (const t of SWEEP) {
        const times = fresh();
        const first = await provisioning(t).run(times);
        expect(first.gets, `T = ${t} ms`).toBe((await provisioning(t).run()).gets);
        const reads = Math.ceil(t / DEFAULT_WAIT_SCHEDULE.maxPollMs);
        const later = [];
        for (let i = 0; i < 8; i++) later.push(await provisioning(t).run(times));
        // A try shorter than the leader's time costs its order one read more when the plan is not ready by then.
        for (const one of later) expect(one.gets, `T = ${t} ms`).toBeLessThanOrEqual(reads + 1);
        expect(later.slice(2).map((one) => one.gets), `T = ${t} ms`).toEqual(Array(6).fill(reads));
        for (const one of later) expect(one.lagMs, `T = ${t} ms`).toBeLessThanOrEqual(first.lagMs + 20);
      }
    });

    it("tightens a loose learned time (the leader's polls held back by the rate limit) with tries, one order at a time", async () => {
      const t = 20_000;
      const times = fresh();
      // The leader's first poll, asked at 250 ms, waited its turn behind purchases and found the order ready at 30 s.
      times.observe(30_000);
      const open = times.tryShorter(0);
      expect(open?.ms).toBe(15_000);
      expect(times.tryShorter(0)).toBeUndefined();
      open?.end();
      expect(times.tryShorter(15_001)).toBeUndefined();
      const later = [];
      for (let i = 0; i < 8; i++) later.push(await provisioning(t).run(times));
      // Each try halves the gap; one that was too short costs its order one read, and it is seen at the learned time.
      for (const one of later) expect(one.gets).toBeLessThanOrEqual(2);
      expect(later.reduce((sum, one) => sum + one.gets - 1, 0)).toBeLessThanOrEqual(3);
      expect(Math.max(...later.map((one) => one.lagMs))).toBeLessThanOrEqual(10_000 + 20);
      // Tries stop once the learned time is within 15% of the longest wait seen not ready.
      expect(later.at(-1)?.lagMs).toBeLessThanOrEqual(0.15 * t + 20);
      expect(times.expectedMs()).toBeLessThanOrEqual(1.15 * t);
    });

    it("learns nothing from an order seen ready after the learned time, unless it was not ready by then", () => {
      const times = fresh();
      times.observe(20_000);
      times.observe(26_000);
      expect(times.expectedMs()).toBe(20_000);
      for (let i = 0; i < 8; i++) times.observe(24_000, true);
      expect(times.expectedMs()).toBe(24_000);
    });

    it("when the plan got slower, costs one GET more than having learned nothing, and sees it as late as without", async () => {
      for (const t of SWEEP) {
        const times = fresh();
        await provisioning(t / 2).run(times);
        const slower = await provisioning(t).run(times);
        const unaided = await provisioning(t).run();
        expect(slower.gets, `T = ${t} ms`).toBeLessThanOrEqual(unaided.gets + 1);
        expect(slower.lagMs, `T = ${t} ms`).toBeLessThanOrEqual(250 + t / 10);
      }
    });

    it("an order bought after the plan's first one reads nothing until that one is seen ready, then once", async () => {
      const times = fresh();
      const endLeader = times.begin(START - 5000);
      let now = START;
      let gets = 0;
      // Sleeps of a full maxPollMs never end here: the follower can only go on with news of the leader.
      const clock = {
        now: () => now,
        sleep: (ms: number, signal?: AbortSignal) =>
          ms >= DEFAULT_WAIT_SCHEDULE.maxPollMs
            ? new Promise<void>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)))
            : Promise.resolve(void (now += ms)),
      };
      const client = { clock, getOrder: async () => (gets++, { order: order(now - START >= 20_000 ? "active" : "provisioning"), retryAfterMs: undefined }) };
      const waiting = waitForOrder({ client, orderId: "ord_1", deadline: START + 3_600_000, lastSeen: order("pending"), provisioning: times });
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(gets).toBe(0);
      // Seen not ready at 19.5 s and ready at 20 s: close enough that this order tries nothing shorter.
      times.notReadyAfter(19_500);
      times.observe(20_000);
      await waiting;
      expect({ gets, seenAfterMs: now - START }).toEqual({ gets: 1, seenAfterMs: 20_020 });
      endLeader();
    });

    it("leads when no order of the plan bought earlier is waited for; follows again once the leader's wait ends", async () => {
      const times = fresh();
      expect(times.earlierOrderChange(START)).toBeUndefined();
      const end = times.begin(START);
      const news = times.earlierOrderChange(START + 1);
      expect(news).toBeInstanceOf(Promise);
      expect(times.earlierOrderChange(START)).toBeUndefined();
      end();
      await news;
      expect(times.earlierOrderChange(START + 1)).toBeUndefined();
    });

    it("gives way to the API's own estimate when there is one", async () => {
      const times = fresh();
      times.observe(1000);
      const { gets, lagMs } = await provisioning(40_000, { estimateError: 0 }).run(times);
      expect({ gets, lagMs: lagMs <= 250 }).toEqual({ gets: 2, lagMs: true });
    });
  });

  it("makes no more GETs than its documented schedule allows (polls that grow with log T, then one per maxPollMs)", async () => {
    // The schedule's own bound, from its documented defaults: a pause of basePollMs plus pollGrowth of the time waited,
    // at most maxPollMs; one GET after each pause until T has passed, and the GET that finds the order ready.
    const { basePollMs, pollGrowth, maxPollMs } = DEFAULT_WAIT_SCHEDULE;
    const scheduled = (t: number) => {
      let gets = 1;
      for (let waited = 0; waited < t; gets++) waited += Math.min(maxPollMs, basePollMs + pollGrowth * waited);
      return gets;
    };
    for (const t of [1000, 60_000, 20 * 60_000]) {
      const { gets } = await provisioning(t).run();
      expect(gets, `T = ${t} ms`).toBeLessThanOrEqual(scheduled(t));
    }
  });
});

describe("nextPollDelay", () => {
  const base = { now: START, basePollMs: 250, pollGrowth: 0.1, maxPollMs: 30_000 };

  it("is 250 ms plus a tenth of the time waited, up to the cap", () => {
    expect([0, 1000, 10_000, 600_000].map((waitedMs) => nextPollDelay({ ...base, waitedMs }))).toEqual([250, 350, 1250, 30_000]);
  });

  it("comes back just after an estimated_ready_at still ahead, sooner or later than the schedule, at most the cap away", () => {
    expect(nextPollDelay({ ...base, waitedMs: 100_000, readyAt: START + 4000 })).toBe(4020);
    expect(nextPollDelay({ ...base, waitedMs: 0, readyAt: START + 20_000 })).toBe(20_020);
    expect(nextPollDelay({ ...base, waitedMs: 0, readyAt: START + 600_000 })).toBe(30_000);
    expect(nextPollDelay({ ...base, waitedMs: 100_000, readyAt: START - 60_000 })).toBe(10_250);
    expect(nextPollDelay({ ...base, waitedMs: 100_000, readyAt: Number.NaN })).toBe(10_250);
  });

  it("never polls sooner than Retry-After (capped at the maximum)", () => {
    expect(nextPollDelay({ ...base, waitedMs: 0, retryAfterMs: 5000 })).toBe(5000);
    expect(nextPollDelay({ ...base, waitedMs: 0, retryAfterMs: 600_000 })).toBe(30_000);
  });
});
