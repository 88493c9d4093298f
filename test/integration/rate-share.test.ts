/**
 * `proxy:maxRateShare` from the provider's settings to its budget, over real HTTP and the real clock: a fleet told
 * that its key is shared starts by rate, where one alone on the key sends as fast as the answers come.
 */
import { describe, expect, it } from "vitest";
import { createFleetProvider } from "../../provider/fleet-provider";
import { accountsPerTest, useSandbox } from "../helpers/sandbox";
import { fleetInputs } from "../helpers/inputs";

const sandbox = useSandbox({ rateLimit: false, provisioningMs: 0 });
const accounts = accountsPerTest();

/** Buys a fleet of `orders` and counts the purchases made within the first second of the first. */
async function purchasesInFirstSecond(orders: number, share?: string): Promise<number> {
  const env: Record<string, string> = { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: sandbox.current.apiKey };
  if (share !== undefined) env.PROXY_API_MAX_RATE_SHARE = share;
  const fleet = createFleetProvider({ env, log: { info() {}, warn() {} }, accounts: accounts.current });
  await fleet.create(fleetInputs({ orders }));
  const bought = [...sandbox.current.state.orders.values()].map((order) => order.createdAt);
  expect(bought).toHaveLength(orders);
  const first = Math.min(...bought);
  return bought.filter((at) => at < first + 1000).length;
}

describe("a share of the key (proxy:maxRateShare)", () => {
  it("makes a fleet start at 2 purchases a second, doubling every half second, before anything is known of the key", async () => {
    // A burst of 4, then about 4.3 in the first second (8 to 10 seen, as the bucket is refilled); a slow machine only
    // makes it fewer. Alone on the key, all 20 go in it (below).
    expect(await purchasesInFirstSecond(20, "50")).toBeLessThanOrEqual(12);
  });

  it("leaves a fleet alone on its key (100, the default) bounded only by the answers it waits for", async () => {
    // 20 purchases over loopback take about 50 ms on an idle machine; more than a shared start allows even on a
    // loaded one.
    expect(await purchasesInFirstSecond(20)).toBeGreaterThan(12);
  });
});
