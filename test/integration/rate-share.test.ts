/**
 * `proxy:maxRateShare` from the provider's settings to its budget, over real HTTP: a fleet told that its key is shared
 * spends its part of the quota the hints report; alone on the key, the same 30 purchases go unheld by a share. Real time
 * (a clock whose sleeps end at once would let the provider's schedule run ahead of its requests), so only bounds that a
 * slow machine cannot break are asserted: a slow spell sends fewer a second, never more.
 */
import { describe, expect, it } from "vitest";
import { createFleetProvider } from "../../provider/fleet/fleet-provider";
import { accountsPerTest, useSandbox } from "../helpers/sandbox";
import { fleetInputs } from "../helpers/inputs";

const sandbox = useSandbox({ rateLimit: { requestsPerSecond: 10 }, provisioningMs: 0 });
const accounts = accountsPerTest();

/** The most of `times` within any second. */
function mostInASecond(times: number[]): number {
  return Math.max(...times.map((from) => times.filter((at) => at >= from && at < from + 1000).length));
}

/** Buys a fleet of 30 with `env` added to the provider's; when each purchase was made, from the schedule's start. */
async function purchaseTimes(env: Record<string, string> = {}): Promise<number[]> {
  const fleet = createFleetProvider({
    log: { info() {}, warn() {} },
    testing: {
      env: { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: sandbox.current.apiKey, ...env },
      accounts: accounts.current,
    },
  });
  const started = sandbox.current.clock.now();
  await fleet.create(fleetInputs({ orders: 30 }));
  const bought = [...sandbox.current.state.orders.values()].map((order) => order.createdAt - started);
  expect(bought).toHaveLength(30);
  return bought;
}

describe("a share of the key (proxy:maxRateShare)", () => {
  it("holds a fleet to its part of the key's quota: at 50, at most half of the 10 a second, plus the first on trust", async () => {
    const bought = await purchaseTimes({ PROXY_API_MAX_RATE_SHARE: "50" });
    // Five a second, one on trust, and one for a request the event loop sent late.
    expect(mostInASecond(bought)).toBeLessThanOrEqual(7);
    expect(sandbox.current.requests.filter((r) => r.status === 429)).toEqual([]);
  });

  it("leaves a fleet alone on its key (100, the default) unheld by a share: all 30 bought, none refused", async () => {
    await purchaseTimes();
    expect(sandbox.current.requests.filter((r) => r.status === 429)).toEqual([]);
  });
});
