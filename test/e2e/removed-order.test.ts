/**
 * An order the operator removed (its reads and its key's replay answer 404), with the real CLI, for a dynamic
 * ProxyOrder and a ProxyFleet member (the plugin's ProxyOrder: removed-order-plugin.test.ts): refresh drops it, the next `up`
 * buys exactly one order in its place, a SIGKILL during that `up` and another `up` still buy one in all, and then
 * nothing changes.
 */
import { describe, expect, it } from "vitest";
import { removeThenRepair } from "../helpers/removed-order";
import { orderIdsInState } from "../helpers/renewal";
import { useStack } from "../helpers/stack";

describe("a dynamic ProxyOrder whose order the operator removed (real CLI)", () => {
  const stack = useStack("examples/quickstart", { stack: "removed", sandbox: { provisioningMs: 1000 } });

  it("is dropped by refresh and bought again exactly once, through a SIGKILL", async () => {
    await stack.program.up();
    const first = String((await stack.program.outputs()).orderId);
    await removeThenRepair(stack, first, () => orderIdsInState(stack.program));
  }, 600_000);
});

describe("a ProxyFleet member whose order the operator removed (real CLI)", () => {
  const stack = useStack("test/e2e/programs/proxy-fleet", { stack: "removed", sandbox: { provisioningMs: 1000 } });

  it("is dropped by refresh and bought again exactly once, through a SIGKILL", async () => {
    await stack.program.up();
    const members = async () => {
      const { resources } = await stack.program.exportState();
      const fleet = resources.find((r) => r.type.endsWith("ProxyFleet"));
      return ((fleet?.outputs?.members ?? []) as Array<{ orderId: string }>).map((m) => m.orderId);
    };
    const [, victim] = await members();
    await removeThenRepair(stack, String(victim), members);
    expect(await members()).toHaveLength(3);
  }, 600_000);
});
