/**
 * Health checks of a ProxyFleet with the real CLI, from a JavaScript program (the dynamic provider), against a
 * sandbox that serves its proxies: 20 one-proxy orders, 3 of them dead. Every assertion counts purchases (the
 * sandbox's own record) or reads the state and the CLI's messages.
 */
import { describe, expect, it } from "vitest";
import type { PulumiProgram } from "../helpers/pulumi";
import { useStack } from "../helpers/stack";

const FLEET_TYPE = "pulumi-nodejs:dynamic/proxy:ProxyFleet";

async function membersInState(program: PulumiProgram): Promise<string[]> {
  const fleet = (await program.exportState()).resources.find((r) => r.type === FLEET_TYPE);
  return ((fleet?.outputs?.members ?? []) as Array<{ orderId: string }>).map((m) => m.orderId);
}

/** Every message of a command, failed or not. */
function said(result: { diagnostics?: Array<{ message: string }> }): string {
  return (result.diagnostics ?? []).map((d) => d.message).join("\n");
}

describe("a ProxyFleet with healthCheck from a JavaScript program (real CLI)", () => {
  const stack = useStack("test/e2e/programs/health-fleet", { stack: "health", sandbox: { provisioningMs: 1000, serveProxies: true } });
  // The phases of one fleet's life, in order: each starts from the state the one before left.
  let members: string[] = [];
  let deadOrders: string[] = [];
  const printed: string[] = [];

  it("buys 20 orders, and all 20 proxies answer through themselves", async () => {
    const { program, sandbox } = stack;
    await program.config("target", sandbox.proxies?.echoUrl ?? "");
    expect((await program.up()).changeSummary).toEqual({ create: 2 });
    expect(sandbox.createdOrders).toHaveLength(20);
    expect(await program.outputs()).toMatchObject({ healthy: 20, total: 20, failed: [], functionHealthy: 20, functionTotal: 20 });
    members = await membersInState(program);
    deadOrders = [members[2], members[9], members[15]].filter((id): id is string => id !== undefined);
  });

  it("reports 17 of 20 once 3 proxies die, naming each, with no minHealthy to fail", async () => {
    const { program, sandbox } = stack;
    const dead = [...sandbox.state.orders.values()].filter((o) => deadOrders.includes(o.id)).flatMap((o) => o.proxies);
    for (const proxy of dead) await sandbox.proxies?.setCondition(proxy.id, "dead");
    const warning = said(await program.up("--refresh"));
    printed.push(warning);
    expect(warning).toContain("17 of 20 proxies of fleet");
    for (const proxy of dead) expect(warning).toContain(`${proxy.ip}:${proxy.port} (order ${proxy.order_id}): refused`);
    expect(await program.outputs()).toMatchObject({ healthy: 17, total: 20, failed: deadOrders, functionHealthy: 17, functionTotal: 20 });
  });

  it("fails an up below minHealthy, naming the dead, and keeps every order", async () => {
    const { program, sandbox } = stack;
    await program.config("minHealthy", "18");
    const gate = await program.run(["up", "--yes", "--skip-preview", "--non-interactive"], { allowFailure: true });
    expect(gate.code).not.toBe(0);
    const failure = gate.stdout + gate.stderr;
    printed.push(failure);
    expect(failure).toContain("healthCheck.minHealthy asks for 18");
    for (const id of deadOrders) expect(failure).toContain(`(order ${id}): refused`);
    expect(await membersInState(program)).toEqual(members);
    expect(sandbox.createdOrders).toHaveLength(20);
  });

  it("with replaceUnhealthy, previews then buys exactly 3 replacements, and nothing secret was ever printed", async () => {
    const { program, sandbox } = stack;
    await program.config("replaceUnhealthy", "5");
    const plan = said(await program.preview("--refresh"));
    printed.push(plan);
    expect(plan).toContain("this update buys 3 order(s) of plan dc-us-1 for the fleet");
    for (const id of deadOrders) expect(plan).toContain(`order ${id} has proxies that failed the last health check`);
    expect(sandbox.createdOrders).toHaveLength(20);
    await program.up("--refresh");
    expect(sandbox.createdOrders).toHaveLength(23);
    const after = await membersInState(program);
    expect(after.filter((id) => deadOrders.includes(id))).toEqual([]);
    expect(after.filter((id, slot) => id !== members[slot])).toHaveLength(3);
    expect(await program.outputs()).toMatchObject({ healthy: 20, total: 20, failed: [] });
    const state = await program.exportState();
    for (const order of sandbox.state.orders.values()) {
      for (const p of order.proxies) {
        expect(state.text).not.toContain(p.password);
        expect(printed.join("\n")).not.toContain(p.password);
      }
    }
    await program.preview("--expect-no-changes");
  });
});
