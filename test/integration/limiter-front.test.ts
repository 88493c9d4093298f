/**
 * The pacing behind a rate limiter nobody here wrote: express-rate-limit (scripts/lib/limiter-front.mjs), a fixed
 * window per key, in front of a sandbox with no limit of its own, in each of the library's four header modes. Several
 * fleets share the key, each with a budget of its own as each `pulumi up` has: every order is bought once, and the
 * hints the library sends keep the refusals few.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Accounts } from "../../provider/api/account";
import { createFleetProvider } from "../../provider/fleet/fleet-provider";
import { fleetInputs } from "../helpers/inputs";
import { startLimiterFront, type LimiterFront, type LimiterMode } from "../../scripts/lib/limiter-front.mjs";
import { useSandbox } from "../helpers/sandbox";

const sandbox = useSandbox({ rateLimit: false, provisioningMs: 0 });
let front: LimiterFront | undefined;
afterEach(async () => {
  await front?.stop();
  front = undefined;
});

const STACKS = 4;
const ORDERS = 15;

/** Buys `STACKS` fleets of `ORDERS` at once through the front, each on its own budget. */
async function fleetsThrough(url: string): Promise<void> {
  await Promise.all(
    Array.from({ length: STACKS }, (_, stack) => {
      const fleet = createFleetProvider({
        log: { info() {}, warn() {} },
        testing: { env: { PROXY_API_BASE_URL: url, PROXY_API_KEY: sandbox.current.apiKey }, accounts: new Accounts() },
      });
      return fleet.create(fleetInputs({ orders: ORDERS, idempotencyKey: `stack-${stack}-${Math.random().toString(36).slice(2)}` }));
    }),
  );
}

describe("several fleets on one key behind express-rate-limit", () => {
  for (const mode of ["legacy", "draft-6", "draft-7", "draft-8"] as LimiterMode[]) {
    it(`buys every order once, with few refusals, reading its ${mode} headers`, async () => {
      front = await startLimiterFront(sandbox.current.url, { mode, limit: 20, windowMs: 1000 });
      await fleetsThrough(front.url);
      expect(sandbox.current.createdOrders).toHaveLength(STACKS * ORDERS);
      const sent = front.refused() + front.passed();
      // Read as no hints (as the draft-7 dictionary once was), 10 of 70 were refused.
      expect(front.refused() / sent).toBeLessThanOrEqual(0.05);
    }, 120_000);
  }
});
