/**
 * ProxyFleet with the real CLI, from a JavaScript program (the dynamic provider): buy, grow, shrink, one member
 * replaced alone, a SIGKILL mid-wait, a failing plan, refresh and destroy. Every assertion counts purchases (the
 * sandbox's own record) or reads the state.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { PulumiProgram } from "../helpers/pulumi";
import { sold } from "../helpers/sandbox";
import { useStack } from "../helpers/stack";

const FLEET_TYPE = "pulumi-nodejs:dynamic/proxy:ProxyFleet";

/** The fleet's members as the state holds them. */
async function membersInState(program: PulumiProgram): Promise<Array<{ slot: number; orderId: string; status: string }>> {
  const { resources } = await program.exportState();
  const fleets = resources.filter((r) => r.type === FLEET_TYPE);
  expect(fleets).toHaveLength(1);
  return (fleets[0]?.outputs?.members ?? []) as Array<{ slot: number; orderId: string; status: string }>;
}

describe("a ProxyFleet from a JavaScript program (real CLI)", () => {
  const stack = useStack("test/e2e/programs/proxy-fleet", { stack: "fleet", sandbox: { provisioningMs: 1500 } });

  it("buys, grows and shrinks touching only what must change, and replaces one member alone", async () => {
    const { program, sandbox } = stack;
    await program.config("orders", "5");
    const first = await program.up();
    expect(first.changeSummary).toEqual({ create: 2 });
    expect(sandbox.createdOrders).toHaveLength(5);
    const bought = await membersInState(program);
    expect(bought.map((m) => m.status)).toEqual(Array(5).fill("active"));
    expect(await program.outputs()).toMatchObject({ proxyCount: 25, credentials: "[secret]" });
    const state = await program.exportState();
    for (const order of sandbox.state.orders.values()) for (const p of order.proxies) expect(state.text).not.toContain(p.password);
    await program.preview("--expect-no-changes");

    await program.config("orders", "8");
    expect((await program.up()).changeSummary).toMatchObject({ update: 1 });
    expect(sandbox.createdOrders).toHaveLength(8);
    const grown = await membersInState(program);
    expect(grown.slice(0, 5)).toEqual(bought);

    await program.config("orders", "6");
    const shrinking = await program.preview();
    const said = (shrinking.diagnostics ?? []).map((d) => d.message).join("\n");
    expect(said).toContain(`stops tracking ${grown[6]?.orderId} (slot 6), ${grown[7]?.orderId} (slot 7)`);
    await program.up();
    expect(sandbox.createdOrders).toHaveLength(8);
    const shrunk = await membersInState(program);
    expect(shrunk).toEqual(grown.slice(0, 6));

    sandbox.cancelOrder(shrunk[3]?.orderId ?? "");
    await program.up("--refresh");
    expect(sandbox.createdOrders).toHaveLength(9);
    const mended = await membersInState(program);
    expect(mended.map((m) => m.orderId)).toEqual(shrunk.map((m, i) => (i === 3 ? sandbox.createdOrders[8]?.id : m.orderId)));
    expect(mended.map((m) => m.status)).toEqual(Array(6).fill("active"));
    await program.preview("--expect-no-changes");
  }, 600_000);

  it("after a SIGKILL mid-wait, the next up buys nothing twice; slots grown again take back their old orders", async () => {
    const { program, sandbox } = stack;
    sandbox.settings.provisioningMs = 20_000;
    await program.config("orders", "10");
    // Slots 6 and 7 take back the orders they held before the shrink (their keys are the slots'): two purchases.
    await program.upKilled(sold(sandbox, 11).then(() => sleep(2000)));
    expect(sandbox.createdOrders).toHaveLength(11);
    await program.run(["cancel", "--yes"], { allowFailure: true });
    sandbox.settings.provisioningMs = 1500;
    await program.up();
    expect(sandbox.createdOrders).toHaveLength(11);
    const members = await membersInState(program);
    expect(members.map((m) => m.slot)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(members.map((m) => m.status)).toEqual(Array(10).fill("active"));
    expect(new Set(members.map((m) => m.orderId)).size).toBe(10);
  }, 600_000);

  it("a failing plan is recorded with what it holds; refresh keeps it; destroy only stops tracking", async () => {
    const { program, sandbox } = stack;
    await program.config("orders", "2");
    await program.up();
    await program.config("planId", "res-br-out-of-stock");
    await expect(program.up()).rejects.toThrow(/2 of the fleet's 2 order\(s\) are not ready: slot \d: Order ord_\w+ \(plan res-br-out-of-stock\) ended "failed": No residential proxies/);
    expect(sandbox.createdOrders).toHaveLength(13);
    await program.run(["config", "rm", "planId"]);
    // The failed fleet is recorded beside the old one (the replacement stopped); refresh keeps both as they are,
    // clearing only the failed one's recorded error.
    const members = async () => (await program.exportState()).resources.filter((r) => r.type === FLEET_TYPE).map((r) => r.outputs?.members);
    const before = await members();
    expect(before).toHaveLength(2);
    const refresh = await program.refresh();
    expect(refresh.changeSummary).not.toHaveProperty("delete");
    expect(await members()).toEqual(before);
    const destroy = await program.destroy();
    expect((destroy.diagnostics ?? []).some((d) => d.message.includes("stay active: the API has no cancel endpoint"))).toBe(true);
    expect(sandbox.createdOrders).toHaveLength(13);
  }, 600_000);
});

describe("a ProxyFleet of 1,000 (real CLI)", () => {
  const stack = useStack("test/e2e/programs/proxy-fleet", {
    stack: "thousand",
    sandbox: { provisioningMs: 8000, rateLimit: { requestsPerSecond: 200, burst: 200 } },
  });

  it("reports its waits as one fleet: a few progress lines, not a line per member and state", async () => {
    const { program, sandbox } = stack;
    await program.config("orders", "1000");
    await program.config("readyTimeout", "10m");
    const up = await program.up();
    expect(sandbox.createdOrders).toHaveLength(1000);
    const said = (up.diagnostics ?? []).map((d) => d.message).filter((m) => m.includes("proxy:"));
    expect(said.some((m) => /the fleet's orders of plan dc-us-5: 1000 of 1000 order\(s\) placed: 0 pending, 0 provisioning, 1000 active/.test(m))).toBe(true);
    expect(said.filter((m) => /order ord_\w+ is (pending|provisioning)/.test(m))).toEqual([]);
    expect(said.length).toBeLessThanOrEqual(30);

    // A refresh in which nothing changed lists the account (5,000 proxies: 5 pages) in its preview and in its update,
    // and reads no order by id.
    const before = sandbox.requests.length;
    await program.refresh();
    const refreshed = sandbox.requests.slice(before).filter((r) => r.path.startsWith("/v1/"));
    expect(refreshed.filter((r) => r.path.startsWith("/v1/orders/"))).toEqual([]);
    expect(refreshed.length).toBeLessThanOrEqual(20);
    await program.preview("--expect-no-changes");
  }, 600_000);
});
