/**
 * A fleet's up and refresh through a server that keeps the contract at its most unhelpful (test/helpers/deviant-api.ts,
 * "every-fault"): a 429 on every fourth request whatever the rate, bursts of 503, 404s right after each purchase, pages
 * of two. Both succeed, and every order is bought once and kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Accounts } from "../../provider/api/account";
import { createFleetProvider } from "../../provider/fleet/fleet-provider";
import { startDeviantApi, type DeviantApi } from "../helpers/deviant-api";
import { useSandbox } from "../helpers/sandbox";

const sandbox = useSandbox({ rateLimit: false, provisioningMs: 1000 });
let api: DeviantApi;
beforeAll(async () => {
  api = await startDeviantApi(sandbox.current, "every-fault");
});
afterAll(async () => {
  await api.stop();
});

describe("a fleet of 12 under every fault the contract allows", () => {
  it("is bought once each, and refreshed without losing a member", async () => {
    sandbox.current.faults.notFoundReadsForNewOrders = 2;
    const fleet = createFleetProvider({
      log: { info: () => undefined, warn: () => undefined },
      testing: {
        env: { PROXY_API_BASE_URL: api.url, PROXY_API_KEY: sandbox.current.apiKey },
        accounts: new Accounts(),
      },
    });
    const inputs = { planId: "dc-us-5", orders: 12, waitForReady: true, readyTimeout: "5m", idempotencyKey: "every-fault-fleet", __provider: "p" };
    const { id, outs } = await fleet.create(inputs);
    expect(outs.members.map((m) => m.status)).toEqual(Array(12).fill("active"));
    expect(sandbox.current.createdOrders).toHaveLength(12);
    const refreshed = await fleet.read(id, outs);
    expect(refreshed.props?.members.map((m) => m.orderId)).toEqual(outs.members.map((m) => m.orderId));
    expect(sandbox.current.createdOrders).toHaveLength(12);
  }, 300_000);
});
