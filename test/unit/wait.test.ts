import { describe, expect, it } from "vitest";
import { NotFoundError, ServerError } from "../../provider/api/errors";
import type { Order } from "../../provider/api/schemas";
import {
  nextPollDelay,
  OrderFailedError,
  OrderWaitTimeoutError,
  UnexpectedOrderStateError,
  waitForOrder,
  type WaitProgress,
} from "../../provider/wait";

const order = (status: string, extra: Partial<Order> = {}): Order => ({ id: "ord_1", planId: "p", status, ...extra });
const notFound = () => new NotFoundError("nope", { status: 404, code: "not_found", method: "GET", path: "/v1/orders/ord_1" });

/** A client that answers from a script, and a clock that moves only when the waiter sleeps. */
function scripted(answers: Array<Order | Error>) {
  let now = 0;
  const sleeps: number[] = [];
  let calls = 0;
  const client = {
    async getOrder() {
      const next = answers[Math.min(calls++, answers.length - 1)];
      if (next instanceof Error) throw next;
      return { order: next as Order, retryAfterMs: undefined };
    },
  };
  return {
    client,
    sleeps,
    calls: () => calls,
    options: {
      now: () => now,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        now += ms;
      },
      minPollMs: 1000,
      maxPollMs: 8000,
    },
  };
}

describe("waitForOrder", () => {
  it("waits through pending states and returns the active order, reporting each state once", async () => {
    const s = scripted([order("pending"), order("provisioning"), order("provisioning"), order("active")]);
    const progress: WaitProgress[] = [];
    const result = await waitForOrder(s.client, "ord_1", { ...s.options, deadline: 60_000, onProgress: (p) => progress.push(p) });
    expect(result.status).toBe("active");
    expect(progress.map((p) => p.status)).toEqual(["pending", "provisioning"]);
    expect(s.sleeps).toEqual([1000, 1500, 2250]);
  });

  it.each(["failed", "cancelled", "expired"])("fails at once on %s, with the reason", async (status) => {
    const s = scripted([order("pending"), order(status, { statusReason: { code: "out_of_stock", message: "none left" } })]);
    const error = await waitForOrder(s.client, "ord_1", { ...s.options, deadline: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderFailedError);
    expect((error as Error).message).toBe(`Order ord_1 (plan p) ended "${status}": none left.`);
  });

  it("fails fast on a state the contract does not name", async () => {
    const s = scripted([order("paused")]);
    const error = await waitForOrder(s.client, "ord_1", { ...s.options, deadline: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedOrderStateError);
    expect((error as Error).message).toContain('"paused"');
    expect(s.calls()).toBe(1);
  });

  it("stops at the deadline and names the last state seen", async () => {
    const s = scripted([order("provisioning")]);
    const error = (await waitForOrder(s.client, "ord_1", { ...s.options, deadline: 10_000 }).catch((e) => e)) as OrderWaitTimeoutError;
    expect(error).toBeInstanceOf(OrderWaitTimeoutError);
    expect(error.message).toBe("Order ord_1 was not ready after 10s (last state: provisioning).");
    expect(s.sleeps.reduce((a, b) => a + b, 0)).toBe(10_000);
  });

  it("tolerates a few 404s after the purchase, then gives up", async () => {
    const ok = scripted([notFound(), notFound(), order("active")]);
    expect((await waitForOrder(ok.client, "ord_1", { ...ok.options, deadline: 60_000 })).status).toBe("active");
    const gone = scripted([notFound()]);
    await expect(waitForOrder(gone.client, "ord_1", { ...gone.options, deadline: 600_000, notFoundTolerance: 3 })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(gone.calls()).toBe(4);
  });

  it("passes other client errors through (the provider records the order)", async () => {
    const s = scripted([order("pending"), new ServerError("down", { status: 503, code: "unavailable", method: "GET", path: "/" })]);
    await expect(waitForOrder(s.client, "ord_1", { ...s.options, deadline: 60_000 })).rejects.toBeInstanceOf(ServerError);
  });
});

describe("nextPollDelay", () => {
  const now = Date.parse("2026-11-21T10:00:00Z");
  it("backs off 1.5x per poll up to the cap", () => {
    expect([0, 1, 2, 10].map((n) => nextPollDelay(n, undefined, undefined, now, 1000, 30_000))).toEqual([1000, 1500, 2250, 30_000]);
  });

  it("comes back at estimated_ready_at when that is sooner, but not sooner than the minimum", () => {
    const soon = order("provisioning", { estimatedReadyAt: "2026-11-21T10:00:04Z" });
    expect(nextPollDelay(10, soon, undefined, now, 1000, 30_000)).toBe(4000);
    const imminent = order("provisioning", { estimatedReadyAt: "2026-11-21T10:00:00.200Z" });
    expect(nextPollDelay(10, imminent, undefined, now, 1000, 30_000)).toBe(1000);
    const past = order("provisioning", { estimatedReadyAt: "2026-11-21T09:00:00Z" });
    expect(nextPollDelay(10, past, undefined, now, 1000, 30_000)).toBe(30_000);
  });

  it("never polls sooner than Retry-After (capped at the maximum)", () => {
    expect(nextPollDelay(0, undefined, 5000, now, 1000, 30_000)).toBe(5000);
    expect(nextPollDelay(0, undefined, 600_000, now, 1000, 30_000)).toBe(30_000);
  });
});
