/**
 * The pacing behind rate limiters nobody here wrote, in front of a sandbox with no limit of its own: express-rate-limit
 * (scripts/lib/limiter-front.mjs), a fixed window per key, in each of the library's four header modes; the `limits`
 * library's moving window (scripts/lib/log-front.mjs), a sliding log, go-chi/httprate (scripts/lib/go-limiter-front.mjs),
 * a sliding window counter, and ulule/limiter (the same program), windows from each one's first request, all with
 * GitHub's hints; nginx's limit_req
 * (scripts/lib/nginx-front.mjs), a leaky bucket per key with no hints at all, refusing with 429 or with its default 503;
 * and HAProxy's stick table (scripts/lib/haproxy-front.mjs), a sliding second per key, no hints either, counting the
 * requests it refuses. Several fleets share the key, each with a budget of its own as each `pulumi up` has: every order
 * is bought once, and the refusals stay few.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Accounts } from "../../provider/api/account";
import { createFleetProvider } from "../../provider/fleet/fleet-provider";
import { fleetInputs } from "../helpers/inputs";
import { startLimiterFront, type LimiterFront, type LimiterMode } from "../../scripts/lib/limiter-front.mjs";
import { startHaproxyFront } from "../../scripts/lib/haproxy-front.mjs";
import { startNginxFront } from "../../scripts/lib/nginx-front.mjs";
import { startHttprateFront, startUluleFront } from "../../scripts/lib/go-limiter-front.mjs";
import { startLogFront } from "../../scripts/lib/log-front.mjs";
import { REPO_ROOT } from "../helpers/pulumi";
import { useSandbox } from "../helpers/sandbox";

const sandbox = useSandbox({ rateLimit: false, provisioningMs: 0 });
let front: LimiterFront | undefined;
afterEach(async () => {
  await front?.stop();
  front = undefined;
});

const STACKS = 4;
const ORDERS = 15;

/**
 * Buys `STACKS` fleets of `ORDERS` at once through `started` (kept as `front`, stopped after the test), each on its own
 * budget; checks that each order was bought once, and gives the share of the requests the limiter refused.
 */
async function refusedThrough(started: LimiterFront): Promise<number> {
  front = started;
  const url = started.url;
  await Promise.all(
    Array.from({ length: STACKS }, (_, stack) => {
      const fleet = createFleetProvider({
        log: { info() {}, warn() {} },
        testing: { env: { PROXY_API_BASE_URL: url, PROXY_API_KEY: sandbox.current.apiKey }, accounts: new Accounts() },
      });
      return fleet.create(fleetInputs({ orders: ORDERS, idempotencyKey: `stack-${stack}-${Math.random().toString(36).slice(2)}` }));
    }),
  );
  expect(sandbox.current.createdOrders).toHaveLength(STACKS * ORDERS);
  return started.refused() / (started.refused() + started.passed());
}

describe("several fleets on one key behind express-rate-limit", () => {
  for (const mode of ["legacy", "draft-6", "draft-7", "draft-8"] as LimiterMode[]) {
    it(`buys every order once, with few refusals, reading its ${mode} headers`, async () => {
      const refused = await refusedThrough(await startLimiterFront(sandbox.current.url, { mode, limit: 20, windowMs: 1000 }));
      // Read as no hints (as the draft-7 dictionary once was), 10 of 70 were refused. Read, some 64 go and 0 to 3 are
      // refused; 4 were once, on a machine busy with other tests (a second's windows in real time): one more is noise.
      expect(refused).toBeLessThanOrEqual(0.08);
    }, 120_000);
  }
});

describe("several fleets on one key behind limiters of Python and Go services, with GitHub's hints", () => {
  it("buys every order once behind a sliding log (the limits library's moving window), with few refusals", async () => {
    const refused = await refusedThrough(await startLogFront(sandbox.current.url, { rate: 20 }));
    // None refused in the runs measured.
    expect(refused).toBeLessThanOrEqual(0.1);
  }, 300_000);

  it("buys every order once behind go-chi/httprate's counter, whose reset may name a second already passed", async () => {
    const refused = await refusedThrough(await startHttprateFront(sandbox.current.url, { rate: 20 }));
    // 0 to 4 of some 63 in the runs measured. Read as passed, each such answer let the next request go at once while
    // the count said none was left: 10 and 11 (15.5% and 16.7%) here, a third of them in the bench's four stacks x 50.
    expect(refused).toBeLessThanOrEqual(0.1);
  }, 300_000);

  it("buys every order once behind ulule/limiter's windows, whose resets are cut down to the second", async () => {
    const refused = await refusedThrough(await startUluleFront(sandbox.current.url, { rate: 20 }));
    // 5% to 18% of some 64 in the runs measured, 9% to 14% on the code before its resets were read as cut down (the
    // bench's four stacks x 50: 5.4% where 15.8%); the budget test of two stacks behind its windows tells the two apart.
    expect(refused).toBeLessThanOrEqual(0.25);
  }, 300_000);
});

describe("several fleets on one key behind servers' limiters, which send no hints", () => {
  beforeAll(() => {
    // Installs nginx and HAProxy from Debian's packages where they are missing (as root, as CI runs).
    execFileSync(join(REPO_ROOT, "scripts", "ensure-proxies"), { stdio: ["ignore", "ignore", "inherit"] });
  }, 600_000);

  for (const status of [429, 503] as const) {
    it(`buys every order once behind nginx's limit_req, refusing with ${status}${status === 503 ? " (its default)" : ""}`, async () => {
      const refused = await refusedThrough(await startNginxFront(sandbox.current.url, { rate: 10, burst: 10, status }));
      // Without hints, refusals are how the rate is learned: 10 of 70 in the runs measured, with either status. Before
      // a 503 was read as a limiter's, the fleets failed with 29 of 60 orders not bought and 348 refusals.
      expect(refused).toBeLessThanOrEqual(0.2);
    }, 120_000);
  }

  it("buys every order once behind HAProxy's sliding second, which counts what it refuses", async () => {
    const refused = await refusedThrough(await startHaproxyFront(sandbox.current.url, { rate: 10 }));
    // 12 to 15 of about 75 in ten runs measured (up to 20%, where nginx refused 14%): without hints the first refusals
    // teach the rate, and HAProxy counts them, which keeps the key refused a moment longer. A runaway is far above.
    expect(refused).toBeLessThanOrEqual(0.3);
  }, 120_000);
});
