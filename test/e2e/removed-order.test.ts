/**
 * An order the operator removed (its reads and its key's replay answer 404), with the real CLI, for a dynamic
 * ProxyOrder, a ProxyOrder through the installed plugin, and a ProxyFleet member: refresh drops it, the next `up`
 * buys exactly one order in its place, a SIGKILL during that `up` and another `up` still buy one in all, and then
 * nothing changes.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { installPlugin, pathWithoutNode } from "../helpers/plugin-archive";
import { orderIdsInState } from "../helpers/renewal";
import { sold } from "../helpers/sandbox";
import { useStack, type StackUnderTest } from "../helpers/stack";

/** Removes `victim` as the operator would, then repairs the stack as a user would; `held` reads the ids the state holds. */
async function removeThenRepair(stack: StackUnderTest, victim: string, held: () => Promise<unknown[]>): Promise<void> {
  const { program, sandbox } = stack;
  const bought = sandbox.createdOrders.length;
  sandbox.removeOrder(victim);
  await program.refresh();
  expect(await held()).not.toContain(victim);

  // The purchase in its place takes 20 s to be ready; the CLI is killed while it waits.
  sandbox.settings.provisioningMs = 20_000;
  await program.upKilled(sold(sandbox, bought + 1).then(() => sleep(2000)));
  expect(sandbox.createdOrders).toHaveLength(bought + 1);
  await program.run(["cancel", "--yes"], { allowFailure: true });
  sandbox.settings.provisioningMs = 1000;

  await program.up();
  expect(sandbox.createdOrders).toHaveLength(bought + 1);
  const successor = sandbox.createdOrders[bought]?.id;
  expect(await held()).toContain(successor);
  await program.preview("--expect-no-changes");
  expect(sandbox.createdOrders).toHaveLength(bought + 1);
}

describe("a dynamic ProxyOrder whose order the operator removed (real CLI)", () => {
  const stack = useStack("examples/quickstart", { stack: "removed", sandbox: { provisioningMs: 1000 } });

  it("is dropped by refresh and bought again exactly once, through a SIGKILL", async () => {
    await stack.program.up();
    const first = String((await stack.program.outputs()).orderId);
    await removeThenRepair(stack, first, () => orderIdsInState(stack.program));
  }, 600_000);
});

describe("a ProxyOrder through the installed plugin whose order the operator removed (real CLI)", () => {
  const stack = useStack("examples/plugin-yaml", {
    stack: "removed",
    sandbox: { provisioningMs: 1000 },
    prepare: async (program) => {
      await installPlugin(program);
      program.env.PATH = pathWithoutNode();
    },
  });

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
