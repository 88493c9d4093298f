/**
 * A failure after the purchase, from a JavaScript program (the dynamic provider) with the real CLI: every order
 * bought is in the state, and the next `up` carries on with them (the plugin's side: kept-after-purchase-plugin.test.ts).
 */
import { describe, it } from "vitest";
import { expectOrdersKept, useUnreadableOrders } from "../helpers/kept-after-purchase";

describe("a purchase whose answer cannot be read, from a JavaScript program (real CLI)", () => {
  const held = useUnreadableOrders("test/e2e/programs/minimal-records");

  it("records the three orders bought, then finishes them with the next up, buying nothing again", async () => {
    await expectOrdersKept(held, { order: "pulumi-nodejs:dynamic/proxy:ProxyOrder", fleet: "pulumi-nodejs:dynamic/proxy:ProxyFleet" });
  }, 600_000);
});
