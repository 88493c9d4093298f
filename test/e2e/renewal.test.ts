/**
 * Renewal before expiry with the real CLI, against a sandbox whose orders expire in two minutes: the dynamic provider
 * from a JavaScript program and the plugin from a YAML program. The provider judges expiry by real time, so the tests
 * wait for the window to open (the waits are setup, not timings: every assertion is a count or a state).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../../sandbox";
import { installPlugin, pathWithoutNode } from "../helpers/plugin-archive";
import type { JsonSummary, PulumiProgram } from "../helpers/pulumi";
import { useStack, type StackUnderTest } from "../helpers/stack";

/** Orders live two minutes; renewal starts one minute before expiry, so the first minute is outside the window. */
const LIFETIME_MS = 120_000;
const RENEW_BEFORE = "60s";
const WINDOW_MS = 60_000;

/** Waits until the order that `expiresAt` belongs to is inside its renewal window. */
async function untilWindowOpens(expiresAt: unknown): Promise<void> {
  const opens = Date.parse(String(expiresAt)) - WINDOW_MS;
  await sleep(Math.max(0, opens - Date.now() + 1000));
}

/** The one replacement of the preview, with the reason the provider gave for it. */
function expectOneRenewal(preview: JsonSummary, orderId: string): void {
  expect(preview.changeSummary).toMatchObject({ replace: 1 });
  const replaced = (preview.steps ?? []).filter((s) => s.op === "replace");
  expect(replaced).toHaveLength(1);
  expect(replaced[0]?.replaceReasons).toEqual(["expiresAt"]);
  const said = (preview.diagnostics ?? []).map((d) => d.message).join("\n");
  expect(said).toMatch(new RegExp(`order ${orderId} \\(plan dc-us-5\\) expires at \\S+, in \\d+s, within renewBefore \\(${RENEW_BEFORE}\\)`));
}

/** Buys, previews before the window, then renews inside it: one purchase, new outputs, and then nothing. */
async function buyThenRenew(stack: StackUnderTest): Promise<Record<string, unknown>> {
  const { program, sandbox } = stack;
  await program.up();
  const first = await program.outputs();
  expect(sandbox.createdOrders).toHaveLength(1);
  expect(Date.parse(String(first.expiresAt))).toBeGreaterThan(Date.now());
  await program.preview("--expect-no-changes");

  await untilWindowOpens(first.expiresAt);
  expectOneRenewal(await program.preview(), String(first.orderId));
  await program.up();
  expect(sandbox.createdOrders).toHaveLength(2);
  const renewed = await program.outputs();
  expect(renewed.orderId).toBe(sandbox.createdOrders[1]?.id);
  expect(Date.parse(String(renewed.expiresAt))).toBeGreaterThan(Date.parse(String(first.expiresAt)));
  expect(renewed.firstIp).not.toEqual(first.firstIp);
  expect(await orderIdsInState(program)).toEqual([renewed.orderId]);

  await program.up();
  expect(sandbox.createdOrders).toHaveLength(2);
  return renewed;
}

/** The ids of the orders a stack's state holds. */
async function orderIdsInState(program: PulumiProgram): Promise<unknown[]> {
  const { resources } = await program.exportState();
  return resources.filter((r) => r.type.endsWith("ProxyOrder")).map((r) => r.id);
}

/** Resolves once the sandbox has sold `count` orders. */
async function sold(sandbox: Sandbox, count: number): Promise<void> {
  while (sandbox.createdOrders.length < count) await sleep(100);
}

describe("renewal of a dynamic ProxyOrder (real CLI)", () => {
  const stack = useStack("test/e2e/programs/renewal", {
    stack: "renewal",
    sandbox: { provisioningMs: 1000, orderLifetimeMs: LIFETIME_MS },
    prepare: (program) => program.config("renewBefore", RENEW_BEFORE),
  });

  it("renews inside the window, and a renewal killed (SIGKILL) during its wait still buys exactly once", async () => {
    const renewed = await buyThenRenew(stack);
    const { program, sandbox } = stack;

    // The next renewal's order takes 20 s to be ready; the CLI is killed while it waits.
    await untilWindowOpens(renewed.expiresAt);
    sandbox.settings.provisioningMs = 20_000;
    await program.upKilled(sold(sandbox, 3).then(() => sleep(2000)));
    expect(sandbox.createdOrders).toHaveLength(3);
    await program.run(["cancel", "--yes"], { allowFailure: true });
    sandbox.settings.provisioningMs = 1000;

    await program.up();
    expect(sandbox.createdOrders).toHaveLength(3);
    const outputs = await program.outputs();
    expect(outputs.orderId).toBe(sandbox.createdOrders[2]?.id);
    expect(await orderIdsInState(program)).toEqual([outputs.orderId]);
    await program.up();
    expect(sandbox.createdOrders).toHaveLength(3);
  }, 600_000);
});

describe("renewal of a ProxyOrder from a YAML program through the plugin (real CLI)", () => {
  const stack = useStack("test/e2e/programs/plugin-renewal", {
    stack: "renewal",
    sandbox: { provisioningMs: 1000, orderLifetimeMs: LIFETIME_MS },
    prepare: async (program) => {
      await installPlugin(program);
      program.env.PATH = pathWithoutNode();
      await program.config("renewBefore", RENEW_BEFORE);
    },
  });

  it("renews inside the window: one replacement with its reason, one purchase, new outputs, then nothing", async () => {
    await buyThenRenew(stack);
  }, 600_000);
});

describe("an order without renewBefore (real CLI)", () => {
  const stack = useStack("test/e2e/programs/renewal", {
    stack: "warned",
    sandbox: { provisioningMs: 1000, orderLifetimeMs: 30_000 },
  });

  it("is warned about in preview and refresh, nothing is bought until it expires, then up replaces it once", async () => {
    const { program, sandbox } = stack;
    await program.up();
    const first = await program.outputs();
    const warning = new RegExp(`order ${first.orderId} \\(plan dc-us-5\\) expires at \\S+, in \\d+s\\. Nothing renews it: set renewBefore`);
    const preview = await program.preview("--expect-no-changes");
    expect((preview.diagnostics ?? []).map((d) => d.message).join("\n")).toMatch(warning);
    const refresh = await program.refresh();
    expect((refresh.diagnostics ?? []).map((d) => d.message).join("\n")).toMatch(warning);
    expect(sandbox.createdOrders).toHaveLength(1);

    await sleep(Math.max(0, Date.parse(String(first.expiresAt)) - Date.now() + 1000));
    await program.up();
    expect(sandbox.createdOrders).toHaveLength(2);
    expect((await program.outputs()).orderId).toBe(sandbox.createdOrders[1]?.id);
  }, 600_000);
});
