/**
 * `proxy:maxRateShare` from the provider's settings to its budget, over real HTTP: a fleet told that its key is shared
 * starts by rate. Alone on the key, the same 20 purchases go within about 50 ms, as fast as their answers come.
 */
import { describe, expect, it } from "vitest";
import { createFleetProvider } from "../../provider/fleet-provider";
import { accountsPerTest, useSandbox } from "../helpers/sandbox";
import { fleetInputs } from "../helpers/inputs";

const sandbox = useSandbox({ rateLimit: false, provisioningMs: 0 });
const accounts = accountsPerTest();

describe("a share of the key (proxy:maxRateShare)", () => {
  it("makes a fleet start at 2 purchases a second, doubling every half second, before anything is known of the key", async () => {
    const env = { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: sandbox.current.apiKey, PROXY_API_MAX_RATE_SHARE: "50" };
    const fleet = createFleetProvider({ env, log: { info() {}, warn() {} }, accounts: accounts.current });
    // Counted from before the first request, not from its arrival: the budget's schedule starts when the first request
    // is let go, so a purchase that arrives within this second was let go within the schedule's first second, however
    // slowly the machine runs (a count from the first arrival would shift the window later into the schedule when the
    // first request is slow to arrive).
    const started = sandbox.current.clock.now();
    await fleet.create(fleetInputs({ orders: 20 }));
    const bought = [...sandbox.current.state.orders.values()].map((order) => order.createdAt);
    expect(bought).toHaveLength(20);
    // The schedule's first second: a burst of 4, then about 4.3 (8 to 10 seen, the bucket refilled at the rate of the
    // moment). Without the share, all 20.
    expect(bought.filter((at) => at < started + 1000).length).toBeLessThanOrEqual(12);
  });
});
