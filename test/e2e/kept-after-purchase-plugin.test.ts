/**
 * A failure after the purchase, from a YAML program through the plugin with the real CLI: every order bought is in
 * the state, and the next `up` carries on with them (the dynamic provider's side: kept-after-purchase.test.ts).
 */
import { beforeAll, describe, it } from "vitest";
import { installPluginWithoutNode, testDist } from "../helpers/plugin-archive";
import { expectOrdersKept, useUnreadableOrders } from "../helpers/kept-after-purchase";

// The plugin archive this file installs: built once per run, maybe still under way (a hang guard, not a timing).
beforeAll(() => testDist(), 1_800_000);

describe("a purchase whose answer cannot be read, from a YAML program through the plugin (real CLI)", () => {
  const held = useUnreadableOrders("test/e2e/programs/plugin-minimal-records", installPluginWithoutNode);

  it("records the three orders bought, then finishes them with the next up, buying nothing again", async () => {
    await expectOrdersKept(held, { order: "proxy:index:ProxyOrder", fleet: "proxy:index:ProxyFleet" });
  }, 600_000);
});
