/**
 * Renewal of a ProxyOrder from a YAML program through the plugin, with the real CLI: the reason on the order's own row.
 */
import { beforeAll, describe, it } from "vitest";
import { installPluginWithoutNode, testDist } from "../helpers/plugin-archive";
import { buyThenRenew, LIFETIME_MS, RENEW_BEFORE, shiftedTime } from "../helpers/renewal";
import { useStack } from "../helpers/stack";

// The plugin archive this file installs: built once per run, maybe still under way (a hang guard, not a timing).
beforeAll(() => testDist(), 1_800_000);

describe("renewal of a ProxyOrder from a YAML program through the plugin (real CLI)", () => {
  const stack = useStack("test/e2e/programs/plugin-renewal", {
    stack: "renewal",
    sandbox: { provisioningMs: 1000, orderLifetimeMs: LIFETIME_MS },
    prepare: async (program) => {
      await installPluginWithoutNode(program);
      await program.config("renewBefore", RENEW_BEFORE);
    },
  });

  it("renews inside the window: one replacement with its reason, one purchase, new outputs, then nothing", async () => {
    await buyThenRenew(stack, shiftedTime(stack.program, () => stack.sandbox), true);
  }, 600_000);
});
