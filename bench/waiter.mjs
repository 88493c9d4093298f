// The waiter's schedule against its goals and two anchors, on a simulated clock (exact, no waiting), and a few
// provisioning times in real time against the sandbox.
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);

/** Provisioning times from 1 s to 20 min, log-spaced, plus the points just after each poll of every schedule. */
export const SWEEP = Array.from({ length: 200 }, (_, i) => Math.round(1000 * 1200 ** (i / 199)));

export const lagGoal = (t) => 250 + t / 10;
export const getBudget = (t) => 2 * Math.log2(t / 250) + t / 10_000;

/** Simulates a poller given as `nextDelay(waitedMs, polls)` for provisioning time T; returns lag and GET count. */
function simulate(nextDelay, t) {
  let now = 0;
  let polls = 0;
  for (;;) {
    now += nextDelay(now, polls);
    polls += 1;
    if (now >= t) return { lag: now - t, gets: polls };
  }
}

export const anchors = {
  "fixed 5 s poller": () => 5000,
  // Terraform's StateChangeConf: 100 ms, doubling, at most 10 s.
  "StateChangeConf (100 ms doubling to 10 s)": (_now, polls) => Math.min(10_000, 100 * 2 ** polls),
};

/** The waiter itself, on a simulated clock, against an API that turns active at T (optionally with an estimate). */
export async function simulateWaiter(root, t, estimateError) {
  const { waitForOrder } = require(join(root, "dist", "provider", "index.js"));
  const start = Date.parse("2026-11-21T10:00:00Z");
  let now = start;
  let gets = 0;
  const estimate = estimateError === undefined ? {} : { estimatedReadyAt: new Date(start + t * (1 + estimateError)).toISOString() };
  const order = (status) => ({ id: "ord_1", planId: "p", status, ...(status === "active" ? {} : estimate) });
  const client = {
    clock: { now: () => now, sleep: async (ms) => void (now += ms) },
    async getOrder() {
      gets += 1;
      return { order: order(now - start >= t ? "active" : "provisioning") };
    },
  };
  await waitForOrder({ client, orderId: "ord_1", deadline: start + 7_200_000, lastSeen: order("pending") });
  return { lag: now - start - t, gets };
}

/** Worst ratios over the sweep: lag / goal and GETs / budget. */
export async function sweep(run) {
  let lagRatio = 0;
  let getRatio = 0;
  let worstLag = { t: 0, lag: 0 };
  let getsAt20min = 0;
  for (const t of SWEEP) {
    const { lag, gets } = await run(t);
    if (lag / lagGoal(t) > lagRatio) worstLag = { t, lag };
    lagRatio = Math.max(lagRatio, lag / lagGoal(t));
    getRatio = Math.max(getRatio, gets / getBudget(t));
    if (t === SWEEP[SWEEP.length - 1]) getsAt20min = gets;
  }
  return { lagRatio, getRatio, worstLag, getsAt20min };
}

export { simulate };
