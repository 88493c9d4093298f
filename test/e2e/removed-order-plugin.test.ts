/**
 * A ProxyOrder through the installed plugin (a YAML program, no Node.js) whose order the operator removed, with the
 * real CLI: refresh drops it, the next `up` buys exactly one order in its place, through a SIGKILL.
 */
import { beforeAll, describe, it } from "vitest";
import { installPluginWithoutNode, testDist } from "../helpers/plugin-archive";
import { removeThenRepair } from "../helpers/removed-order";
import { orderIdsInState } from "../helpers/renewal";
import { useStack } from "../helpers/stack";

// The plugin archive this file installs: built once per run, maybe still under way (a hang guard, not a timing).
beforeAll(() => testDist(), 1_800_000);

describe("a ProxyOrder through the installed plugin whose order the operator removed (real CLI)", () => {
  const stack = useStack("examples/plugin-yaml", {
    stack: "removed",
    sandbox: { provisioningMs: 1000 },
    prepare: installPluginWithoutNode,
  });

  it("is dropped by refresh and bought again exactly once, through a SIGKILL", async () => {
    await stack.program.up();
    const first = String((await stack.program.outputs()).orderId);
    await removeThenRepair(stack, first, () => orderIdsInState(stack.program));
  }, 600_000);
});
