/**
 * `proxy:maxRateShare` from the provider's settings to its budget, over real HTTP: a fleet told that its key is shared
 * starts by rate; alone on the key, the same 20 purchases go as fast as their answers come. The sandbox's time stands
 * still but for the provider's own pauses, which move it (sandboxClock): what is counted is the schedule the budget
 * made, not the machine's speed.
 */
import { describe, expect, it } from "vitest";
import { createFleetProvider } from "../../provider/fleet-provider";
import { accountsPerTest, sandboxClock, useSandbox } from "../helpers/sandbox";
import { fleetInputs } from "../helpers/inputs";

const sandbox = useSandbox({ rateLimit: false, provisioningMs: 0, now: () => Date.parse("2026-11-26T00:00:00Z") });
const accounts = accountsPerTest();

/** Buys a fleet of 20 with `env` added to the provider's; when each purchase was made, from the schedule's start. */
async function purchaseTimes(env: Record<string, string> = {}): Promise<number[]> {
  const fleet = createFleetProvider({
    env: { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: sandbox.current.apiKey, ...env },
    log: { info() {}, warn() {} },
    accounts: accounts.current,
    clock: sandboxClock(() => sandbox.current),
  });
  const started = sandbox.current.clock.now();
  await fleet.create(fleetInputs({ orders: 20 }));
  const bought = [...sandbox.current.state.orders.values()].map((order) => order.createdAt - started);
  expect(bought).toHaveLength(20);
  return bought;
}

describe("a share of the key (proxy:maxRateShare)", () => {
  it("makes a fleet start at 2 purchases a second, doubling every half second, before anything is known of the key", async () => {
    const bought = await purchaseTimes({ PROXY_API_MAX_RATE_SHARE: "50" });
    // The schedule's first second holds the first window (2) and about 2.2 more (the integral of 2 * 4^t): 5 at most
    // with rounding. The rest follow as the rate doubles, the last well after the first second.
    expect(bought.filter((at) => at < 1000).length).toBeLessThanOrEqual(5);
    expect(Math.max(...bought)).toBeGreaterThan(1000);
  });

  it("leaves a fleet alone on its key (100, the default) bounded only by the answers: no pause at all", async () => {
    const bought = await purchaseTimes();
    expect(bought).toEqual(Array(20).fill(0));
  });
});
