/**
 * `proxy:maxRateShare` from the provider's settings to its budget, over real HTTP: a fleet told that its key is shared
 * starts by rate. Alone on the key, the same 20 purchases go as fast as their answers come. The provider's clock is
 * the sandbox's, so the budget's waits move the sandbox's time instead of taking it: what is counted is the schedule,
 * not the machine's speed.
 */
import { describe, expect, it } from "vitest";
import { createFleetProvider } from "../../provider/fleet-provider";
import { accountsPerTest, sandboxClock, useSandbox } from "../helpers/sandbox";
import { fleetInputs } from "../helpers/inputs";

const sandbox = useSandbox({ rateLimit: false, provisioningMs: 0 });
const accounts = accountsPerTest();

describe("a share of the key (proxy:maxRateShare)", () => {
  it("makes a fleet start at 2 purchases a second, doubling every half second, before anything is known of the key", async () => {
    const env = { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: sandbox.current.apiKey, PROXY_API_MAX_RATE_SHARE: "50" };
    const clock = sandboxClock(() => sandbox.current);
    const fleet = createFleetProvider({ env, log: { info() {}, warn() {} }, accounts: accounts.current, clock });
    // Counted from before the first request, not from its arrival: the budget's schedule starts when the first request
    // is let go, so a purchase made within this second was let go within the schedule's first second (a count from the
    // first arrival would shift the window into the schedule's faster part when the first request is slow to arrive).
    const started = sandbox.current.clock.now();
    await fleet.create(fleetInputs({ orders: 20 }));
    const bought = [...sandbox.current.state.orders.values()].map((order) => order.createdAt);
    expect(bought).toHaveLength(20);
    // The schedule's first second: at most a burst of 4, then about 4.3 (fewer seen, as the members' own waits move
    // the clock too). Without the share, all 20 (checked by taking the share out of the client and the account).
    expect(bought.filter((at) => at < started + 1000).length).toBeLessThanOrEqual(12);
  });
});
