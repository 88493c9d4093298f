/**
 * Renewal of a dynamic ProxyOrder with the real CLI, from a JavaScript program: inside the window, after a SIGKILL
 * during the renewal's wait, and without renewBefore (warned about, replaced only once expired). The windows open by
 * moving time (helpers/renewal.ts), not by waiting for them.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { buyThenRenew, LIFETIME_MS, orderIdsInState, RENEW_BEFORE, shiftedTime, untilWindowOpens } from "../helpers/renewal";
import { sold } from "../helpers/sandbox";
import { useStack } from "../helpers/stack";

describe("renewal of a dynamic ProxyOrder (real CLI)", () => {
  const stack = useStack("test/e2e/programs/renewal", {
    stack: "renewal",
    sandbox: { provisioningMs: 1000, orderLifetimeMs: LIFETIME_MS },
    prepare: (program) => program.config("renewBefore", RENEW_BEFORE),
  });

  it("renews inside the window, and a renewal killed (SIGKILL) during its wait still buys exactly once", async () => {
    const time = shiftedTime(stack.program, () => stack.sandbox);
    const renewed = await buyThenRenew(stack, time, false);
    const { program, sandbox } = stack;

    // The next renewal's order takes 20 s to be ready; the CLI is killed while it waits.
    untilWindowOpens(time, renewed.expiresAt);
    sandbox.settings.provisioningMs = 20_000;
    await program.upKilled(sold(sandbox, 3).then(() => sleep(2000)));
    expect(sandbox.createdOrders).toHaveLength(3);
    await program.run(["cancel", "--yes"], { allowFailure: true });
    sandbox.settings.provisioningMs = 1000;
    // The killed renewal's order is ready by now, as far as anyone can tell: the next up finds it so, without a wait.
    time.advance(20_000);

    await program.up();
    expect(sandbox.createdOrders).toHaveLength(3);
    const outputs = await program.outputs();
    expect(outputs.orderId).toBe(sandbox.createdOrders[2]?.id);
    expect(await orderIdsInState(program)).toEqual([outputs.orderId]);
    await program.up();
    expect(sandbox.createdOrders).toHaveLength(3);
  }, 600_000);
});

describe("an order without renewBefore (real CLI)", () => {
  const stack = useStack("test/e2e/programs/renewal", {
    stack: "warned",
    // Two minutes: the order must not expire in real time while preview and refresh run on a loaded machine; time is
    // moved past its expiry instead.
    sandbox: { provisioningMs: 1000, orderLifetimeMs: LIFETIME_MS },
  });

  it("is warned about in preview and refresh, nothing is bought until it expires, then up replaces it once", async () => {
    const { program, sandbox } = stack;
    const time = shiftedTime(program, () => sandbox);
    await program.up();
    const first = await program.outputs();
    const warning = new RegExp(`order ${first.orderId} \\(plan dc-us-5\\) expires at \\S+, in (\\d+m)?\\d+s\\. Nothing renews it: set renewBefore`);
    const preview = await program.preview("--expect-no-changes");
    expect((preview.diagnostics ?? []).map((d) => d.message).join("\n")).toMatch(warning);
    const refresh = await program.refresh();
    expect((refresh.diagnostics ?? []).map((d) => d.message).join("\n")).toMatch(warning);
    expect(sandbox.createdOrders).toHaveLength(1);

    time.advance(Math.max(0, Date.parse(String(first.expiresAt)) - time.now() + 1000));
    await program.up();
    expect(sandbox.createdOrders).toHaveLength(2);
    expect((await program.outputs()).orderId).toBe(sandbox.createdOrders[1]?.id);
  }, 600_000);
});
